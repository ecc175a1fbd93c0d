package api

import (
	"net/http"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"
)

// TestMCPRunLink: a run answer gains the Temporal UI link of its workflow run/<id> when the UI is known,
// and nothing otherwise.
func TestMCPRunLink(t *testing.T) {
	t.Parallel()
	answer := map[string]any{"ok": true, "run": map[string]any{"id": "run_abc"}}
	(&mcpTools{temporalUI: "http://127.0.0.1:8233/namespaces/default/"}).linkRun(answer)
	require.Equal(t, "http://127.0.0.1:8233/namespaces/default/workflows/run%2Frun_abc", answer["temporalUiUrl"])
	bare := map[string]any{"ok": true, "run": map[string]any{"id": "run_abc"}}
	(&mcpTools{}).linkRun(bare)
	require.NotContains(t, bare, "temporalUiUrl")
	other := map[string]any{"ok": true, "services": []any{}}
	(&mcpTools{temporalUI: "http://ui"}).linkRun(other)
	require.NotContains(t, other, "temporalUiUrl")
}

// TestMCPDirectAllowed: only a GET route authenticated by key, whose middleware does nothing a direct
// read leaves out, may be answered directly, and only with all its path parameters.
func TestMCPDirectAllowed(t *testing.T) {
	t.Parallel()
	read := &directRead{params: []string{"runId"}}
	get := Route{Method: http.MethodGet, Path: "/v1/runs/{runId}", Auth: authKey}
	require.NoError(t, directAllowed(&get, read))
	require.Error(t, directAllowed(nil, read))
	for name, change := range map[string]func(r *Route){
		"POST":        func(r *Route) { r.Method = http.MethodPost },
		"no key":      func(r *Route) { r.Auth = authNone },
		"idempotent":  func(r *Route) { r.Idem = true },
		"qualified":   func(r *Route) { r.Qualified = true },
		"limit only":  func(r *Route) { r.LimitOnly = func(*gin.Context) bool { return true } },
		"deprecated":  func(r *Route) { r.Deprecated = &Deprecation{} },
		"partner":     func(r *Route) { r.Partner = true },
		"other param": func(r *Route) { r.Path = "/v1/runs/{runId}/artifacts/{artifactId}" },
	} {
		r := get
		change(&r)
		require.Error(t, directAllowed(&r, read), name)
	}
}
