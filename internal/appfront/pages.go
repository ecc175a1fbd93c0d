package appfront

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // the host page and the SDK are compiled in
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
)

var (
	//go:embed assets/host.html
	hostHTML string
	//go:embed assets/host.js
	hostJS string
	//go:embed assets/sdk.js
	sdkJS string
)

var hostTemplate = template.Must(template.New("host").Parse(hostHTML))

// FrameCSP is the app frame's Content-Security-Policy: nothing may be fetched (no connect, script,
// style, font, frame or image URL, not even this host's), inline scripts and styles run, images, fonts
// and media come only from data: URLs, forms post nowhere, and only this host may frame it. The sandbox
// directive keeps the frame sandboxed (scripts only, an opaque origin) even when opened on its own.
const FrameCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; " +
	"media-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox allow-scripts"

// hostCSP is the host page's policy: its one inline script (by hash), calls to this host only, and a
// frame on this host only (frame-src also applies when the app's frame navigates itself).
var hostCSP = "default-src 'none'; script-src '" + scriptHash(hostJS) + "'; style-src 'unsafe-inline'; connect-src 'self'; " +
	"frame-src 'self'; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

// HostCSP is the host page's Content-Security-Policy.
func HostCSP() string { return hostCSP }

func scriptHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// hostConfig is what the host page's script reads from its body's data-config.
type hostConfig struct {
	Base    string            `json:"base"`
	Frame   string            `json:"frame"`
	Title   string            `json:"title"`
	Methods map[string]Method `json:"methods"`
}

// Base is the path of the app owner/slug's host page; its frame and viewer API are below it.
func Base(owner, slug string) string { return "/apps/" + owner + "/" + slug + "/" }

// HostPage renders the host page of app (owned by owner): the sandboxed iframe, its allowlist and script.
func HostPage(owner string, app *App) ([]byte, error) {
	title := app.Title
	if title == "" {
		title = app.Slug
	}
	cfg, err := json.Marshal(hostConfig{Base: Base(owner, app.Slug), Frame: Base(owner, app.Slug) + "frame", Title: title, Methods: Methods})
	if err != nil {
		return nil, fmt.Errorf("host page config of app %s: %w", app.Slug, err)
	}
	var buf bytes.Buffer
	err = hostTemplate.Execute(&buf, map[string]any{"Title": title, "Config": string(cfg), "Script": template.JS(hostJS)}) // #nosec G203 -- the embedded host script, not input
	if err != nil {
		return nil, fmt.Errorf("render the host page of app %s: %w", app.Slug, err)
	}
	return buf.Bytes(), nil
}

// headOpen and doctype find where the SDK goes: after <head …>, else after <!doctype …>, else first.
var (
	headOpen = regexp.MustCompile(`(?i)<head(\s[^>]*)?>`)
	htmlOpen = regexp.MustCompile(`(?i)<html(\s[^>]*)?>`)
	doctype  = regexp.MustCompile(`(?i)^\s*<!doctype[^>]*>`)
)

// Frame answers the app's index.html with the SDK injected as its first script.
func Frame(index []byte) []byte {
	tag := []byte("<script>" + sdkJS + "</script>")
	for _, re := range []*regexp.Regexp{headOpen, htmlOpen, doctype} {
		if loc := re.FindIndex(index); loc != nil {
			out := make([]byte, 0, len(index)+len(tag))
			out = append(out, index[:loc[1]]...)
			out = append(out, tag...)
			return append(out, index[loc[1]:]...)
		}
	}
	return append(tag, index...)
}
