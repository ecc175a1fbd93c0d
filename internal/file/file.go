// Package file is the files capability's domain: the rules of a file name, the per-account storage
// limits of seed 002 (tiers standard and club), the quota reserved before an upload streams and settled
// into the file row after, the monthly download volume, and the store of file rows (create, get, list,
// soft delete, purge), every lookup scoped by tenant.Scope. The bytes themselves live in the blob store;
// this package only records their blob key.
package file

import (
	"fmt"
	"mime"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// MaxNameLen bounds a file name, in bytes.
const MaxNameLen = 255

// MaxPurposeLen bounds a file's purpose, in bytes.
const MaxPurposeLen = 100

// DefaultMediaType is the media type of a file uploaded without one.
const DefaultMediaType = "application/octet-stream"

// blockedExtensions are the upload formats seed 002 refuses (415), compared in lower case.
var blockedExtensions = map[string]bool{".exe": true, ".sh": true, ".bat": true, ".com": true}

// ValidateName checks a file name: 1..255 bytes of valid UTF-8, a name and never a path (no '/', '\',
// "..", or control characters: 400 invalid_request), and not of a blocked format (.exe, .sh, .bat, .com,
// case-insensitive, trailing dots and spaces ignored: 415 unsupported_media_type).
func ValidateName(name string) error {
	switch {
	case name == "" || len(name) > MaxNameLen:
		return svcerr.Invalid("name", "a file name has 1 to %d bytes", MaxNameLen)
	case !utf8.ValidString(name) || strings.ContainsFunc(name, isControl):
		return svcerr.Invalid("name", "a file name is UTF-8 text without control characters")
	case strings.ContainsAny(name, `/\`) || strings.Contains(name, ".."):
		return svcerr.Invalid("name", "a file name is a name, never a path: it has no '/', '\\' or '..'")
	}
	// Windows drops trailing dots and spaces, so "run.exe. " is run.exe there.
	trimmed := strings.TrimRight(name, ". ")
	if trimmed == "" {
		return svcerr.Invalid("name", "a file name is more than dots and spaces")
	}
	if ext := strings.ToLower(path.Ext(trimmed)); blockedExtensions[ext] {
		return (&svcerr.Error{Code: svcerr.UnsupportedMediaType, Param: "name",
			Message: fmt.Sprintf("files of the %s format are refused (.exe, .sh, .bat and .com are blocked)", ext)}).
			WithDetails("extension", ext)
	}
	return nil
}

// AppsPurposePrefix starts the purpose of an app's files ("/apps/<slug>/", see internal/apps): under it
// a file's name is its path relative to the app's folder, so it may hold '/' between its segments.
const AppsPurposePrefix = "/apps/"

// SkillsPurposePrefix starts the purpose of a skill's files ("/skills/<name>/", see internal/skills):
// as under AppsPurposePrefix, a file's name is its path relative to the skill's folder.
const SkillsPurposePrefix = "/skills/"

// ValidateNameFor checks a file's name for its purpose: a name (ValidateName) for every purpose but an
// app's or a skill's, whose names are relative paths of segments that each pass ValidateName.
func ValidateNameFor(purpose, name string) error {
	folder := strings.HasPrefix(purpose, AppsPurposePrefix) || strings.HasPrefix(purpose, SkillsPurposePrefix)
	if !folder || !strings.Contains(name, "/") {
		return ValidateName(name)
	}
	if len(name) > MaxNameLen {
		return svcerr.Invalid("name", "a file name has 1 to %d bytes", MaxNameLen)
	}
	for _, seg := range strings.Split(name, "/") {
		if err := ValidateName(seg); err != nil {
			return svcerr.Invalid("name", "an app file's path is segments joined by '/', each a valid file name: %q is not", name)
		}
	}
	return nil
}

// ValidateMediaType checks a file's media type: empty (the default), or a type/subtype with optional
// parameters (RFC 2045) of at most 255 bytes.
func ValidateMediaType(mt string) error {
	if err := validateText("mediaType", mt, 255); err != nil || mt == "" {
		return err
	}
	if media, _, err := mime.ParseMediaType(mt); err != nil || !strings.Contains(media, "/") {
		return svcerr.Invalid("mediaType", "mediaType %q is not a media type such as text/plain or application/pdf", mt)
	}
	return nil
}

// ValidatePurpose checks a file's purpose: at most MaxPurposeLen bytes of text.
func ValidatePurpose(p string) error { return validateText("purpose", p, MaxPurposeLen) }

// validateText checks a purpose or media type: at most max bytes of UTF-8 without control characters.
func validateText(param, value string, maxLen int) error {
	if len(value) > maxLen || !utf8.ValidString(value) || strings.ContainsFunc(value, isControl) {
		return svcerr.Invalid(param, "%s is text of at most %d bytes without control characters", param, maxLen)
	}
	return nil
}

// isControl reports C0 and C1 control characters and DEL.
func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) }

// ToWire converts a file row to the API's shape.
func ToWire(f *schema.File) client.File {
	return client.File{ID: f.ID, Name: f.Name, MediaType: f.MediaType, Bytes: f.Bytes, SHA256: f.SHA256,
		Purpose: f.Purpose, ProjectID: f.ProjectID, CreatedAt: f.CreatedAt.UTC()}
}
