package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/agentenv"
)

// accountOfRow answers the account id the query (one row, one column) finds.
func accountOfRow(t *testing.T, env *apptest.Env, query string, args ...any) string {
	t.Helper()
	var id string
	require.NoError(t, env.DB.NewRaw(query, args...).Scan(context.Background(), &id))
	return id
}

// TestAgentEnvVariables: set, replace, list (names only), delete; every naming rule refused with the
// rule named; the value is in no response, log line, idempotency or audit row, and Resolve gives it
// back; another account sees nothing; a key without managed-agents is 403; /agent/env and /v1/agent/env
// are the same variables.
func TestAgentEnvVariables(t *testing.T) {
	t.Parallel()
	var logs apptest.Buffer
	env := apptest.NewWith(t, apptest.Options{Log: &logs})
	key := env.FirstKey(t)
	do := func(k, method, path string, body any) *apptest.Response {
		return env.Do(t, apptest.Req{Method: method, Path: path, Key: k, Body: body})
	}
	const secret = "sk-live-never-shown-0123456789"
	const secret2 = "second-secret-value-zzz"

	var answers []*apptest.Response
	set := do(key, http.MethodPost, "/agent/env", map[string]any{"key": "OPENAI_API_KEY", "value": secret})
	require.Equal(t, http.StatusOK, set.Status, "%s", set.Raw)
	v := set.Body["env"].(map[string]any)
	require.True(t, strings.HasPrefix(v["id"].(string), "env_"), "%v", v)
	require.Equal(t, "OPENAI_API_KEY", v["key"])
	replaced := do(key, http.MethodPost, "/v1/agent/env", map[string]any{"key": "OPENAI_API_KEY", "value": secret2})
	require.Equal(t, http.StatusOK, replaced.Status, "%s", replaced.Raw)
	require.Equal(t, v["id"], replaced.Body["env"].(map[string]any)["id"], "replacing keeps the variable")
	browser := do(key, http.MethodPost, "/agent/env", map[string]any{"key": "BROWSER_CREDENTIAL_my-site_2_ALLOWED_ORIGINS",
		"value": "https://login.example.com, https://example.com:8443"})
	require.Equal(t, http.StatusOK, browser.Status, "%s", browser.Raw)
	list := do(key, http.MethodGet, "/agent/env", nil)
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	require.Len(t, list.Body["env"], 2)
	require.Equal(t, list.Raw, do(key, http.MethodGet, "/v1/agent/env", nil).Raw)
	answers = append(answers, set, replaced, browser, list)

	store := agentenv.NewStore(env.DB, env.Box, app.AgentURLGuard(true))
	acct := accountOfRow(t, env, "SELECT account_id FROM agent_env_vars WHERE name = ?", "OPENAI_API_KEY")
	got, err := store.Resolve(context.Background(), acct, []string{"OPENAI_API_KEY", "MISSING"})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"OPENAI_API_KEY": secret2}, got)

	// Every rule, named.
	refusals := []struct {
		key, value, rule, param string
	}{
		{"lower_case", "x", agentenv.RuleNamePattern, "key"},
		{"1STARTS_WITH_DIGIT", "x", agentenv.RuleNamePattern, "key"},
		{"HAS-HYPHEN", "x", agentenv.RuleNamePattern, "key"},
		{"", "x", agentenv.RuleNameLength, "key"},
		{strings.Repeat("A", agentenv.MaxNameLength+1), "x", agentenv.RuleNameLength, "key"},
		{"SVC_TOKEN", "x", agentenv.RuleReservedPrefix, "key"},
		{"AWS_SECRET_ACCESS_KEY", "x", agentenv.RuleReservedPrefix, "key"},
		{"GOOGLE_APPLICATION_CREDENTIALS", "x", agentenv.RuleReservedPrefix, "key"},
		{"GCP_PROJECT", "x", agentenv.RuleReservedPrefix, "key"},
		{"AZURE_CLIENT_SECRET", "x", agentenv.RuleReservedPrefix, "key"},
		{"ALIBABA_CLOUD_ACCESS_KEY_ID", "x", agentenv.RuleReservedPrefix, "key"},
		{"OCI_KEY", "x", agentenv.RuleReservedPrefix, "key"},
		{"IBM_CLOUD_API_KEY", "x", agentenv.RuleReservedPrefix, "key"},
		{"DO_TOKEN", "x", agentenv.RuleReservedPrefix, "key"},
		{"BROWSER_CREDENTIAL_SITE_TOKEN", "x", agentenv.RuleBrowserName, "key"},
		{"BROWSER_CREDENTIAL__PASSWORD", "x", agentenv.RuleBrowserName, "key"},
		{"BROWSER_CREDENTIAL_bad.site_PASSWORD", "x", agentenv.RuleBrowserName, "key"},
		{"BROWSER_CREDENTIAL_S_ALLOWED_ORIGINS", "https://example.com/login", agentenv.RuleBrowserOrigins, "value"},
		{"BROWSER_CREDENTIAL_S_ALLOWED_ORIGINS", "example.com", agentenv.RuleBrowserOrigins, "value"},
		{"BROWSER_CREDENTIAL_S_ALLOWED_ORIGINS", "https://*.example.com", agentenv.RuleBrowserOrigins, "value"},
		{"BROWSER_CREDENTIAL_S_ALLOWED_ORIGINS", "https://example.com?q=1", agentenv.RuleBrowserOrigins, "value"},
		{"BROWSER_CREDENTIAL_S_ALLOWED_ORIGINS", "https://example.com#f", agentenv.RuleBrowserOrigins, "value"},
		{"BROWSER_CREDENTIAL_S_ALLOWED_ORIGINS", "ftp://example.com", agentenv.RuleBrowserOrigins, "value"},
		{"BROWSER_CREDENTIAL_S_ALLOWED_ORIGINS", "https://a.example.com,", agentenv.RuleBrowserOrigins, "value"},
		{"FINE_NAME", "", agentenv.RuleValueEmpty, "value"},
		{"FINE_NAME", strings.Repeat("v", agentenv.MaxValueLength+1), agentenv.RuleValueLength, "value"},
	}
	for _, r := range refusals {
		resp := do(key, http.MethodPost, "/agent/env", map[string]any{"key": r.key, "value": r.value})
		require.Equal(t, http.StatusBadRequest, resp.Status, "%s: %s", r.key, resp.Raw)
		e := errorOf(resp)
		require.Equal(t, r.param, e["param"], "%s: %s", r.key, resp.Raw)
		require.Contains(t, e["message"], "rule "+r.rule, "%s: %s", r.key, resp.Raw)
		require.Equal(t, r.rule, e["details"].(map[string]any)["rule"], "%s", resp.Raw)
	}
	for _, ok := range []string{"BROWSER_CREDENTIAL_GITHUB_EMAIL", "BROWSER_CREDENTIAL_x_y-z_USERNAME", "BROWSER_CREDENTIAL_A_PASSWORD", "_PRIVATE", "MY_AWS_KEY"} {
		resp := do(key, http.MethodPost, "/agent/env", map[string]any{"key": ok, "value": "v"})
		require.Equal(t, http.StatusOK, resp.Status, "%s: %s", ok, resp.Raw)
	}

	// Another account: nothing to see or delete.
	other := env.FirstKey(t)
	require.Empty(t, do(other, http.MethodGet, "/agent/env", nil).Body["env"])
	gone := do(other, http.MethodDelete, "/agent/env/OPENAI_API_KEY", nil)
	require.Equal(t, http.StatusNotFound, gone.Status, "%s", gone.Raw)
	require.Contains(t, errorOf(gone)["message"], "OPENAI_API_KEY")

	// A key without managed-agents may not.
	narrow := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: key,
		Body: map[string]any{"services": []string{"managed-workflows"}}, Headers: map[string]string{"Idempotency-Key": "narrow"}})
	require.Equal(t, http.StatusCreated, narrow.Status, "%s", narrow.Raw)
	nk := narrow.Body["apiKey"].(map[string]any)["secret"].(string)
	require.Equal(t, http.StatusForbidden, do(nk, http.MethodGet, "/agent/env", nil).Status)
	require.Equal(t, http.StatusForbidden, do(nk, http.MethodPost, "/agent/env", map[string]any{"key": "X", "value": "y"}).Status)

	deleted := do(key, http.MethodDelete, "/agent/env/OPENAI_API_KEY", nil)
	require.Equal(t, http.StatusOK, deleted.Status, "%s", deleted.Raw)
	answers = append(answers, deleted)
	again := do(key, http.MethodDelete, "/v1/agent/env/OPENAI_API_KEY", nil)
	require.Equal(t, http.StatusNotFound, again.Status)
	require.Contains(t, errorOf(again)["message"], "OPENAI_API_KEY")

	for _, r := range answers {
		require.NotContains(t, string(r.Raw), secret)
		require.NotContains(t, string(r.Raw), secret2)
	}
	require.NotContains(t, logs.String(), secret)
	require.NotContains(t, logs.String(), secret2)
	for _, table := range []string{"agent_env_vars", "idempotency_keys", "audit_events", "events"} {
		var n int
		q := fmt.Sprintf("SELECT count(*) FROM %s t WHERE row_to_json(t)::text LIKE ? OR row_to_json(t)::text LIKE ?", table)
		require.NoError(t, env.DB.NewRaw(q, "%"+secret+"%", "%"+secret2+"%").Scan(context.Background(), &n), table)
		require.Zero(t, n, table)
	}
}

// testMCPServer is an MCP server of the official SDK on a loopback port, over the streamable HTTP
// transport (or SSE), with one tool; it records the Authorization headers it was sent.
func testMCPServer(t *testing.T, sse bool) (string, func() []string) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "test-tools", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echoes text"}, func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: i.Text}}}, nil, nil
	})
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if sse {
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	}
	var mu sync.Mutex
	var auths []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), auths...) }
}

// TestAgentMCPServers: create (headers never shown, names listed), read, list, delete; the name is unique;
// SSRF guard on the URL; another account's server is 404; the 21st is refused, exactly, under
// concurrency; Servers decrypts the headers and Connect lists the tools of an SDK server with them, over
// both transports.
func TestAgentMCPServers(t *testing.T) {
	t.Parallel()
	var logs apptest.Buffer
	env := apptest.NewWith(t, apptest.Options{Log: &logs})
	key := env.FirstKey(t)
	do := func(k, method, path string, body any, idem string) *apptest.Response {
		h := map[string]string{}
		if idem != "" {
			h["Idempotency-Key"] = idem
		}
		return env.Do(t, apptest.Req{Method: method, Path: path, Key: k, Body: body, Headers: h})
	}
	const token = "Bearer mcp-header-secret-987654"
	url, auths := testMCPServer(t, false)
	sseURL, sseAuths := testMCPServer(t, true)

	created := do(key, http.MethodPost, "/v1/agent/mcp-servers", map[string]any{"name": "tools", "url": url, "transport": "http",
		"headers": map[string]string{"authorization": token}}, "c1")
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	m := created.Body["mcpServer"].(map[string]any)
	id := m["id"].(string)
	require.True(t, strings.HasPrefix(id, "mcps_"), id)
	require.Equal(t, []any{"Authorization"}, m["headerNames"])
	sse := do(key, http.MethodPost, "/v1/agent/mcp-servers", map[string]any{"name": "sse-tools", "url": sseURL, "transport": "sse",
		"headers": map[string]string{"Authorization": token}}, "c2")
	require.Equal(t, http.StatusCreated, sse.Status, "%s", sse.Raw)
	dup := do(key, http.MethodPost, "/v1/agent/mcp-servers", map[string]any{"name": "tools", "url": url, "transport": "http"}, "c3")
	require.Equal(t, http.StatusConflict, dup.Status, "%s", dup.Raw)
	for _, bad := range []struct {
		body  map[string]any
		param string
	}{
		{map[string]any{"name": "Bad Name", "url": url, "transport": "http"}, "name"},
		{map[string]any{"name": "x", "url": url, "transport": "stdio"}, "body.transport"},
		{map[string]any{"name": "x", "url": "ftp://example.com", "transport": "http"}, "url"},
		{map[string]any{"name": "x", "url": "http://169.254.169.254/latest", "transport": "http"}, "url"},
		{map[string]any{"name": "x", "url": "http://10.0.0.1/mcp", "transport": "http"}, "url"},
		{map[string]any{"name": "x", "url": url, "transport": "http", "headers": map[string]string{"Host": "evil"}}, "headers"},
		{map[string]any{"name": "x", "url": url, "transport": "http", "headers": map[string]string{"X-A": "a\nb"}}, "headers"},
	} {
		resp := do(key, http.MethodPost, "/v1/agent/mcp-servers", bad.body, fmt.Sprint("bad-", bad.param, len(bad.body), bad.body["url"]))
		require.Equal(t, http.StatusBadRequest, resp.Status, "%v: %s", bad.body, resp.Raw)
		param, _ := errorOf(resp)["param"].(string)
		require.True(t, strings.HasPrefix(strings.TrimPrefix(param, "body."), strings.TrimPrefix(bad.param, "body.")), "%s", resp.Raw)
	}

	read := do(key, http.MethodGet, "/v1/agent/mcp-servers/"+id, nil, "")
	require.Equal(t, http.StatusOK, read.Status, "%s", read.Raw)
	list := do(key, http.MethodGet, "/v1/agent/mcp-servers", nil, "")
	require.Len(t, list.Body["mcpServers"], 2)
	for _, r := range []*apptest.Response{created, sse, read, list} {
		require.NotContains(t, string(r.Raw), "mcp-header-secret")
	}

	other := env.FirstKey(t)
	require.Equal(t, http.StatusNotFound, do(other, http.MethodGet, "/v1/agent/mcp-servers/"+id, nil, "").Status)
	require.Equal(t, http.StatusNotFound, do(other, http.MethodDelete, "/v1/agent/mcp-servers/"+id, nil, "o").Status)
	require.Empty(t, do(other, http.MethodGet, "/v1/agent/mcp-servers", nil, "").Body["mcpServers"])

	// The agent's view: decrypted headers, and a session listing the tools over either transport.
	store := agentenv.NewStore(env.DB, env.Box, app.AgentURLGuard(true))
	servers, err := store.Servers(context.Background(), accountOfRow(t, env, "SELECT account_id FROM agent_mcp_servers WHERE id = ?", id))
	require.NoError(t, err)
	require.Len(t, servers, 2)
	for _, s := range servers {
		require.Equal(t, map[string]string{"Authorization": token}, s.Headers)
		cs, err := store.Connect(context.Background(), s)
		require.NoError(t, err, s.Name)
		tools, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		require.Len(t, tools.Tools, 1)
		require.Equal(t, "echo", tools.Tools[0].Name)
		require.NoError(t, cs.Close())
	}
	require.Contains(t, auths(), token)
	require.Contains(t, sseAuths(), token)
	_, err = agentenv.URLGuard{}.Connect(context.Background(), servers[0])
	require.Error(t, err, "the production guard refuses a loopback server")

	// 20 at most, exactly, under concurrency: 18 more of 30 concurrent creates succeed.
	var wg sync.WaitGroup
	statuses := make([]int, 30)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = do(key, http.MethodPost, "/v1/agent/mcp-servers", map[string]any{"name": fmt.Sprint("s", i), "url": url, "transport": "http"},
				fmt.Sprint("many-", i)).Status
		}()
	}
	wg.Wait()
	okCount := 0
	for _, s := range statuses {
		if s == http.StatusCreated {
			okCount++
		} else {
			require.Equal(t, http.StatusBadRequest, s)
		}
	}
	require.Equal(t, agentenv.MaxServers-2, okCount)
	over := do(key, http.MethodPost, "/v1/agent/mcp-servers", map[string]any{"name": "one-more", "url": url, "transport": "http"}, "over")
	require.Equal(t, http.StatusBadRequest, over.Status)
	require.Contains(t, errorOf(over)["message"], "20")

	deleted := do(key, http.MethodDelete, "/v1/agent/mcp-servers/"+id, nil, "d")
	require.Equal(t, http.StatusOK, deleted.Status, "%s", deleted.Raw)
	require.Equal(t, http.StatusNotFound, do(key, http.MethodGet, "/v1/agent/mcp-servers/"+id, nil, "").Status)
	require.NotContains(t, logs.String(), "mcp-header-secret")
	var n int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM idempotency_keys t WHERE row_to_json(t)::text LIKE '%mcp-header-secret%'").Scan(context.Background(), &n))
	require.Zero(t, n)
}
