package skills

import (
	"archive/zip"
	"bytes"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Files and bounds of a skill (seed 002: SKILL.md and each reference at most 100 KB, resources loaded
// inline up to 200 KB, at most 50 skills per account; the other bounds are the platform's).
const (
	// SkillFile is the skill's definition at the folder's root.
	SkillFile = "SKILL.md"
	// ReferencesDir holds the skill's markdown references (references/<name>.md).
	ReferencesDir = "references/"
	// MaxSkillBytes bounds SKILL.md and each reference.
	MaxSkillBytes = 100 << 10
	// MaxInlineBytes bounds the references and resources Load answers inline.
	MaxInlineBytes = 200 << 10
	// MaxPerAccount bounds an account's skills.
	MaxPerAccount = 50
	// MaxPathLen bounds a resource path, in bytes.
	MaxPathLen = 255
	// MaxFiles bounds the files of one skill (platform bound).
	MaxFiles = 100
	// MaxSkillTotalBytes bounds the unpacked bytes of one skill (platform bound).
	MaxSkillTotalBytes = 10 << 20
	// MaxUploadBytes bounds the body of POST /v1/skills.
	MaxUploadBytes = MaxSkillTotalBytes + 1<<20
)

// Purpose is the files capability's purpose of the skill name's files: its folder /skills/<name>/.
func Purpose(name string) string { return file.SkillsPurposePrefix + name + "/" }

// ValidatePath checks a path in a skill's folder (seed 002): relative, no leading '/', no '..', no empty
// segments, at most 255 bytes; each segment a valid file name, at any depth. Errors name param.
func ValidatePath(param, p string) error {
	switch {
	case p == "":
		return svcerr.Invalid(param, "%s is empty: a resource path is relative, such as scripts/run.py", param)
	case strings.HasPrefix(p, "/"):
		return svcerr.Invalid(param, "%s %q: a resource path is relative, with no leading '/'", param, p)
	case len(p) > MaxPathLen:
		return svcerr.Invalid(param, "%s has %d bytes: a resource path has at most %d", param, len(p), MaxPathLen)
	case !utf8.ValidString(p):
		return svcerr.Invalid(param, "%s is not UTF-8 text", param)
	}
	segs := strings.Split(p, "/")
	if slices.Contains(segs, "..") {
		return svcerr.Invalid(param, "%s %q: a resource path has no '..' segment", param, p)
	}
	if slices.Contains(segs, "") {
		return svcerr.Invalid(param, "%s %q: a resource path has no empty segments ('//' or a trailing '/')", param, p)
	}
	for _, s := range segs {
		if err := file.ValidateName(s); err != nil {
			se, _ := svcerr.As(err)
			return &svcerr.Error{Code: se.Code, Param: param, Message: param + " " + p + ": " + se.Message}
		}
	}
	return nil
}

// IsReference reports a reference: references/<name>.md, one level under references/.
func IsReference(p string) bool {
	rest, ok := strings.CutPrefix(p, ReferencesDir)
	return ok && strings.HasSuffix(rest, ".md") && !strings.Contains(rest, "/")
}

// Kind names a file of a skill: skill (SKILL.md), reference or resource.
func Kind(p string) string {
	switch {
	case p == SkillFile:
		return "skill"
	case IsReference(p):
		return "reference"
	}
	return "resource"
}

// Validate checks a skill's folder by path against every rule and answers its parsed SKILL.md.
func Validate(files map[string][]byte) (*Document, error) {
	if len(files) > MaxFiles {
		return nil, svcerr.Invalid("files", "a skill has at most %d files, not %d", MaxFiles, len(files))
	}
	total := 0
	for _, p := range sortedPaths(files) {
		if err := ValidatePath("files["+p+"]", p); err != nil {
			return nil, err
		}
		if IsReference(p) && len(files[p]) > MaxSkillBytes {
			return nil, svcerr.Invalid("files["+p+"]", "reference %s has %d bytes, more than %d (100 KB)", p, len(files[p]), MaxSkillBytes)
		}
		total += len(files[p])
	}
	if total > MaxSkillTotalBytes {
		return nil, svcerr.New(svcerr.PayloadTooLarge, "the skill's files hold %d bytes, more than %d", total, MaxSkillTotalBytes)
	}
	raw, ok := files[SkillFile]
	if !ok {
		return nil, svcerr.Invalid(SkillFile, "a skill has a SKILL.md at its folder's root")
	}
	return Parse(raw)
}

func sortedPaths(files map[string][]byte) []string {
	out := make([]string, 0, len(files))
	for p := range files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// ReadZip unpacks a ZIP of a skill folder into its files by path. SKILL.md is at the archive's root, or
// every entry is under one top folder holding it (a zipped folder), which is then stripped. Folder entries
// are skipped; more than MaxFiles files or MaxSkillTotalBytes unpacked bytes are refused.
func ReadZip(data []byte) (map[string][]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, svcerr.Invalid("body", "the body is not a ZIP archive: %v", err)
	}
	prefix := zipRoot(zr.File)
	out := map[string][]byte{}
	total := int64(0)
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		name, ok := strings.CutPrefix(f.Name, prefix)
		if !ok {
			return nil, svcerr.Invalid("files["+f.Name+"]", "%s lies outside the skill folder %s", f.Name, prefix)
		}
		if len(out) >= MaxFiles {
			return nil, svcerr.Invalid("files", "a skill has at most %d files", MaxFiles)
		}
		if _, dup := out[name]; dup {
			return nil, svcerr.Invalid("files["+name+"]", "the archive holds %s twice", name)
		}
		b, err := readEntry(f, MaxSkillTotalBytes-total)
		if err != nil {
			return nil, err
		}
		total += int64(len(b))
		out[name] = b
	}
	return out, nil
}

// zipRoot is the folder prefix to strip: "" when SKILL.md is at the root, "<dir>/" when the archive is
// one folder holding it.
func zipRoot(files []*zip.File) string {
	for _, f := range files {
		if f.Name == SkillFile {
			return ""
		}
	}
	for _, f := range files {
		if dir, ok := strings.CutSuffix(f.Name, "/"+SkillFile); ok && !strings.Contains(dir, "/") {
			return dir + "/"
		}
	}
	return ""
}

// readEntry reads one entry of at most budget bytes, whatever its header claims.
func readEntry(f *zip.File, budget int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, svcerr.Invalid("files["+f.Name+"]", "%s does not open: %v", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, budget+1))
	if err != nil {
		return nil, svcerr.Invalid("files["+f.Name+"]", "%s does not unpack: %v", f.Name, err)
	}
	if int64(len(b)) > budget {
		return nil, svcerr.New(svcerr.PayloadTooLarge, "the skill's files unpack to more than %d bytes", MaxSkillTotalBytes)
	}
	return b, nil
}

// mediaType is the media type a skill file is stored with, by its extension.
func mediaType(p string) string {
	switch {
	case strings.HasSuffix(p, ".md"):
		return "text/markdown; charset=utf-8"
	case strings.HasSuffix(p, ".json"):
		return "application/json"
	case strings.HasSuffix(p, ".txt"), strings.HasSuffix(p, ".py"), strings.HasSuffix(p, ".ts"), strings.HasSuffix(p, ".js"),
		strings.HasSuffix(p, ".yaml"), strings.HasSuffix(p, ".yml"), strings.HasSuffix(p, ".csv"):
		return "text/plain; charset=utf-8"
	}
	return file.DefaultMediaType
}
