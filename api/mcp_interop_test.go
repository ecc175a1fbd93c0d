package api_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/testnode"
)

// mcpNodePackages is the official TypeScript MCP SDK, pinned.
var mcpNodePackages = []string{"@modelcontextprotocol/sdk@1.32.2"}

// mcpInteropResult is what testdata/mcp_client.mjs prints.
type mcpInteropResult struct {
	Tools    []string       `json:"tools"`
	RunID    string         `json:"runId"`
	Status   string         `json:"status"`
	Output   map[string]any `json:"output"`
	Progress int            `json:"progress"`
	Action   struct {
		IsError bool           `json:"isError"`
		Content map[string]any `json:"content"`
	} `json:"action"`
	Missing struct {
		IsError bool   `json:"isError"`
		Code    string `json:"code"`
	} `json:"missing"`
	LimitedTools []string `json:"limitedTools"`
}

// TestMCPInteropTypeScriptClient: the official TypeScript client (StreamableHTTPClientTransport)
// connects with a key, lists the tools, runs echo through create_run and get_run until it succeeds,
// invokes the example service's action tool (charged like REST), gets a not_found tool error for an
// unknown run, and sees a scope-limited key's smaller tool list. Without node it fails with install
// instructions.
func TestMCPInteropTypeScriptClient(t *testing.T) {
	t.Parallel()
	testnode.Require(t, "this test drives /mcp with the official TypeScript MCP client")
	dir := t.TempDir()
	require.NoError(t, testnode.CopyFile(filepath.Join(dir, "mcp_client.mjs"), filepath.Join("testdata", "mcp_client.mjs")))
	installed, done := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(done)
		_, err := testnode.Install(t.Context(), dir, mcpNodePackages...)
		installed <- err
	}()
	t.Cleanup(func() { <-done })

	up, calls := generationUpstream(t)
	env := gatewayEnv(t, up.URL)
	key := fundedKey(t, env, 10)
	createConnection(t, env, key)
	acme := runsAccount{secret: key}
	limited := acme.childKey(t, env, "mcp-limited", map[string]any{"scopes": []string{"services:read", "runs:read"}})
	require.NoError(t, <-installed, "npm install %v", mcpNodePackages)

	out := testnode.Run(t, dir, "mcp_client.mjs", "SVC_MCP_URL="+env.URL+"/mcp", "SVC_KEY="+key,
		"SVC_LIMITED_KEY="+limited, "ACTION_TOOL=imagegen__generate")
	var res mcpInteropResult
	require.NoError(t, json.Unmarshal(out, &res), "%s", out)

	require.Subset(t, res.Tools, []string{"list_services", "get_balance", "create_run", "get_run", "cancel_run",
		"list_approvals", "decide_approval", "list_artifacts", "read_artifact", "managed-workflows__echo", "imagegen__generate"})
	require.Equal(t, "succeeded", res.Status)
	require.Equal(t, map[string]any{"from": "typescript"}, res.Output)
	require.False(t, res.Action.IsError, "%v", res.Action.Content)
	require.EqualValues(t, 1, res.Action.Content["chargedCredits"])
	require.EqualValues(t, 1, calls.Load(), "the action tool reached the service once")
	require.True(t, res.Missing.IsError)
	require.Equal(t, "not_found", res.Missing.Code)
	require.ElementsMatch(t, []string{"list_services", "get_run"}, res.LimitedTools)
	require.Less(t, len(res.LimitedTools), len(res.Tools))
}
