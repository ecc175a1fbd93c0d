package apps

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/svcplatform/svc/internal/appscript"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Paths of an app's folder (seed 002: /apps/{slug}/manifest.json, index.html, scripts/<name>.ts,
// data/<key>.json, designs/…).
const (
	ManifestPath = "manifest.json"
	IndexPath    = "index.html"
	scriptsDir   = "scripts/"
	dataDir      = "data/"
	designsDir   = "designs/"
)

// Bounds of an app's folder.
const (
	// MaxFiles bounds the files of one app.
	MaxFiles = 200
	// MaxAppBytes bounds the bytes of one create (all files, unpacked).
	MaxAppBytes = 20 << 20
	// MaxScriptBytes bounds a script's source.
	MaxScriptBytes = 256 << 10
	// maxDesignDepth bounds the segments under designs/: one, so every path of an app has at most two
	// segments and addresses a route of its own (PUT /v1/apps/{slug}/files/{path}/{name}).
	maxDesignDepth = 1
)

// segmentPattern is one segment of a path under designs/.
var segmentPattern = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$`)

// Purpose is the files capability's purpose of the app slug's files: its folder.
func Purpose(slug string) string { return file.AppsPurposePrefix + slug + "/" }

// ValidatePath checks a path in an app's folder: manifest.json, index.html, scripts/<name>.ts (a
// script name), data/<key>.json (a plain appKV key), or designs/<name> (letters, digits, '.', '_' and
// '-', not starting with '.'). Errors name param.
func ValidatePath(param, p string) error {
	switch {
	case p == ManifestPath || p == IndexPath:
		return nil
	case strings.HasPrefix(p, scriptsDir):
		name, ok := strings.CutSuffix(strings.TrimPrefix(p, scriptsDir), ".ts")
		if !ok || ValidateScriptName(param, name) != nil {
			return svcerr.Invalid(param, "%s %q: a script is scripts/<name>.ts, the name 1 to 64 letters, digits, '_' or '-'", param, p)
		}
		return nil
	case strings.HasPrefix(p, dataDir):
		key, ok := strings.CutSuffix(strings.TrimPrefix(p, dataDir), ".json")
		if !ok || ValidateKey(param, key) != nil || IsRecordKey(key) {
			return svcerr.Invalid(param, "%s %q: a data file is data/<key>.json, the key a plain appKV key", param, p)
		}
		return nil
	case strings.HasPrefix(p, designsDir):
		return validateDesign(param, p)
	}
	return svcerr.Invalid(param, "%s %q is not a file of an app folder: manifest.json, index.html, scripts/<name>.ts, data/<key>.json or designs/…", param, p)
}

func validateDesign(param, p string) error {
	segs := strings.Split(strings.TrimPrefix(p, designsDir), "/")
	if len(segs) > maxDesignDepth || !utf8.ValidString(p) || len(p) > file.MaxNameLen {
		return svcerr.Invalid(param, "%s %q: a design's path has at most %d segments and %d bytes", param, p, maxDesignDepth, file.MaxNameLen)
	}
	for _, s := range segs {
		if !segmentPattern.MatchString(s) || strings.Contains(s, "..") {
			return svcerr.Invalid(param, "%s %q: each segment is letters, digits, '.', '_' or '-', not starting with '.'", param, p)
		}
	}
	return file.ValidateNameFor(file.AppsPurposePrefix, p)
}

// checkScript checks a script's source before it is stored: UTF-8 text of at most MaxScriptBytes, not
// empty, that the script engine compiles (its error names the script's line and column).
func checkScript(param, source string) error {
	switch {
	case strings.TrimSpace(source) == "":
		return svcerr.Invalid(param, "%s is empty: a script is top-level statements ending in return", param)
	case len(source) > MaxScriptBytes:
		return svcerr.Invalid(param, "%s has %d bytes, more than %d", param, len(source), MaxScriptBytes)
	case !utf8.ValidString(source):
		return svcerr.Invalid(param, "%s is not UTF-8 text", param)
	}
	if err := appscript.Check(appscript.Script{Name: strings.TrimSuffix(strings.TrimPrefix(param, "files["), "]"), Source: source}); err != nil {
		return svcerr.Invalid(param, "%s does not compile: %v", param, err)
	}
	return nil
}
