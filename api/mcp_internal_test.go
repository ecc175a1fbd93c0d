package api

import (
	"testing"

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
