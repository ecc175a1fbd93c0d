package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeVersions serves GET /health reporting server, and GET /release answering release.
func fakeVersions(t *testing.T, server, release string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health", "/v1/health":
			reply(w, 200, map[string]any{"ok": true, "status": "ok", "apiVersion": "v1", "version": server, "checks": map[string]any{}})
		case "/release":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(release))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestUpdateCheck: update --check compares the CLI's build with /health and, when SVC_RELEASE_URL is
// set, with the release it describes; it advises, exits 0 either way, and 1 when it cannot read them.
func TestUpdateCheck(t *testing.T) {
	t.Parallel()
	r := cli(t, testEnv(t, nil), "", "update")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "pass --check")
	require.Contains(t, r.stderr, "Usage: svc update --check")

	same := fakeVersions(t, version, "")
	env := testEnv(t, nil)
	env["SVC_BASE_URL"] = same.URL
	r = cli(t, env, "", "update", "--check")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "The CLI is up to date.")

	newer := fakeVersions(t, "v1.2.3", `{"version":"v2.0.0","url":"https://example.com/svc/v2","notes":"faster"}`)
	env["SVC_BASE_URL"] = newer.URL
	r = cli(t, env, "", "update", "--check")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `Server version:\s+v1.2.3`, r.stdout)
	require.Contains(t, r.stdout, "rebuild the CLI with make build")
	require.NotContains(t, r.stdout, "example.com", "the release URL is only read when set")

	env[envReleaseURL] = newer.URL + "/release"
	r = cli(t, env, "", "--json", "update", "--check")
	require.Equal(t, exitOK, r.code, r.stderr)
	var out struct {
		UpToDate bool     `json:"upToDate"`
		Advice   []string `json:"advice"`
		Release  release  `json:"release"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	require.False(t, out.UpToDate)
	require.Len(t, out.Advice, 2)
	require.Contains(t, out.Advice[1], "release v2.0.0 is published: get it from https://example.com/svc/v2")
	require.Equal(t, "faster", out.Release.Notes)

	bad := fakeVersions(t, version, `{"version":"v2","url":"u","extra":1}`)
	env["SVC_BASE_URL"], env[envReleaseURL] = bad.URL, bad.URL+"/release"
	r = cli(t, env, "", "update", "--check")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, `unknown field "extra"`)

	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	env = testEnv(t, nil)
	env["SVC_BASE_URL"] = down.URL
	r = cli(t, env, "", "update", "--check")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "transport_error")
}
