package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/svcplatform/svc/client"
)

// version is the CLI's build, set with -ldflags "-X main.version=..." (make build sets git describe);
// "dev" in a plain go build.
var version = "dev"

// envReleaseURL names a JSON document {version, url, notes?} describing the latest CLI release.
const envReleaseURL = "SVC_RELEASE_URL"

// updateHelp is the help of "svc update".
const updateHelp = `Usage: svc update --check

Compares this CLI's version (its build, set by make build; "dev" for a plain go build) with the version
the server reports in GET /health and, only when ` + envReleaseURL + ` is set, with the release described
by the JSON document at that URL ({"version", "url", "notes"?}; nothing else is fetched otherwise). It
prints "up to date" or what to do: rebuild with make build from the server's revision, or fetch the
release from its URL. It never downloads or replaces anything itself.

Exit 0 when up to date and also when it advises an update (the advice is on stdout; --json has
"upToDate"); 1 when the server or the release URL cannot be read; 2 without --check.

  --check   compare the versions (required)

` + globalFlagsHelp

// updateCommands are the commands of "svc update".
func updateCommands() []command {
	return []command{
		{name: "update", run: (*app).update, help: updateHelp,
			brief: "--check: compare this CLI's version with the server's (and a release URL); never downloads"},
	}
}

// release is the document at SVC_RELEASE_URL.
type release struct {
	Version string `json:"version"`
	URL     string `json:"url"`
	Notes   string `json:"notes,omitempty"`
}

// update runs "svc update --check".
func (a *app) update(args []string) int {
	var check bool
	fs := a.commandFlags("update", nil)
	fs.BoolVar(&check, "check", false, "compare the versions")
	if code, ok := a.parseNone("update", fs, args); !ok {
		return code
	}
	if !check {
		fmt.Fprintln(a.stderr, "error: svc update only checks: pass --check")
		a.printUsage(a.stderr, "update")
		return exitUsage
	}
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	health := a.newClient(settings{baseURL: s.baseURL}).Health(a.ctx)
	if health.Body.Version == "" {
		if !health.OK {
			return apiFailure(a, health)
		}
		return a.localError(client.CodeInvalidResponse, "the server's /health reports no version")
	}
	var rel *release
	if u := strings.TrimSpace(a.getenv(envReleaseURL)); u != "" {
		if rel, err = a.fetchRelease(u); err != nil {
			return a.localError("release_unreadable", fmt.Sprintf("%s (%s): %v", envReleaseURL, u, err))
		}
	}
	return a.showUpdate(health.Body.Version, rel)
}

// fetchRelease reads and strictly decodes the release document.
func (a *app) fetchRelease(u string) (*release, error) {
	req, err := http.NewRequestWithContext(a.ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("build the request: %w", err)
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := (&http.Client{Timeout: requestTimeout}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("answered HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var r release
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a release document {version, url, notes?}: %w", err)
	}
	if strings.TrimSpace(r.Version) == "" || strings.TrimSpace(r.URL) == "" {
		return nil, errors.New("the release document needs version and url")
	}
	return &r, nil
}

// showUpdate prints the comparison and the advice.
func (a *app) showUpdate(server string, rel *release) int {
	var advice []string
	if version != server {
		advice = append(advice, fmt.Sprintf("the server runs %s and this CLI is %s: rebuild the CLI with make build "+
			"from the server's revision (%s)", server, version, server))
	}
	if rel != nil && rel.Version != version {
		advice = append(advice, fmt.Sprintf("release %s is published: get it from %s", rel.Version, rel.URL))
	}
	if a.g.json {
		out := map[string]any{"ok": true, "cliVersion": version, "serverVersion": server, "upToDate": len(advice) == 0,
			"advice": advice}
		if rel != nil {
			out["release"] = rel
		}
		a.printJSON(out)
		return exitOK
	}
	tw := a.table()
	fmt.Fprintf(tw, "CLI version:\t%s\n", version)
	fmt.Fprintf(tw, "Server version:\t%s\n", server)
	if rel != nil {
		fmt.Fprintf(tw, "Release:\t%s\t%s\n", rel.Version, rel.URL)
	}
	_ = tw.Flush()
	if len(advice) == 0 {
		fmt.Fprintln(a.stdout, "The CLI is up to date.")
		return exitOK
	}
	fmt.Fprintln(a.stdout, "An update is advised:")
	for _, line := range advice {
		fmt.Fprintf(a.stdout, "  - %s\n", line)
	}
	if rel != nil && rel.Notes != "" {
		fmt.Fprintf(a.stdout, "Release notes: %s\n", rel.Notes)
	}
	return exitOK
}
