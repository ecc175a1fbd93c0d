package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// keyTransport adds an API key (and optional headers) to every request of an MCP client.
type keyTransport struct {
	key     string
	headers map[string]string
}

func (k keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if k.key != "" {
		r.Header.Set("Authorization", "Bearer "+k.key)
	}
	for name, v := range k.headers {
		r.Header.Set(name, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpConnect opens an MCP session to env's /mcp with key, through the official Go SDK's client.
func mcpConnect(t *testing.T, env *apptest.Env, key string, headers map[string]string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "svc-test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: env.URL + "/mcp", HTTPClient: &http.Client{Transport: keyTransport{key, headers}},
		DisableStandaloneSSE: true}
	s, err := c.Connect(context.Background(), tr, nil)
	if err == nil {
		t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

func mustConnect(t *testing.T, env *apptest.Env, key string) *mcp.ClientSession {
	t.Helper()
	s, err := mcpConnect(t, env, key, nil)
	require.NoError(t, err)
	return s
}

// toolNames lists the session's tools.
func toolNames(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	res, err := s.ListTools(context.Background(), nil)
	require.NoError(t, err)
	names := []string{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// callTool calls a tool and returns its result and structured content.
func callTool(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out))
	return res, out
}

// toolErrorCode is the platform error code of an isError tool result.
func toolErrorCode(t *testing.T, res *mcp.CallToolResult, content map[string]any) string {
	t.Helper()
	require.True(t, res.IsError, "expected an error result, got %v", content)
	return content["error"].(map[string]any)["code"].(string)
}

// TestMCPRequiresAKeyWithServicesRead: no key or a bad key is 401 before any MCP session; a key
// without services:read is refused 403 scope_missing.
func TestMCPRequiresAKeyWithServicesRead(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	post := func(key string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/mcp", Key: key, Body: initialize,
			Headers: map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}})
	}
	require.Equal(t, http.StatusUnauthorized, post("").Status)
	require.Equal(t, http.StatusUnauthorized, post("svc_sk_nope").Status)
	runsOnly := acme.childKey(t, env, "runs-only", map[string]any{"scopes": []string{"runs:read"}})
	refused := post(runsOnly)
	require.Equal(t, http.StatusForbidden, refused.Status, "%s", refused.Raw)
	require.Equal(t, client.CodeScopeMissing, refused.ErrorCode())
	_, err := mcpConnect(t, env, runsOnly, nil)
	require.Error(t, err)
	ok := post(acme.secret)
	require.Equal(t, http.StatusOK, ok.Status, "%s", ok.Raw)
	require.Contains(t, string(ok.Raw), `"serverInfo"`)
}

// TestMCPSessionsCountAgainstActionsList: with an actions.list limit of 2 a minute, two sessions open
// (and list and call tools freely) and the third is refused with limit_exceeded.
func TestMCPSessionsCountAgainstActionsList(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	key := acme.childKey(t, env, "limited", map[string]any{"limits": []map[string]any{{"operation": "actions.list", "requestsPerMinute": 2}}})
	for range 2 {
		s := mustConnect(t, env, key)
		require.Contains(t, toolNames(t, s), "list_services")
		res, _ := callTool(t, s, "list_services", nil)
		require.False(t, res.IsError)
	}
	_, err := mcpConnect(t, env, key, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "Too Many Requests")
}

// TestMCPCreateRunReplaysItsIdempotencyKey: create_run with the same idempotencyKey answers the same run;
// a different key starts another.
func TestMCPCreateRunReplaysItsIdempotencyKey(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	s := mustConnect(t, env, acme.secret)
	args := map[string]any{"serviceId": client.ServiceManagedWorkflows, "operationId": client.OperationEcho,
		"input": map[string]any{"hello": "mcp"}, "idempotencyKey": "mcp-replay-1"}
	_, first := callTool(t, s, "create_run", args)
	_, again := callTool(t, mustConnect(t, env, acme.secret), "create_run", args)
	id := first["run"].(map[string]any)["id"].(string)
	require.True(t, strings.HasPrefix(id, "run_"))
	require.Equal(t, id, again["run"].(map[string]any)["id"])
	args["idempotencyKey"] = "mcp-replay-2"
	_, other := callTool(t, s, "create_run", args)
	require.NotEqual(t, id, other["run"].(map[string]any)["id"])

	res, done := callTool(t, s, "get_run", map[string]any{"runId": id, "waitSeconds": 30})
	require.False(t, res.IsError, "%v", done)
	require.Equal(t, client.RunSucceeded, done["run"].(map[string]any)["status"])
	require.Equal(t, map[string]any{"hello": "mcp"}, done["run"].(map[string]any)["output"])
}

// TestMCPOtherAccountsRunIsNotFound: get_run of another account's run is a not_found tool error, not a
// protocol failure.
func TestMCPOtherAccountsRunIsNotFound(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme, globex := newRunsAccount(t, env), newRunsAccount(t, env)
	_, created := callTool(t, mustConnect(t, env, acme.secret), "create_run",
		map[string]any{"serviceId": client.ServiceManagedWorkflows, "operationId": client.OperationEcho})
	id := created["run"].(map[string]any)["id"].(string)
	res, content := callTool(t, mustConnect(t, env, globex.secret), "get_run", map[string]any{"runId": id})
	require.Equal(t, client.CodeNotFound, toolErrorCode(t, res, content))
	res, content = callTool(t, mustConnect(t, env, acme.secret), "get_run", map[string]any{"runId": id})
	require.False(t, res.IsError, "%v", content)
}

// TestMCPToolsFollowTheKeysGrants: a scope-limited key sees fewer tools, and an action tool only for
// services it may use.
func TestMCPToolsFollowTheKeysGrants(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	all := toolNames(t, mustConnect(t, env, acme.secret))
	for _, name := range []string{"list_services", "get_balance", "create_run", "get_run", "cancel_run", "list_approvals",
		"decide_approval", "list_artifacts", "read_artifact", "managed-workflows__echo"} {
		require.Contains(t, all, name)
	}
	reader := acme.childKey(t, env, "reader", map[string]any{"scopes": []string{"services:read", "runs:read"},
		"services": []string{client.ServiceManagedWallets}})
	few := toolNames(t, mustConnect(t, env, reader))
	require.ElementsMatch(t, []string{"list_services", "get_run"}, few)
	require.Less(t, len(few), len(all))
	refused, content := callTool(t, mustConnect(t, env, reader), "create_run",
		map[string]any{"serviceId": client.ServiceManagedWorkflows, "operationId": client.OperationEcho})
	require.Equal(t, client.CodeScopeMissing, toolErrorCode(t, refused, content))
	require.False(t, slices.Contains(few, "managed-workflows__echo"))
}

// TestMCPGetRunWaitsWithProgress: get_run with waitSeconds follows a one-second sleep run to its end,
// sending progress notifications on the call's progress token while it waits; a waitSeconds beyond 30
// is an invalid_request tool error naming it.
func TestMCPGetRunWaitsWithProgress(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	var notes atomic.Int64
	c := mcp.NewClient(&mcp.Implementation{Name: "svc-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			if r.Params.ProgressToken == "wait-1" {
				notes.Add(1)
			}
		}})
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: env.URL + "/mcp",
		HTTPClient: &http.Client{Transport: keyTransport{key: acme.secret}}, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	defer s.Close()
	_, created := callTool(t, s, "create_run", map[string]any{"serviceId": client.ServiceManagedWorkflows,
		"operationId": client.OperationSleep, "input": map[string]any{"seconds": 1.5}})
	id := created["run"].(map[string]any)["id"].(string)
	params := &mcp.CallToolParams{Name: "get_run", Arguments: map[string]any{"runId": id, "waitSeconds": 30}}
	params.SetProgressToken("wait-1")
	res, err := s.CallTool(context.Background(), params)
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Equal(t, client.RunSucceeded, res.StructuredContent.(map[string]any)["run"].(map[string]any)["status"])
	require.Positive(t, notes.Load(), "progress notifications while waiting")

	bad, content := callTool(t, s, "get_run", map[string]any{"runId": id, "waitSeconds": 31})
	require.Equal(t, client.CodeInvalidRequest, toolErrorCode(t, bad, content))
	require.Equal(t, "waitSeconds", content["error"].(map[string]any)["param"])
}

// mcpServerGoroutines counts the goroutines running the MCP SDK's JSON-RPC connections, server sessions
// and transports (about four per open server session; a test's own client holds one or two).
func mcpServerGoroutines() int {
	buf := make([]byte, 64<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "go-sdk/internal/jsonrpc2.") || strings.Contains(g, "go-sdk/mcp.(*ServerSession)") || strings.Contains(g, "go-sdk/mcp.(*StreamableServerTransport)") ||
			strings.Contains(g, "go-sdk/mcp.(*streamableServerConn)") {
			n++
		}
	}
	return n
}

// TestMCPSessionsDoNotLeak opens 10,000 sessions (initialize, stateless): afterwards no session, server
// connection or transport goroutine is left.
func TestMCPSessionsDoNotLeak(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	const sessions, workers = 10_000, 8
	initialize := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	var failed atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < sessions; i += workers {
				req, _ := http.NewRequest(http.MethodPost, env.URL+"/mcp", bytes.NewReader(initialize))
				req.Header.Set("Authorization", "Bearer "+acme.secret)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := hc.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	require.Zero(t, failed.Load(), "every initialize answered 200")
	// Other tests' sessions may be in flight at the same time: a leak would leave thousands.
	require.Eventually(t, func() bool { return mcpServerGoroutines() < 40 }, 10*time.Second, 50*time.Millisecond,
		"MCP server goroutines left: %d", mcpServerGoroutines())
}

// TestMCPInOpenAPI: the document lists POST /mcp with its scope, limit operation, JSON-RPC body and
// both answer forms; GET and DELETE are not offered.
func TestMCPInOpenAPI(t *testing.T) {
	t.Parallel()
	doc := fetchJSON(t, newBareServer(t).Handler(), "/openapi.json")
	item := doc["paths"].(map[string]any)["/mcp"].(map[string]any)
	require.NotContains(t, item, "get")
	require.NotContains(t, item, "delete")
	op := item["post"].(map[string]any)
	require.Equal(t, client.ScopeServicesRead, op["x-svc-scope"])
	require.Equal(t, client.OpActionsList, op["x-svc-limit-operation"])
	require.Contains(t, op["requestBody"].(map[string]any)["content"], "application/json")
	ok := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)
	require.Contains(t, ok, "text/event-stream")
	require.Contains(t, ok, "application/json")
}

// TestMCPProjectAndAPIKeyHeader: X-Svc-Project selects the project of the session's tool calls (an
// unknown one is 404 before any session), and the key may come in X-API-Key as in REST.
func TestMCPProjectAndAPIKeyHeader(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	proj := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/projects", Key: acme.secret,
		Body: map[string]any{"name": "agents"}, Headers: map[string]string{"Idempotency-Key": "proj"}})
	require.Equal(t, http.StatusCreated, proj.Status, "%s", proj.Raw)
	projectID := proj.Body["project"].(map[string]any)["id"].(string)

	_, err := mcpConnect(t, env, acme.secret, map[string]string{"X-Svc-Project": "proj_nope"})
	require.ErrorContains(t, err, "Not Found")

	s, err := mcpConnect(t, env, "", map[string]string{"X-API-Key": acme.secret, "X-Svc-Project": projectID})
	require.NoError(t, err)
	_, created := callTool(t, s, "create_run", map[string]any{"serviceId": client.ServiceManagedWorkflows, "operationId": client.OperationEcho})
	id := created["run"].(map[string]any)["id"].(string)
	inProject, _ := listRunIDs(t, env, acme.secret, "", map[string]string{"X-Svc-Project": projectID})
	require.Equal(t, []string{id}, inProject)
}

// TestMCPApprovalsAndArtifacts: a run that needs approval is approved through decide_approval by a
// second key, followed with get_run, and its output artifact is listed and read as text.
func TestMCPApprovalsAndArtifacts(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	approver := acme.childKey(t, env, "approver", map[string]any{"scopes": []string{"services:read", "approvals:read", "approvals:write", "runs:read"}})
	s, a := mustConnect(t, env, acme.secret), mustConnect(t, env, approver)
	_, created := callTool(t, s, "create_run", map[string]any{"serviceId": client.ServiceManagedWorkflows,
		"operationId": client.OperationEcho, "input": map[string]any{"note": "approved"}, "requireApproval": true})
	run := created["run"].(map[string]any)
	require.Equal(t, "awaiting_approval", run["status"])
	approvalID := run["approvalId"].(string)

	_, pending := callTool(t, a, "list_approvals", map[string]any{"status": "pending", "runId": run["id"]})
	require.Len(t, pending["approvals"], 1)
	res, decided := callTool(t, a, "decide_approval", map[string]any{"approvalId": approvalID, "decision": "approve", "comment": "ok"})
	require.False(t, res.IsError, "%v", decided)
	res, again := callTool(t, a, "decide_approval", map[string]any{"approvalId": approvalID, "decision": "maybe"})
	require.Equal(t, client.CodeInvalidRequest, toolErrorCode(t, res, again))

	_, done := callTool(t, s, "get_run", map[string]any{"runId": run["id"], "waitSeconds": 30})
	require.Equal(t, client.RunSucceeded, done["run"].(map[string]any)["status"])
	_, listed := callTool(t, s, "list_artifacts", map[string]any{"runId": run["id"]})
	artifacts := listed["artifacts"].([]any)
	require.NotEmpty(t, artifacts)
	artifactID := artifacts[0].(map[string]any)["id"].(string)
	read, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_artifact", Arguments: map[string]any{"artifactId": artifactID}})
	require.NoError(t, err)
	require.False(t, read.IsError)
	require.Contains(t, read.Content[0].(*mcp.TextContent).Text, `"approved"`)
}

// TestMCPAnyProcessAnswers: the transport is stateless, so a client whose initialize went to one API
// process can call tools on another (no session id to be sticky to).
func TestMCPAnyProcessAnswers(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	second := env.SecondAPI(t)
	_, created := callTool(t, mustConnect(t, env, acme.secret), "create_run",
		map[string]any{"serviceId": client.ServiceManagedWorkflows, "operationId": client.OperationEcho})
	id := created["run"].(map[string]any)["id"].(string)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_run","arguments":{"runId":"` + id + `"}}}`
	resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/mcp", Key: acme.secret, Body: call, BaseURL: second,
		Headers: map[string]string{"Accept": "application/json, text/event-stream"}})
	require.Equal(t, http.StatusOK, resp.Status, "%s", resp.Raw)
	require.Empty(t, resp.Header.Get("Mcp-Session-Id"))
	require.Contains(t, string(resp.Raw), id)
	require.NotContains(t, string(resp.Raw), `"isError":true`)
}

// TestMCPEscapesPathArguments: an id holding a slash is refused naming the argument, one with a percent
// sign or a question mark stays one path parameter (not found); neither reaches another route.
func TestMCPEscapesPathArguments(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	s := mustConnect(t, env, acme.secret)
	for _, id := range []string{"run_%2F..", "run_x?status=queued", "run_x#y"} {
		res, content := callTool(t, s, "get_run", map[string]any{"runId": id})
		require.Equal(t, client.CodeNotFound, toolErrorCode(t, res, content), id)
	}
	for _, id := range []string{"run_x/cancel", "../services"} {
		res, content := callTool(t, s, "cancel_run", map[string]any{"runId": id})
		require.Equal(t, client.CodeInvalidRequest, toolErrorCode(t, res, content), id)
		require.Equal(t, "runId", content["error"].(map[string]any)["param"])
	}
	res, content := callTool(t, s, "get_run", map[string]any{})
	require.Equal(t, client.CodeInvalidRequest, toolErrorCode(t, res, content))
	require.Equal(t, "runId", content["error"].(map[string]any)["param"])
}

// TestMCPToolCallsAreRESTRequests: a tool call is limited and audited as the REST request it stands for:
// runs.create=1/min lets one create_run through and answers the second limit_exceeded (as a tool
// error), and the audit trail holds runs.create events for POST /v1/runs.
func TestMCPToolCallsAreRESTRequests(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	key := acme.childKey(t, env, "one-run", map[string]any{"limits": []map[string]any{{"operation": "runs.create", "requestsPerMinute": 1}}})
	s := mustConnect(t, env, key)
	args := map[string]any{"serviceId": client.ServiceManagedWorkflows, "operationId": client.OperationEcho}
	first, content := callTool(t, s, "create_run", args)
	require.False(t, first.IsError, "%v", content)
	second, content := callTool(t, s, "create_run", args)
	require.Equal(t, client.CodeLimitExceeded, toolErrorCode(t, second, content))
	require.EqualValues(t, http.StatusTooManyRequests, content["status"])

	audit := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/audit-events?operation=runs.create", Key: acme.secret})
	require.Equal(t, http.StatusOK, audit.Status, "%s", audit.Raw)
	events := audit.Body["auditEvents"].([]any)
	require.Len(t, events, 2)
	statuses := []float64{}
	for _, e := range events {
		require.Equal(t, "/v1/runs", e.(map[string]any)["path"])
		statuses = append(statuses, e.(map[string]any)["status"].(float64))
	}
	require.ElementsMatch(t, []float64{http.StatusCreated, http.StatusTooManyRequests}, statuses)
}
