package skills

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/folder"
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
	return folder.ReadZip(data, folder.ZipRules{Marker: SkillFile, Noun: "skill", Article: "a skill",
		MaxFiles: MaxFiles, MaxBytes: MaxSkillTotalBytes})
}
