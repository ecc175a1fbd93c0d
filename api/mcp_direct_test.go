package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// toolText is the text content of a tool result.
func toolText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "%T", res.Content[0])
	return text.Text
}

// restAsTool is the tool result text the REST answer raw becomes (the envelope, with the run's Temporal
// UI link when the tool added one): what get_run answered when it sent GET /v1/runs/{id} through the
// engine.
func restAsTool(t *testing.T, raw []byte, link any) string {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v))
	if link != nil {
		v["temporalUiUrl"] = link
	}
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

// TestMCPGetRunAnswersAsREST: get_run, answered in process without a second pass through the engine,
// answers what GET /v1/runs/{id} answers with the same key (byte for byte), refuses what it refuses
// (another account's run, a key without runs:read, an unknown run, a spent limit)
// with the same status, code and message, and leaves the same audit event.
func TestMCPGetRunAnswersAsREST(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme, globex := newRunsAccount(t, env), newRunsAccount(t, env)
	s := mustConnect(t, env, acme.secret)
	_, created := callTool(t, s, "create_run", map[string]any{"serviceId": client.ServiceManagedWorkflows, "operationId": client.OperationEcho})
	id := created["run"].(map[string]any)["id"].(string)
	res, content := callTool(t, s, "get_run", map[string]any{"runId": id, "waitSeconds": 30})
	require.False(t, res.IsError, "%v", content)
	require.Equal(t, "succeeded", content["run"].(map[string]any)["status"], "%v", content)

	// The same bytes as REST's answer.
	rest := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + id, Key: acme.secret})
	require.Equal(t, http.StatusOK, rest.Status, "%s", rest.Raw)
	res, content = callTool(t, s, "get_run", map[string]any{"runId": id})
	require.False(t, res.IsError, "%v", content)
	if link := content["temporalUiUrl"]; link != nil {
		require.True(t, strings.HasSuffix(link.(string), "/workflows/"+url.PathEscape("run/"+id)), "%v", link)
	}
	require.Equal(t, restAsTool(t, rest.Raw, content["temporalUiUrl"]), toolText(t, res))

	// Refusals: the same status, code and message as REST's.
	refusals := []struct {
		name, key, runID string
	}{
		{"another account's run", globex.secret, id},
		{"a key without runs:read", acme.childKey(t, env, "no-runs-read", map[string]any{"scopes": []string{"services:read"}}), id},
		{"an unknown run", acme.secret, "run_missing"},
	}
	for _, c := range refusals {
		rest := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + c.runID, Key: c.key})
		require.NotEqual(t, http.StatusOK, rest.Status, c.name)
		res, content := callTool(t, mustConnect(t, env, c.key), "get_run", map[string]any{"runId": c.runID})
		require.True(t, res.IsError, "%s: %v", c.name, content)
		restErr, toolErr := rest.Body["error"].(map[string]any), content["error"].(map[string]any)
		require.EqualValues(t, rest.Status, content["status"], c.name)
		require.Equal(t, restErr["code"], toolErr["code"], c.name)
		require.Equal(t, restErr["message"], toolErr["message"], c.name)
		require.Equal(t, restErr["details"], toolErr["details"], c.name)
		require.True(t, strings.HasPrefix(toolErr["requestId"].(string), "req_"), "%s: %v", c.name, toolErr)
	}

	// Limits: a key allowed one read a minute reads once, then is refused as REST refuses it.
	once := acme.childKey(t, env, "one-read", map[string]any{"limits": []map[string]any{{"operation": client.OpRunsRead, "requestsPerMinute": 1}}})
	os := mustConnect(t, env, once)
	res, content = callTool(t, os, "get_run", map[string]any{"runId": id})
	require.False(t, res.IsError, "%v", content)
	res, content = callTool(t, os, "get_run", map[string]any{"runId": id})
	require.Equal(t, client.CodeLimitExceeded, toolErrorCode(t, res, content))
	require.EqualValues(t, http.StatusTooManyRequests, content["status"])
	rest = env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + id, Key: once})
	require.Equal(t, http.StatusTooManyRequests, rest.Status, "%s", rest.Raw)

	// Audit: each get_run left one event like REST's (operation, path, status, client address), under
	// its own request id.
	require.Eventually(t, func() bool {
		audit := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/audit-events?operation=" + client.OpRunsRead + "&limit=200", Key: acme.secret})
		require.Equal(t, http.StatusOK, audit.Status, "%s", audit.Raw)
		var ok, limited, notFound int
		seen, addresses := map[string]bool{}, map[any]bool{}
		for _, e := range audit.Body["auditEvents"].([]any) {
			ev := e.(map[string]any)
			seen[ev["requestId"].(string)] = true
			addresses[ev["clientIp"]] = true
			switch {
			case ev["path"] == "/v1/runs/"+id && ev["status"] == float64(http.StatusOK):
				ok++
			case ev["path"] == "/v1/runs/"+id && ev["status"] == float64(http.StatusTooManyRequests):
				limited++
			case ev["path"] == "/v1/runs/run_missing" && ev["status"] == float64(http.StatusNotFound):
				notFound++
			}
		}
		// get_run: the wait, the read and the limited key's first; REST: the read. Refused: one of each
		// for the limited key; the unknown run once over REST and once over MCP.
		return ok == 4 && limited == 2 && notFound == 2 && len(seen) == len(audit.Body["auditEvents"].([]any)) && len(addresses) == 1
	}, 10*time.Second, 20*time.Millisecond)
}
