package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMCPConfig: svc mcp config prints an mcpServers entry for <host>/mcp whose Authorization names
// the key's environment variable, never the secret, and sends the project when one is set.
func TestMCPConfig(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	env["SVC_BASE_URL"] = "https://api.example.test/v1/"
	env["SVC_API_KEY"] = "svc_sk_secret_never_printed"
	env["SVC_PROJECT"] = "proj_1"
	r := cli(t, env, "", "mcp", "config", "--name", "platform")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NotContains(t, r.stdout+r.stderr, "svc_sk_secret_never_printed")
	var doc map[string]map[string]map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
	server := doc["mcpServers"]["platform"]
	require.Equal(t, "https://api.example.test/mcp", server["url"])
	require.Equal(t, "http", server["type"])
	require.Equal(t, map[string]any{"Authorization": "Bearer ${SVC_API_KEY}", "X-Svc-Project": "proj_1"}, server["headers"])

	other := cli(t, testEnv(t, nil), "", "mcp", "config", "--key-env", "AGENT_SVC_KEY")
	require.Equal(t, exitOK, other.code, other.stderr)
	require.Contains(t, other.stdout, `"Bearer ${AGENT_SVC_KEY}"`)
	require.Contains(t, other.stdout, `"http://127.0.0.1:8080/mcp"`)
	require.Contains(t, other.stderr, "AGENT_SVC_KEY is not set")

	bad := cli(t, testEnv(t, nil), "", "mcp", "config", "--key-env", "NOT-A-VAR")
	require.Equal(t, exitUsage, bad.code)
}
