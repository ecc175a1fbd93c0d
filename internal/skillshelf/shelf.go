// Package skillshelf installs seed 001's bundled skill shelf into a shared vault: three templates
// (authoring of generation skills, image generation, localtts), embedded in the binary, are copied to
// <vault>/Skills/<skill>/ when absent. Existing files are kept; a skill the shelf installed carries a
// .svc-skill-source.json marking its bundled origin; the index <vault>/Skills/README.md lists every
// skill of the folder. Templates hold placeholders only.
package skillshelf

import (
	"bufio"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/codeproof"
)

// templates are the bundled skills, one folder each.
//
//go:embed templates
var templates embed.FS

// Names and markers of the shelf.
const (
	// Dir is the shelf's folder inside the vault.
	Dir = "Skills"
	// SourceFile marks a skill the shelf installed.
	SourceFile = ".svc-skill-source.json"
	// IndexFile is the shelf's index.
	IndexFile = "README.md"
	// indexMarker marks an index the shelf wrote (and may rewrite).
	indexMarker = "<!-- svc skill shelf index: rewritten by `svc skills install-shelf` -->"
	// Origin is the origin a source file names.
	Origin = "svc-bundled"
)

// Source is the content of a skill's .svc-skill-source.json.
type Source struct {
	Origin      string    `json:"origin"`
	Skill       string    `json:"skill"`
	Version     string    `json:"version"`
	SHA256      string    `json:"sha256" doc:"Of the bundled SKILL.md."`
	InstalledAt time.Time `json:"installedAt"`
}

// Result says what an install did, with paths relative to the vault.
type Result struct {
	Installed []string `json:"installed"`
	Kept      []string `json:"kept"`
	// Index is "written" or "kept" (an index the shelf did not write is left alone).
	Index string `json:"index"`
}

// Skills are the names of the bundled skills.
func Skills() []string {
	entries, _ := fs.ReadDir(templates, "templates")
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// Template returns a bundled file, e.g. Template("localtts/SKILL.md").
func Template(name string) ([]byte, error) {
	return templates.ReadFile(path.Join("templates", name))
}

// Install copies the bundled skills into <vaultDir>/Skills/ (version names the build in the source
// files) and rewrites the index.
func Install(vaultDir, version string, now time.Time) (Result, error) {
	fi, err := os.Stat(vaultDir)
	if err != nil || !fi.IsDir() {
		return Result{}, fmt.Errorf("install the skill shelf: the vault %s is not a directory", vaultDir)
	}
	shelf := filepath.Join(vaultDir, Dir)
	res := Result{Installed: []string{}, Kept: []string{}}
	for _, skill := range Skills() {
		if err := installSkill(shelf, skill, version, now, &res); err != nil {
			return res, err
		}
	}
	idx, err := writeIndex(shelf)
	res.Index = idx
	return res, err
}

// installSkill copies the skill's absent files and, when its SKILL.md was installed now, its source file.
func installSkill(shelf, skill, version string, now time.Time, res *Result) error {
	root := path.Join("templates", skill)
	return fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		dst := filepath.Join(shelf, skill, filepath.FromSlash(rel))
		shown := path.Join(Dir, skill, rel)
		if _, err := os.Lstat(dst); err == nil {
			res.Kept = append(res.Kept, shown)
			return nil
		}
		data, err := templates.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read bundled %s: %w", p, err)
		}
		if err := writeNew(dst, data); err != nil {
			return err
		}
		res.Installed = append(res.Installed, shown)
		if rel == "SKILL.md" {
			return writeSource(filepath.Join(shelf, skill), skill, version, data, now)
		}
		return nil
	})
}

// writeSource writes the skill's source file.
func writeSource(dir, skill, version string, skillMD []byte, now time.Time) error {
	sum := sha256.Sum256(skillMD)
	raw, err := json.MarshalIndent(Source{Origin: Origin, Skill: skill, Version: version,
		SHA256: hex.EncodeToString(sum[:]), InstalledAt: now.UTC().Truncate(time.Second)}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", SourceFile, err)
	}
	return writeNew(filepath.Join(dir, SourceFile), append(raw, '\n'))
}

// writeNew writes a file atomically, making its folder.
func writeNew(dst string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("make %s: %w", filepath.Dir(dst), err)
	}
	if err := codeproof.WriteFileAtomic(dst, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	return nil
}

// writeIndex writes Skills/README.md listing every skill folder, unless an index the shelf did not
// write is there.
func writeIndex(shelf string) (string, error) {
	idx := filepath.Join(shelf, IndexFile)
	old, err := os.ReadFile(idx)
	if err == nil && !strings.Contains(string(old), indexMarker) {
		return "kept", nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read the shelf index: %w", err)
	}
	body, err := indexOf(shelf)
	if err != nil {
		return "", err
	}
	if err := writeNew(idx, []byte(body)); err != nil {
		return "", err
	}
	return "written", nil
}

// indexOf renders the index of the shelf's skills, by name.
func indexOf(shelf string) (string, error) {
	entries, err := os.ReadDir(shelf)
	if err != nil {
		return "", fmt.Errorf("list the shelf: %w", err)
	}
	var b strings.Builder
	b.WriteString("# Skills\n\n" + indexMarker + "\n\n")
	b.WriteString("Shared skills of this vault. Bundled skills come from svc (`" + SourceFile + "` marks them);\n")
	b.WriteString("edit them freely: `svc skills install-shelf` never overwrites an existing file.\n\n")
	b.WriteString("| Skill | Origin | Description |\n|---|---|---|\n")
	var rows []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		desc, ok := description(filepath.Join(shelf, e.Name(), "SKILL.md"))
		if !ok {
			continue
		}
		origin := "shared"
		if _, err := os.Stat(filepath.Join(shelf, e.Name(), SourceFile)); err == nil {
			origin = "bundled"
		}
		rows = append(rows, fmt.Sprintf("| [%s](%s/SKILL.md) | %s | %s |\n", e.Name(), e.Name(), origin, desc))
	}
	sort.Strings(rows)
	for _, r := range rows {
		b.WriteString(r)
	}
	return b.String(), nil
}

// description is the description line of a SKILL.md's front matter; ok false when there is no file.
func description(p string) (string, bool) {
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "description:"); ok {
			return strings.ReplaceAll(strings.TrimSpace(d), "|", "/"), true
		}
	}
	return "", true
}
