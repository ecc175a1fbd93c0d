package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	goodKey      = "svc_sk_GOODgoodGOODgoodGOODgoodGOODgood123456" // holds api_keys:manage
	servicesKey  = "svc_sk_SERVservSERVservSERVservSERVserv123456" // holds services:read only
	scopelessKey = "svc_sk_NONEnoneNONEnoneNONEnoneNONEnone123456" // authenticates, may call neither
	newSecret    = "svc_sk_NEWWnewwNEWWnewwNEWWnewwNEWWneww123456"
)

// fakeAPI is a small stand-in for the platform API that answers with the real envelope shapes.
type fakeAPI struct {
	srv *httptest.Server

	mu        sync.Mutex
	runPolls  int
	lastBody  map[string]any
	lastHdr   http.Header
	requests  []string
	runBody   string   // the raw body of the last POST /v1/runs
	lastRaw   string   // the raw body of the last request
	queries   []string // "METHOD /path?query" of every request
	runStates []string // statuses GET /v1/runs/run_1 answers, in turn (the last one repeats)
}

func newFakeAPI(t *testing.T) *fakeAPI {
	t.Helper()
	f := &fakeAPI{runStates: []string{"running", "running", "succeeded"}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) fail(w http.ResponseWriter, status int, code, msg, param string) {
	e := map[string]any{"code": code, "message": msg, "requestId": "req_fake"}
	if param != "" {
		e["param"] = param
	}
	reply(w, status, map[string]any{"ok": false, "error": e})
}

func reply(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func apiKeyJSON(id, secret, prefix string, scopes []string) map[string]any {
	k := map[string]any{"id": id, "name": "k-" + id, "prefix": prefix, "scopes": scopes, "services": []string{"*"},
		"limits": []any{}, "parentId": nil, "projectId": nil, "createdAt": "2025-01-01T00:00:00Z"}
	if secret != "" {
		k["secret"] = secret
	}
	return k
}

func runJSON(status string) map[string]any {
	r := map[string]any{"id": "run_1", "serviceId": "managed-workflows", "operationId": "echo", "status": status,
		"input": map[string]any{"message": "hi"}, "output": nil, "error": nil, "approvalId": nil, "chargedCredits": 0,
		"createdAt": "2025-01-01T00:00:00Z", "updatedAt": "2025-01-01T00:00:00Z", "completedAt": nil}
	if status == "succeeded" {
		r["output"] = map[string]any{"message": "hi"}
		r["completedAt"] = "2025-01-01T00:00:02Z"
	}
	return map[string]any{"ok": true, "run": r}
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Request-Id", "req_fake")
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	f.queries = append(f.queries, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	f.lastHdr = r.Header.Clone()
	f.lastBody = nil
	f.lastRaw = string(body)
	if len(body) > 0 {
		_ = json.Unmarshal(body, &f.lastBody)
	}
	if r.Method == http.MethodPost && r.URL.Path == "/v1/runs" {
		f.runBody = string(body)
	}
	f.mu.Unlock()

	// Credit-token bootstrap.
	if r.Method == http.MethodPost && r.URL.Path == "/v1/api-keys" && r.Header.Get("X-Svc-Credit-Token") != "" {
		if r.Header.Get("X-Svc-Credit-Token") != "good-token" {
			f.fail(w, 401, "unauthenticated", "this credit token was already used", "")
			return
		}
		reply(w, 201, map[string]any{"ok": true, "apiKey": apiKeyJSON("key_first", newSecret, newSecret[:13], []string{"runs:read"})})
		return
	}
	secret := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	scopes := map[string][]string{goodKey: {"api_keys:manage", "runs:read", "runs:write", "services:read",
		"projects:read", "projects:write", "usage:read", "audit:read", "credits:read",
		"connections:read", "connections:write", "services:invoke"},
		servicesKey: {"services:read"}, scopelessKey: {"runs:read"}}[secret]
	if scopes == nil {
		f.fail(w, 401, "unauthenticated", "the API key is unknown", "")
		return
	}
	need := func(scope string) bool {
		for _, s := range scopes {
			if s == scope {
				return true
			}
		}
		reply(w, 403, map[string]any{"ok": false, "error": map[string]any{"code": "scope_missing",
			"message": "this key lacks scope " + scope, "requestId": "req_fake", "details": map[string]any{"requiredScope": scope}}})
		return false
	}
	if r.Method == http.MethodPost || r.Method == http.MethodDelete || r.Method == http.MethodPatch {
		if r.Header.Get("Idempotency-Key") == "" {
			f.fail(w, 400, "idempotency_key_missing", "send Idempotency-Key", "Idempotency-Key")
			return
		}
	}

	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/api-keys":
		if !need("api_keys:manage") {
			return
		}
		reply(w, 200, map[string]any{"ok": true, "nextCursor": nil, "apiKeys": []any{
			apiKeyJSON("key_child", "", "svc_sk_CHILD1", []string{"runs:read"}),
			apiKeyJSON("key_self", "", goodKey[:13], []string{"api_keys:manage", "runs:read", "runs:write", "services:read"}),
		}})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/api-keys":
		if !need("api_keys:manage") {
			return
		}
		k := apiKeyJSON("key_new", newSecret, newSecret[:13], []string{"runs:read"})
		k["parentId"] = "key_self"
		reply(w, 201, map[string]any{"ok": true, "apiKey": k})
	case r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, "/v1/api-keys/"):
		if !need("api_keys:manage") {
			return
		}
		if r.URL.Path != "/v1/api-keys/key_child" {
			f.fail(w, 404, "not_found", "no API key among this key and its descendants", "")
			return
		}
		k := apiKeyJSON("key_child", "", "svc_sk_CHILD1", []string{"runs:read"})
		k["revokedAt"] = "2025-01-02T00:00:00Z"
		reply(w, 200, map[string]any{"ok": true, "apiKey": k})
	case r.Method == http.MethodGet && r.URL.Path == "/v1/services":
		if !need("services:read") {
			return
		}
		reply(w, 200, map[string]any{"ok": true, "services": []any{}})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/runs":
		if !need("runs:write") {
			return
		}
		reply(w, 201, runJSON("queued"))
	case r.Method == http.MethodGet && r.URL.Path == "/v1/runs/run_1":
		if !need("runs:read") {
			return
		}
		f.mu.Lock()
		i := min(f.runPolls, len(f.runStates)-1)
		f.runPolls++
		status := f.runStates[i]
		f.mu.Unlock()
		reply(w, 200, runJSON(status))
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/runs/"):
		f.fail(w, 404, "not_found", "no run", "")
	case r.URL.Path == "/v1/connections" || strings.HasPrefix(r.URL.Path, "/v1/connections/"),
		r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/services/"):
		f.serveGateway(w, r, need)
	default:
		f.serveAccounting(w, r, need)
	}
}

func projectJSON(id, name, description, status string) map[string]any {
	p := map[string]any{"id": id, "name": name, "description": description, "status": status,
		"createdAt": "2025-01-01T00:00:00Z", "updatedAt": "2025-01-01T00:00:00Z", "archivedAt": nil}
	if status == "archived" {
		p["archivedAt"] = "2025-01-03T00:00:00Z"
		p["updatedAt"] = "2025-01-03T00:00:00Z"
	}
	return p
}

// serveAccounting answers the projects, usage, audit-event and credit routes.
func (f *fakeAPI) serveAccounting(w http.ResponseWriter, r *http.Request, need func(string) bool) {
	q := r.URL.Query()
	f.mu.Lock()
	body := f.lastBody
	f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/projects":
		if !need("projects:read") {
			return
		}
		// Two pages: proj_2 (active), then proj_1 (archived).
		var page []any
		var next any
		if q.Get("cursor") == "" {
			page, next = []any{projectJSON("proj_2", "Second", "the\tsecond\nproject", "active")}, "pc2"
		} else if q.Get("cursor") == "pc2" {
			page = []any{projectJSON("proj_1", "First", "", "archived")}
		} else {
			f.fail(w, 400, "invalid_request", "bad cursor", "cursor")
			return
		}
		if st := q.Get("status"); st != "" {
			kept := []any{}
			for _, p := range page {
				if p.(map[string]any)["status"] == st {
					kept = append(kept, p)
				}
			}
			page = kept
		}
		reply(w, 200, map[string]any{"ok": true, "projects": page, "nextCursor": next})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/projects":
		if !need("projects:write") {
			return
		}
		name, _ := body["name"].(string)
		desc, _ := body["description"].(string)
		reply(w, 201, map[string]any{"ok": true, "project": projectJSON("proj_new", name, desc, "active")})
	case strings.HasPrefix(r.URL.Path, "/v1/projects/"):
		scope := "projects:read"
		if r.Method != http.MethodGet {
			scope = "projects:write"
		}
		if !need(scope) {
			return
		}
		if r.URL.Path != "/v1/projects/proj_1" {
			f.fail(w, 404, "not_found", `no project "`+strings.TrimPrefix(r.URL.Path, "/v1/projects/")+`"`, "")
			return
		}
		p := projectJSON("proj_1", "First", "the first", "active")
		switch r.Method {
		case http.MethodPatch:
			for _, k := range []string{"name", "description"} {
				if v, ok := body[k]; ok {
					p[k] = v
				}
			}
			p["updatedAt"] = "2025-01-02T00:00:00Z"
		case http.MethodDelete:
			p = projectJSON("proj_1", "First", "the first", "archived")
		}
		reply(w, 200, map[string]any{"ok": true, "project": p})
	case r.Method == http.MethodGet && r.URL.Path == "/v1/usage":
		if !need("usage:read") {
			return
		}
		from, to := q.Get("from"), q.Get("to")
		if from == "" {
			from = "2025-01-01"
		}
		if to == "" {
			to = "2025-01-30"
		}
		reply(w, 200, map[string]any{"ok": true, "from": from, "to": to, "usage": []any{
			map[string]any{"date": "2025-01-01", "projectId": nil, "operation": "runs.create", "requests": 3, "chargedCredits": 0.1},
			map[string]any{"date": "2025-01-02", "projectId": "proj_1", "operation": "runs.read", "requests": 2, "chargedCredits": 0.2},
		}})
	case r.Method == http.MethodGet && r.URL.Path == "/v1/audit-events":
		if !need("audit:read") {
			return
		}
		ev := func(id, keyID, path string, status int) map[string]any {
			e := map[string]any{"id": id, "keyId": nil, "projectId": nil, "operation": "runs.read", "method": "GET",
				"path": path, "status": status, "requestId": "req_" + id, "clientIp": "127.0.0.1", "chargedCredits": 0,
				"createdAt": "2025-01-02T03:04:05Z"}
			if keyID != "" {
				e["keyId"] = keyID
			}
			return e
		}
		switch q.Get("cursor") {
		case "":
			reply(w, 200, map[string]any{"ok": true, "nextCursor": "ac2", "auditEvents": []any{ev("aud_2", "key_self", "/v1/runs/run_1", 200)}})
		case "ac2":
			reply(w, 200, map[string]any{"ok": true, "nextCursor": nil, "auditEvents": []any{ev("aud_1", "", "/v1/api-keys", 201)}})
		default:
			f.fail(w, 400, "invalid_request", "bad cursor", "cursor")
		}
	case r.Method == http.MethodGet && r.URL.Path == "/v1/credits/balance":
		if !need("credits:read") {
			return
		}
		reply(w, 200, map[string]any{"ok": true, "balance": map[string]any{"credits": 1234567.5, "heldCredits": 0.25,
			"updatedAt": "2025-01-02T00:00:00Z"}})
	default:
		f.fail(w, 404, "not_found", "no route", "")
	}
}

// result is the outcome of one CLI invocation.
type result struct {
	code           int
	stdout, stderr string
}

// cli runs the CLI with env as its whole environment.
func cli(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut, func(k string) string { return env[k] })
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

func testEnv(t *testing.T, f *fakeAPI) map[string]string {
	t.Helper()
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir()}
	if f != nil {
		env["SVC_BASE_URL"] = f.srv.URL
	}
	return env
}

func readConfig(t *testing.T, env map[string]string) (config, os.FileInfo) {
	t.Helper()
	path := filepath.Join(env["XDG_CONFIG_HOME"], "svc", "config.json")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var c config
	require.NoError(t, json.Unmarshal(b, &c))
	return c, fi
}

func TestLoginStoresPrivateConfig(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, nil)
	r := cli(t, env, "", "login", "--api-key", goodKey, "--base-url", f.srv.URL+"/")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NotContains(t, r.stdout, goodKey, "the whole secret is never printed")
	require.Contains(t, r.stdout, goodKey[:13])

	c, fi := readConfig(t, env)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(filepath.Join(env["XDG_CONFIG_HOME"], "svc"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	require.Equal(t, goodKey, c.APIKey)
	require.Equal(t, f.srv.URL+"/v1", c.BaseURL)
	require.Contains(t, f.requests, "GET /v1/api-keys")

	// Later commands use the stored credentials.
	w := cli(t, env, "", "whoami")
	require.Equal(t, exitOK, w.code, w.stderr)
	require.Contains(t, w.stdout, f.srv.URL+"/v1")
	require.Contains(t, w.stdout, "key_self")
	require.Contains(t, w.stdout, goodKey[:13])
	require.NotContains(t, w.stdout, goodKey)
	require.Contains(t, w.stdout, "api_keys:manage")

	// whoami --json is valid JSON naming the key.
	wj := cli(t, env, "", "whoami", "--json")
	require.Equal(t, exitOK, wj.code, wj.stderr)
	var who map[string]any
	require.NoError(t, json.Unmarshal([]byte(wj.stdout), &who))
	require.Equal(t, "key_self", who["apiKey"].(map[string]any)["id"])
	require.NotContains(t, wj.stdout, goodKey)
}

func TestLoginScopeFallbacks(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)

	// services:read only: api-keys answers 403, services succeeds.
	env := testEnv(t, f)
	r := cli(t, env, "", "login", "--api-key", servicesKey)
	require.Equal(t, exitOK, r.code, r.stderr)
	c, _ := readConfig(t, env)
	require.Equal(t, servicesKey, c.APIKey)
	w := cli(t, env, "", "whoami")
	require.Equal(t, exitOK, w.code, w.stderr)
	require.Contains(t, w.stdout, "unavailable")

	// Neither scope: stored with a warning.
	env = testEnv(t, f)
	r = cli(t, env, "", "login", "--api-key", scopelessKey)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Warning")
	c, _ = readConfig(t, env)
	require.Equal(t, scopelessKey, c.APIKey)
}

func TestLoginRefusesUnknownKey(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	r := cli(t, env, "", "login", "--api-key", "svc_sk_bogus")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: unauthenticated: the API key is unknown [req_fake]")
	_, err := os.Stat(filepath.Join(env["XDG_CONFIG_HOME"], "svc", "config.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestLoginWithoutKeyNeverPromptsWhenNotInteractive(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	env["SVC_NOT_INTERACTIVE"] = "1"
	r := cli(t, env, "svc_sk_from_stdin\n", "login")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "--api-key")

	// stdin that is not a terminal is never prompted either.
	r = cli(t, testEnv(t, nil), "svc_sk_from_stdin\n", "login")
	require.Equal(t, exitUsage, r.code)
}

func TestJSONOutputIsValidJSON(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	for _, args := range [][]string{
		{"--json", "keys", "list"},
		{"keys", "list", "--json", "--all"},
		{"runs", "get", "run_1", "--json"},
		{"runs", "create", "--service", "managed-workflows", "--operation", "echo", "--json"},
	} {
		r := cli(t, env, "", args...)
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.stderr)
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), "%v: %s", args, r.stdout)
		require.Equal(t, true, v["ok"], args)
	}

	// An error in --json mode prints the error envelope on stdout too.
	r := cli(t, env, "", "runs", "get", "run_missing", "--json")
	require.Equal(t, exitAPI, r.code)
	var e map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), r.stdout)
	require.Equal(t, false, e["ok"])
	require.Equal(t, "not_found", e["error"].(map[string]any)["code"])
}

func TestAPIErrorExitsOne(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = servicesKey

	r := cli(t, env, "", "keys", "list")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, "error: scope_missing: this key lacks scope api_keys:manage [req_fake]\n", r.stderr)
	require.Empty(t, r.stdout)

	env["SVC_API_KEY"] = goodKey
	r = cli(t, env, "", "keys", "revoke", "key_other")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: not_found: ")

	// A closed server is a transport error, also exit 1.
	env["SVC_BASE_URL"] = "http://127.0.0.1:1"
	r = cli(t, env, "", "runs", "get", "run_1")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: transport_error: ")

	// No key at all.
	r = cli(t, testEnv(t, f), "", "runs", "get", "run_1")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: unauthenticated: no API key")
}

func TestUsageErrorsExitTwo(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	env["SVC_API_KEY"] = goodKey
	for _, args := range [][]string{
		{},
		{"bogus"},
		{"keys"},
		{"keys", "bogus"},
		{"keys", "revoke"},
		{"keys", "revoke", "a", "b"},
		{"keys", "create", "--limit", "runs.create=ten/min"},
		{"keys", "create", "--limit", "runs.create=10/hour"},
		{"keys", "list", "--nope"},
		{"runs", "create", "--operation", "echo"},
		{"runs", "create", "--service", "managed-workflows"},
		{"runs", "create", "--service", "s", "--operation", "o", "--input", "{not json"},
		{"runs", "create", "--service", "s", "--operation", "o", "--input", "[1]"},
		{"runs", "create", "--service", "s", "--operation", "o", "--input", "{}", "--input-file", "x"},
		{"runs", "get"},
		{"whoami", "extra"},
	} {
		r := cli(t, env, "", args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", args, r.stderr)
		require.NotEmpty(t, r.stderr, args)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"help"}, {"--help"}, {"-h"}, {"help", "runs", "create"}, {"keys", "--help"}, {"keys", "create", "--help"},
		{"runs", "create", "-h"}, {"login", "--help"}, {"whoami", "-h"},
		{"projects", "--help"}, {"projects", "list", "--help"}, {"help", "projects", "create"}, {"projects", "get", "-h"},
		{"projects", "update", "--help"}, {"projects", "archive", "--help"}, {"usage", "--help"}, {"help", "usage"},
		{"audit", "-h"}, {"help", "audit"}, {"credits", "--help"}, {"credits", "balance", "--help"}, {"help", "credits", "balance"},
		{"connections", "--help"}, {"connections", "list", "-h"}, {"connections", "create", "--help"}, {"help", "connections", "get"},
		{"connections", "rotate", "--help"}, {"connections", "disable", "-h"}, {"connections", "enable", "--help"},
		{"connections", "rename", "--help"}, {"help", "connections", "delete"}, {"services", "--help"},
		{"services", "invoke", "--help"}, {"help", "services", "invoke"},
	} {
		r := cli(t, testEnv(t, nil), "", args...)
		require.Equal(t, exitOK, r.code, args)
		require.Contains(t, r.stdout, "Usage:", args)
	}
	r := cli(t, testEnv(t, nil), "", "help")
	for _, cmd := range []string{"login", "whoami", "keys create", "keys list", "keys revoke", "runs create", "runs get", "--json", "--not-interactive",
		"projects list", "projects create", "projects get", "projects update", "projects archive", "usage", "audit",
		"credits balance", "connections list", "connections create", "connections get", "connections rotate",
		"connections disable", "connections enable", "connections rename", "connections delete", "services invoke"} {
		require.Contains(t, r.stdout, cmd)
	}
	r = cli(t, testEnv(t, nil), "", "help", "services", "invoke")
	require.Contains(t, r.stdout, "service answered <status>", "the exit status for an upstream 4xx/5xx is documented")
}

func TestKeysCreatePrintsSecret(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "keys", "create", "--name", "ci", "--scope", "runs:read", "--scope", "runs:write,services:read",
		"--service", "managed-workflows", "--limit", "runs.create=10/min", "--limit", "runs.create=500/day",
		"--project", "proj_1", "--idempotency-key", "idem-1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, newSecret)
	require.Contains(t, r.stdout, "shown only once")
	require.Contains(t, r.stdout, "key_new")

	f.mu.Lock()
	body, hdr := f.lastBody, f.lastHdr
	f.mu.Unlock()
	require.Equal(t, "idem-1", hdr.Get("Idempotency-Key"))
	require.Empty(t, hdr.Get("X-Svc-Project"), "--project binds the key; it does not select a project")
	wantBody := `{"name":"ci","scopes":["runs:read","runs:write","services:read"],"services":["managed-workflows"],
		"limits":[{"operation":"runs.create","requestsPerMinute":10},{"operation":"runs.create","creditsPerDay":500}],
		"projectId":"proj_1"}`
	got, _ := json.Marshal(body)
	require.JSONEq(t, wantBody, string(got))
}

func TestKeysCreateWithCreditTokenAndLogin(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey // ignored: the credit token is the credential of the first key

	r := cli(t, env, "", "keys", "create", "--credit-token", "good-token", "--login")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, newSecret)
	f.mu.Lock()
	hdr := f.lastHdr
	f.mu.Unlock()
	require.Equal(t, "good-token", hdr.Get("X-Svc-Credit-Token"))
	require.Empty(t, hdr.Get("Authorization"))
	c, fi := readConfig(t, env)
	require.Equal(t, newSecret, c.APIKey)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	r = cli(t, env, "", "keys", "create", "--credit-token", "used-token")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: unauthenticated: this credit token was already used")
}

func TestKeysListAndRevoke(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "keys", "list")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "ID")
	require.Contains(t, r.stdout, "key_child")
	require.Contains(t, r.stdout, "key_self")

	r = cli(t, env, "", "keys", "revoke", "key_child")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Revoked API key key_child")
	require.Contains(t, f.requests, "DELETE /v1/api-keys/key_child")
}

func TestRunsCreateWaitPollsUntilSucceeded(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "runs", "create", "--service", "managed-workflows", "--operation", "echo",
		"--input", `{"message":"hi","n":12345678901234567890}`, "--wait", "--interval", "5ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "queued")
	require.Contains(t, r.stdout, "running")
	require.Contains(t, r.stdout, "succeeded")
	require.Contains(t, r.stdout, `{"message":"hi"}`)
	f.mu.Lock()
	polls := f.runPolls
	f.mu.Unlock()
	require.Equal(t, 3, polls, "polled until succeeded")

	// The input was sent as given, big numbers intact, in one create.
	f.mu.Lock()
	defer f.mu.Unlock()
	require.JSONEq(t, `{"serviceId":"managed-workflows","operationId":"echo","input":{"message":"hi","n":12345678901234567890}}`, f.runBody)
	require.Contains(t, f.runBody, "12345678901234567890")
	var creates int
	for _, req := range f.requests {
		if req == "POST /v1/runs" {
			creates++
		}
	}
	require.Equal(t, 1, creates)
}

func TestRunsWaitFailedRunExitsOne(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.runStates = []string{"running", "failed"}
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	r := cli(t, env, "", "runs", "get", "run_1", "--wait", "--interval", "5ms", "--json")
	require.Equal(t, exitAPI, r.code)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
	require.Equal(t, "failed", v["run"].(map[string]any)["status"])
	require.Contains(t, r.stderr, "error: run run_1 failed")
}

func TestRunsCreateInputFileFromStdin(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	r := cli(t, env, `{"n": 12345678901234567890}`, "runs", "create", "--service", "managed-workflows", "--operation", "echo", "--input-file", "-")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "run_1")
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Contains(t, f.runBody, `"input":{"n":12345678901234567890}`)
}

func TestPrecedenceFlagsOverEnvOverConfig(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, nil)
	path := filepath.Join(env["XDG_CONFIG_HOME"], "svc", "config.json")
	require.NoError(t, saveConfig(path, config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "svc_sk_bogus"}))

	// The config alone points at a dead address.
	r := cli(t, env, "", "runs", "get", "run_1")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "transport_error")

	// The environment beats the config file.
	env["SVC_BASE_URL"] = f.srv.URL
	r = cli(t, env, "", "runs", "get", "run_1")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "unauthenticated")
	env["SVC_API_KEY"] = servicesKey

	// Flags beat the environment.
	r = cli(t, env, "", "--api-key", goodKey, "runs", "get", "run_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "run_1")
	r = cli(t, env, "", "runs", "get", "run_1", "--base-url", "http://127.0.0.1:1", "--api-key", goodKey)
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "transport_error")
}

func TestParseLimit(t *testing.T) {
	t.Parallel()
	l, err := parseLimit("services.invoke.managed-workflows=5/min")
	require.NoError(t, err)
	require.Equal(t, "services.invoke.managed-workflows", l.Operation)
	require.EqualValues(t, 5, l.RequestsPerMinute)
	l, err = parseLimit("*=100/day")
	require.NoError(t, err)
	require.EqualValues(t, 100, l.CreditsPerDay)
	require.Equal(t, "*=100/day", formatLimit(l))
	for _, bad := range []string{"", "=1/min", "op", "op=1", "op=0/min", "op=-1/day", "op=1/hour"} {
		_, err := parseLimit(bad)
		require.Error(t, err, bad)
	}
}

func TestMaskKey(t *testing.T) {
	t.Parallel()
	require.Equal(t, goodKey[:13]+"…", maskKey(goodKey))
	require.NotContains(t, maskKey("short"), "short")
}

// queriesTo returns the "?query" part of every request to path, in order.
func (f *fakeAPI) queriesTo(method, path string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, q := range f.queries {
		if rest, ok := strings.CutPrefix(q, method+" "+path+"?"); ok {
			out = append(out, rest)
		}
	}
	return out
}

func TestProjectsList(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	// One page: a table, and how to get the next page.
	r := cli(t, env, "", "projects", "list", "--limit", "1")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3, r.stdout)
	require.Regexp(t, `^ID\s+NAME\s+STATUS\s+CREATED\s+DESCRIPTION$`, lines[0])
	require.Regexp(t, `^proj_2\s+Second\s+active\s+2025-01-01T00:00:00Z\s+the second project$`, lines[1], "line breaks and tabs do not break the table")
	require.Equal(t, "More projects: svc projects list --limit 1 --cursor pc2", lines[2])
	require.Equal(t, []string{"limit=1"}, f.queriesTo("GET", "/v1/projects"))

	// --all follows nextCursor.
	r = cli(t, env, "", "projects", "list", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "proj_2")
	require.Regexp(t, `proj_1\s+First\s+archived\s+\S+\s+-\n`, r.stdout)
	require.NotContains(t, r.stdout, "More projects")

	// --status is sent; an empty answer says so.
	f2 := newFakeAPI(t)
	env2 := testEnv(t, f2)
	env2["SVC_API_KEY"] = goodKey
	r = cli(t, env2, "", "projects", "list", "--status", "archived")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "No projects.")
	require.Equal(t, []string{"status=archived"}, f2.queriesTo("GET", "/v1/projects"))

	// --json prints the page's envelope as received.
	r = cli(t, env, "", "projects", "list", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var page struct {
		OK         bool             `json:"ok"`
		Projects   []map[string]any `json:"projects"`
		NextCursor *string          `json:"nextCursor"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.True(t, page.OK)
	require.Len(t, page.Projects, 1)
	require.Equal(t, "pc2", *page.NextCursor)

	// --json --all gathers every page into one envelope.
	r = cli(t, env, "", "projects", "list", "--json", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	page.NextCursor = nil
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.Len(t, page.Projects, 2)
	require.Nil(t, page.NextCursor)
}

func TestProjectsCreateGetUpdateArchive(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	lastReq := func() (map[string]any, http.Header) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.lastBody, f.lastHdr
	}

	r := cli(t, env, "", "projects", "create", "--name", "  Demo ", "--description", "a demo", "--idempotency-key", "idem-p")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Created project proj_new (Demo)")
	require.Regexp(t, `ID:\s+proj_new\n`, r.stdout)
	require.Regexp(t, `Description:\s+a demo\n`, r.stdout)
	require.Regexp(t, `Status:\s+active\n`, r.stdout)
	body, hdr := lastReq()
	require.Equal(t, map[string]any{"name": "Demo", "description": "a demo"}, body)
	require.Equal(t, "idem-p", hdr.Get("Idempotency-Key"))

	r = cli(t, env, "", "projects", "create", "--name", "Demo", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var created map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &created), r.stdout)
	require.Equal(t, "proj_new", created["project"].(map[string]any)["id"])
	body, _ = lastReq()
	require.Equal(t, map[string]any{"name": "Demo"}, body, "no description: the field is left out")

	r = cli(t, env, "", "projects", "get", "proj_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `^ID:\s+proj_1\nName:\s+First\nDescription:\s+the first\nStatus:\s+active\n`, r.stdout)
	require.NotContains(t, r.stdout, "Archived:")

	// Only the given fields are sent; --description "" clears the description.
	r = cli(t, env, "", "projects", "update", "proj_1", "--description", "")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Updated project proj_1 (First)")
	require.Regexp(t, `Description:\s+-\n`, r.stdout)
	require.Regexp(t, `Updated:\s+2025-01-02T00:00:00Z`, r.stdout)
	body, hdr = lastReq()
	require.Equal(t, map[string]any{"description": ""}, body)
	require.NotEmpty(t, hdr.Get("Idempotency-Key"))
	require.Contains(t, f.requests, "PATCH /v1/projects/proj_1")

	r = cli(t, env, "", "projects", "update", "--name", "Renamed", "proj_1", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var updated map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &updated), r.stdout)
	require.Equal(t, "Renamed", updated["project"].(map[string]any)["name"])
	require.Equal(t, "the first", updated["project"].(map[string]any)["description"])

	r = cli(t, env, "", "projects", "archive", "proj_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Archived project proj_1 (First)")
	require.Regexp(t, `Status:\s+archived\n`, r.stdout)
	require.Regexp(t, `Archived:\s+2025-01-03T00:00:00Z`, r.stdout)
	require.Contains(t, f.requests, "DELETE /v1/projects/proj_1")

	r = cli(t, env, "", "--json", "projects", "archive", "proj_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, `"archivedAt": "2025-01-03T00:00:00Z"`)
}

func TestUsageCommand(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "usage", "--from", "2025-01-01", "--to", "2025-01-02", "--operation", "runs.create")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 5, r.stdout)
	require.Equal(t, "Usage from 2025-01-01 to 2025-01-02 (UTC days)", lines[0])
	require.Regexp(t, `^DATE\s+PROJECT\s+OPERATION\s+REQUESTS\s+CREDITS$`, lines[1])
	require.Regexp(t, `^2025-01-01\s+-\s+runs\.create\s+3\s+0\.1$`, lines[2])
	require.Regexp(t, `^2025-01-02\s+proj_1\s+runs\.read\s+2\s+0\.2$`, lines[3])
	require.Regexp(t, `^TOTAL\s+5\s+0\.3$`, lines[4], "totals are summed exactly")
	require.Equal(t, []string{"from=2025-01-01&operation=runs.create&to=2025-01-02"}, f.queriesTo("GET", "/v1/usage"))

	r = cli(t, env, "", "usage", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var u map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &u), r.stdout)
	require.Equal(t, true, u["ok"])
	require.Len(t, u["usage"], 2)
	require.Equal(t, "2025-01-30", u["to"])
}

func TestAuditCommand(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "audit", "--operation", "runs.read", "--key", "key_self", "--status", "200",
		"--from", "2025-01-01T00:00:00+01:00", "--to", "2025-01-03")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3, r.stdout)
	require.Regexp(t, `^TIME\s+STATUS\s+METHOD\s+PATH\s+OPERATION\s+KEY\s+REQUEST_ID$`, lines[0])
	require.Regexp(t, `^2025-01-02T03:04:05Z\s+200\s+GET\s+/v1/runs/run_1\s+runs\.read\s+key_self\s+req_aud_2$`, lines[1])
	require.Equal(t, "More events: svc audit --operation runs.read --key key_self --from 2025-01-01T00:00:00+01:00 "+
		"--to 2025-01-03 --status 200 --cursor ac2", lines[2])
	require.Equal(t, []string{"from=2024-12-31T23%3A00%3A00Z&keyId=key_self&operation=runs.read&status=200&to=2025-01-03T00%3A00%3A00Z"},
		f.queriesTo("GET", "/v1/audit-events"))

	r = cli(t, env, "", "audit", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "req_aud_2")
	require.Regexp(t, `201\s+GET\s+/v1/api-keys\s+runs\.read\s+-\s+req_aud_1`, r.stdout, "a credit-token request has no key")
	require.NotContains(t, r.stdout, "More events")

	r = cli(t, env, "", "audit", "--json", "--limit", "1")
	require.Equal(t, exitOK, r.code, r.stderr)
	var page map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.Equal(t, "ac2", page["nextCursor"])
	require.Len(t, page["auditEvents"], 1)

	r = cli(t, env, "", "audit", "--json", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	page = nil
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.Len(t, page["auditEvents"], 2)
	require.Nil(t, page["nextCursor"])
}

func TestCreditsBalance(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "credits", "balance")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `^Available:\s+1234567\.5 credits\nHeld:\s+0\.25 credits\nUpdated:\s+2025-01-02T00:00:00Z\n$`, r.stdout)

	r = cli(t, env, "", "credits", "balance", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, `"credits": 1234567.5`, "numbers are printed as received")
	var b map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &b), r.stdout)
	require.Equal(t, true, b["ok"])
}

func TestAccountingAPIErrorsExitOne(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = servicesKey // lacks every scope these commands need
	for cmd, scope := range map[string]string{
		"projects list": "projects:read", "projects create --name x": "projects:write", "projects get proj_1": "projects:read",
		"projects update proj_1 --name x": "projects:write", "projects archive proj_1": "projects:write",
		"usage": "usage:read", "audit": "audit:read", "audit --all": "audit:read", "credits balance": "credits:read",
	} {
		r := cli(t, env, "", strings.Fields(cmd)...)
		require.Equal(t, exitAPI, r.code, cmd)
		require.Equal(t, "error: scope_missing: this key lacks scope "+scope+" [req_fake]\n", r.stderr, cmd)
		require.Empty(t, r.stdout, cmd)

		// In --json mode the error envelope goes to stdout as well.
		r = cli(t, env, "", append(strings.Fields(cmd), "--json")...)
		require.Equal(t, exitAPI, r.code, cmd)
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), "%s: %s", cmd, r.stdout)
		require.Equal(t, false, e["ok"], cmd)
		require.Equal(t, "scope_missing", e["error"].(map[string]any)["code"], cmd)
	}

	env["SVC_API_KEY"] = goodKey
	for _, cmd := range []string{"projects get proj_missing", "projects update proj_missing --name x", "projects archive proj_missing"} {
		r := cli(t, env, "", strings.Fields(cmd)...)
		require.Equal(t, exitAPI, r.code, cmd)
		require.Equal(t, `error: not_found: no project "proj_missing" [req_fake]`+"\n", r.stderr, cmd)
	}
	r := cli(t, env, "", "audit", "--cursor", "bogus")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: invalid_request: bad cursor [req_fake]")

	env["SVC_BASE_URL"] = "http://127.0.0.1:1"
	r = cli(t, env, "", "credits", "balance")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: transport_error: ")
}

func TestAccountingUsageErrorsNameTheFlag(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	long := strings.Repeat("é", 201)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"projects"}, "Usage: svc projects"},
		{[]string{"projects", "bogus"}, `unknown command "projects bogus"`},
		{[]string{"projects", "list", "--status", "deleted"}, "--status"},
		{[]string{"projects", "list", "--limit", "201"}, "--limit"},
		{[]string{"projects", "list", "--limit", "ten"}, "-limit"},
		{[]string{"projects", "list", "extra"}, `unexpected argument "extra"`},
		{[]string{"projects", "create"}, "--name is required"},
		{[]string{"projects", "create", "--name", "   "}, "--name is required"},
		{[]string{"projects", "create", "--name", long}, "--name has 201 characters"},
		{[]string{"projects", "create", "--name", "x", "--description", strings.Repeat("d", 2001)}, "--description"},
		{[]string{"projects", "create", "--name", "x", "extra"}, `unexpected argument "extra"`},
		{[]string{"projects", "get"}, "exactly one project id"},
		{[]string{"projects", "get", "a", "b"}, "exactly one project id"},
		{[]string{"projects", "update", "proj_1"}, "give --name, --description or both"},
		{[]string{"projects", "update", "--name", "x"}, "exactly one project id"},
		{[]string{"projects", "update", "proj_1", "--name", ""}, "--name must not be empty"},
		{[]string{"projects", "archive"}, "exactly one project id"},
		{[]string{"usage", "--from", "2025-1-1"}, `--from "2025-1-1" is not a day`},
		{[]string{"usage", "--to", "2025-01-01T00:00:00Z"}, `--to "2025-01-01T00:00:00Z" is not a day`},
		{[]string{"usage", "--from", "2025-02-01", "--to", "2025-01-01"}, "--from 2025-02-01 is after --to 2025-01-01"},
		{[]string{"usage", "--from", "2024-01-01", "--to", "2025-01-01"}, "covers 367 days"},
		{[]string{"usage", "extra"}, `unexpected argument "extra"`},
		{[]string{"audit", "--from", "yesterday"}, `--from "yesterday" is not an RFC 3339 time`},
		{[]string{"audit", "--to", "2025-01-01 10:00"}, `--to "2025-01-01 10:00"`},
		{[]string{"audit", "--to", "2025-01-01T10:00:00.5Z"}, "--to \"2025-01-01T10:00:00.5Z\": give whole seconds"},
		{[]string{"audit", "--from", "2025-01-02", "--to", "2025-01-01"}, "--from must be before --to"},
		{[]string{"audit", "--status", "42"}, "--status must be an HTTP status"},
		{[]string{"audit", "--status", "0"}, "--status must be an HTTP status"},
		{[]string{"audit", "--status", "ok"}, "-status"},
		{[]string{"audit", "--limit", "-1"}, "--limit"},
		{[]string{"credits"}, "Usage: svc credits"},
		{[]string{"credits", "spend"}, `unknown command "credits spend"`},
		{[]string{"credits", "balance", "now"}, `unexpected argument "now"`},
	} {
		r := cli(t, env, "", tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
		require.Empty(t, r.stdout, tc.args)
	}
	require.Empty(t, f.requests, "usage errors are found before any request")

	// A 366-day range is allowed.
	r := cli(t, env, "", "usage", "--from", "2024-01-01", "--to", "2024-12-31")
	require.Equal(t, exitOK, r.code, r.stderr)
}

// upstreamSecret is a connection secret the tests send; it must never appear in the CLI's output.
const upstreamSecret = "upstream-SECRET-value-0123456789"

func connectionJSON(id, name, authType, status string, rotated bool) map[string]any {
	c := map[string]any{"id": id, "name": name, "authType": authType, "status": status,
		"createdAt": "2025-01-01T00:00:00Z", "updatedAt": "2025-01-01T00:00:00Z", "rotatedAt": nil}
	if authType == "header" {
		c["headerName"] = "X-Api-Key"
	}
	if rotated {
		c["rotatedAt"] = "2025-01-02T00:00:00Z"
		c["updatedAt"] = "2025-01-02T00:00:00Z"
	}
	return c
}

// serveGateway answers the connection routes and POST /v1/services/{id}/invoke, as the API does: a
// connection's secret is accepted but never answered.
func (f *fakeAPI) serveGateway(w http.ResponseWriter, r *http.Request, need func(string) bool) {
	q := r.URL.Query()
	f.mu.Lock()
	body := f.lastBody
	f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/connections":
		if !need("connections:read") {
			return
		}
		switch q.Get("cursor") {
		case "":
			reply(w, 200, map[string]any{"ok": true, "nextCursor": "cc2",
				"connections": []any{connectionJSON("conn_2", "weather", "header", "active", false)}})
		case "cc2":
			reply(w, 200, map[string]any{"ok": true, "nextCursor": nil,
				"connections": []any{connectionJSON("conn_1", "github", "bearer", "disabled", true)}})
		default:
			f.fail(w, 400, "invalid_request", "bad cursor", "cursor")
		}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/connections":
		if !need("connections:write") {
			return
		}
		name, _ := body["name"].(string)
		if name == "taken" {
			f.fail(w, 409, "conflict", `a connection named "taken" exists`, "name")
			return
		}
		authType, _ := body["authType"].(string)
		reply(w, 201, map[string]any{"ok": true, "connection": connectionJSON("conn_new", name, authType, "active", false)})
	case strings.HasPrefix(r.URL.Path, "/v1/connections/"):
		scope := "connections:read"
		if r.Method != http.MethodGet {
			scope = "connections:write"
		}
		if !need(scope) {
			return
		}
		if r.URL.Path != "/v1/connections/conn_1" {
			f.fail(w, 404, "not_found", `no connection with id "`+strings.TrimPrefix(r.URL.Path, "/v1/connections/")+`"`, "")
			return
		}
		c := connectionJSON("conn_1", "github", "basic", "active", false)
		if r.Method == http.MethodPatch {
			if v, ok := body["name"]; ok {
				c["name"] = v
			}
			if v, ok := body["disabled"]; ok && v == true {
				c["status"] = "disabled"
			}
			if _, ok := body["secret"]; ok {
				c["rotatedAt"] = "2025-01-02T00:00:00Z"
			}
			c["updatedAt"] = "2025-01-02T00:00:00Z"
		}
		reply(w, 200, map[string]any{"ok": true, "connection": c})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/invoke"):
		if !need("services:invoke") {
			return
		}
		svc := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/services/"), "/invoke")
		if svc != "weather" {
			f.fail(w, 404, "not_found", `no invocable service "`+svc+`"`, "")
			return
		}
		op, _ := body["operationId"].(string)
		status, result, charged := 200, any(map[string]any{"city": body["input"], "tempC": 21.5}), 0.25
		switch op {
		case "forecast":
			w.Header().Set("X-Svc-Upstream-Request-Id", "up_123")
		case "broken":
			status, result, charged = 502, map[string]any{"error": "upstream exploded"}, 0
		case "text":
			result = "plain text"
		default:
			f.fail(w, 400, "invalid_request", `service "weather" has no operation "`+op+`"`, "operationId")
			return
		}
		w.Header().Set("X-Svc-Credits-Charged", fmt.Sprint(charged))
		reply(w, 200, map[string]any{"ok": true, "serviceId": svc, "operationId": op, "status": status,
			"result": result, "chargedCredits": charged})
	default:
		f.fail(w, 404, "not_found", "no route", "")
	}
}

// last returns the body and headers of the last request.
func (f *fakeAPI) last() (map[string]any, http.Header) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastBody, f.lastHdr
}

// requireNoSecret fails when the upstream secret appears in the CLI's output.
func requireNoSecret(t *testing.T, r result, what any) {
	t.Helper()
	require.NotContains(t, r.stdout, upstreamSecret, "%v: the secret is never printed", what)
	require.NotContains(t, r.stderr, upstreamSecret, "%v: the secret is never printed", what)
	require.NotContains(t, r.stdout, upstreamSecret[:15], what)
	require.NotContains(t, r.stderr, upstreamSecret[:15], what)
}

func TestConnectionsList(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "connections", "list", "--limit", "1")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3, r.stdout)
	require.Regexp(t, `^ID\s+NAME\s+AUTH\s+STATUS\s+CREATED\s+ROTATED$`, lines[0])
	require.Regexp(t, `^conn_2\s+weather\s+header \(X-Api-Key\)\s+active\s+2025-01-01T00:00:00Z\s+-$`, lines[1])
	require.Equal(t, "More connections: svc connections list --limit 1 --cursor cc2", lines[2])
	require.Equal(t, []string{"limit=1"}, f.queriesTo("GET", "/v1/connections"))

	r = cli(t, env, "", "connections", "list", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "conn_2")
	require.Regexp(t, `conn_1\s+github\s+bearer\s+disabled\s+2025-01-01T00:00:00Z\s+2025-01-02T00:00:00Z\n`, r.stdout)
	require.NotContains(t, r.stdout, "More connections")

	// --json prints the page's envelope as received; with --all, one envelope of every page.
	r = cli(t, env, "", "connections", "list", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var page map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.Equal(t, true, page["ok"])
	require.Len(t, page["connections"], 1)
	require.Equal(t, "cc2", page["nextCursor"])

	r = cli(t, env, "", "--json", "connections", "list", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	page = nil
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.Len(t, page["connections"], 2)
	require.Nil(t, page["nextCursor"])
}

func TestConnectionsCreate(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	// --secret-stdin: the trailing line break is dropped; nothing warns.
	r := cli(t, env, upstreamSecret+"\n", "connections", "create", "--name", "weather", "--auth-type", "header",
		"--header-name", "X-Api-Key", "--secret-stdin", "--idempotency-key", "idem-c")
	require.Equal(t, exitOK, r.code, r.stderr)
	requireNoSecret(t, r, "create --secret-stdin")
	require.Empty(t, r.stderr)
	require.Contains(t, r.stdout, "Created connection conn_new (weather)\n")
	require.Regexp(t, `Auth:\s+header \(X-Api-Key\)\n`, r.stdout)
	require.Regexp(t, `Status:\s+active\n`, r.stdout)
	require.Regexp(t, `Rotated:\s+never\n`, r.stdout)
	require.Contains(t, r.stdout, "never shown again")
	body, hdr := f.last()
	require.Equal(t, map[string]any{"name": "weather", "authType": "header", "headerName": "X-Api-Key", "secret": upstreamSecret}, body)
	require.Equal(t, "idem-c", hdr.Get("Idempotency-Key"))

	// --secret works but warns about shell history.
	r = cli(t, env, "", "connections", "create", "--name", "gh", "--auth-type", "basic", "--username", "bot",
		"--secret", upstreamSecret)
	require.Equal(t, exitOK, r.code, r.stderr)
	requireNoSecret(t, r, "create --secret")
	require.Contains(t, r.stderr, "warning: a secret given with --secret may be kept in your shell history")
	require.Contains(t, r.stdout, "Created connection conn_new (gh)")
	body, _ = f.last()
	require.Equal(t, map[string]any{"name": "gh", "authType": "basic", "username": "bot", "secret": upstreamSecret}, body)

	// --json prints the envelope as received.
	r = cli(t, env, upstreamSecret, "connections", "create", "--name", "tok", "--auth-type", "bearer", "--secret-stdin", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	requireNoSecret(t, r, "create --json")
	var created map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &created), r.stdout)
	require.Equal(t, true, created["ok"])
	require.Equal(t, "conn_new", created["connection"].(map[string]any)["id"])
	require.Equal(t, "bearer", created["connection"].(map[string]any)["authType"])
	body, _ = f.last()
	require.Equal(t, upstreamSecret, body["secret"])
}

func TestConnectionsGetRotateDisableEnableRenameDelete(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "connections", "get", "conn_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `^ID:\s+conn_1\nName:\s+github\nAuth:\s+basic\nStatus:\s+active\nCreated:\s+2025-01-01T00:00:00Z\n`, r.stdout)
	require.Regexp(t, `Rotated:\s+never\n$`, r.stdout)
	r = cli(t, env, "", "connections", "get", "conn_1", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "conn_1", got["connection"].(map[string]any)["id"])

	// rotate sends the new secret (and username) only.
	r = cli(t, env, upstreamSecret+"\r\n", "connections", "rotate", "conn_1", "--secret-stdin", "--username", "bot2",
		"--idempotency-key", "idem-r")
	require.Equal(t, exitOK, r.code, r.stderr)
	requireNoSecret(t, r, "rotate")
	require.Contains(t, r.stdout, "Rotated connection conn_1 (github)\n")
	require.Regexp(t, `Rotated:\s+2025-01-02T00:00:00Z\n`, r.stdout)
	body, hdr := f.last()
	require.Equal(t, map[string]any{"secret": upstreamSecret, "username": "bot2"}, body)
	require.Equal(t, "idem-r", hdr.Get("Idempotency-Key"))
	require.Contains(t, f.requests, "PATCH /v1/connections/conn_1")

	r = cli(t, env, "", "connections", "rotate", "conn_1", "--secret", upstreamSecret, "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	requireNoSecret(t, r, "rotate --json")
	require.Contains(t, r.stderr, "warning: a secret given with --secret")
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "2025-01-02T00:00:00Z", got["connection"].(map[string]any)["rotatedAt"])
	body, _ = f.last()
	require.Equal(t, map[string]any{"secret": upstreamSecret}, body, "no --username: the username is kept")

	r = cli(t, env, "", "connections", "disable", "conn_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Disabled connection conn_1 (github)\n")
	require.Regexp(t, `Status:\s+disabled\n`, r.stdout)
	body, hdr = f.last()
	require.Equal(t, map[string]any{"disabled": true}, body)
	require.NotEmpty(t, hdr.Get("Idempotency-Key"))

	r = cli(t, env, "", "connections", "enable", "conn_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Enabled connection conn_1 (github)\n")
	require.Regexp(t, `Status:\s+active\n`, r.stdout)
	body, _ = f.last()
	require.Equal(t, map[string]any{"disabled": false}, body, "enable sends disabled: false explicitly")

	r = cli(t, env, "", "connections", "disable", "conn_1", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "disabled", got["connection"].(map[string]any)["status"])
	r = cli(t, env, "", "--json", "connections", "enable", "conn_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "active", got["connection"].(map[string]any)["status"])

	r = cli(t, env, "", "connections", "rename", "--name", "github-bot", "conn_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Renamed connection conn_1 (github-bot)\n")
	body, _ = f.last()
	require.Equal(t, map[string]any{"name": "github-bot"}, body)
	r = cli(t, env, "", "connections", "rename", "conn_1", "--name", "x", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "x", got["connection"].(map[string]any)["name"])

	r = cli(t, env, "", "connections", "delete", "conn_1", "--idempotency-key", "idem-d")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "Deleted connection conn_1 (github).\n", r.stdout)
	require.Contains(t, f.requests, "DELETE /v1/connections/conn_1")
	_, hdr = f.last()
	require.Equal(t, "idem-d", hdr.Get("Idempotency-Key"))
	r = cli(t, env, "", "connections", "delete", "conn_1", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, true, got["ok"])
}

func TestConnectionsAPIErrorsExitOne(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = servicesKey // lacks the connections scopes
	for cmd, scope := range map[string]string{
		"connections list": "connections:read", "connections list --all": "connections:read",
		"connections create --name n --auth-type bearer --secret-stdin": "connections:write",
		"connections get conn_1": "connections:read", "connections rotate conn_1 --secret-stdin": "connections:write",
		"connections disable conn_1": "connections:write", "connections enable conn_1": "connections:write",
		"connections rename conn_1 --name n": "connections:write", "connections delete conn_1": "connections:write",
	} {
		r := cli(t, env, upstreamSecret, strings.Fields(cmd)...)
		require.Equal(t, exitAPI, r.code, cmd)
		require.Equal(t, "error: scope_missing: this key lacks scope "+scope+" [req_fake]\n", r.stderr, cmd)
		require.Empty(t, r.stdout, cmd)

		r = cli(t, env, upstreamSecret, append(strings.Fields(cmd), "--json")...)
		require.Equal(t, exitAPI, r.code, cmd)
		requireNoSecret(t, r, cmd)
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), "%s: %s", cmd, r.stdout)
		require.Equal(t, false, e["ok"], cmd)
		require.Equal(t, "scope_missing", e["error"].(map[string]any)["code"], cmd)
	}

	env["SVC_API_KEY"] = goodKey
	for _, cmd := range []string{"connections get conn_missing", "connections rotate conn_missing --secret-stdin",
		"connections disable conn_missing", "connections enable conn_missing", "connections rename conn_missing --name n",
		"connections delete conn_missing"} {
		r := cli(t, env, upstreamSecret, strings.Fields(cmd)...)
		require.Equal(t, exitAPI, r.code, cmd)
		require.Equal(t, `error: not_found: no connection with id "conn_missing" [req_fake]`+"\n", r.stderr, cmd)
	}
	r := cli(t, env, upstreamSecret, "connections", "create", "--name", "taken", "--auth-type", "bearer", "--secret-stdin")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, `error: conflict: a connection named "taken" exists (name) [req_fake]`+"\n", r.stderr)
	require.Empty(t, r.stdout)

	// No API key: nothing is read or sent.
	r = cli(t, testEnv(t, f), upstreamSecret, "connections", "create", "--name", "n", "--auth-type", "bearer", "--secret-stdin")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: unauthenticated: no API key")
}

func TestConnectionsUsageErrorsNameTheFlag(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	create := func(extra ...string) []string {
		return append([]string{"connections", "create"}, extra...)
	}
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"connections"}, "", "Usage: svc connections"},
		{[]string{"connections", "bogus"}, "", `unknown command "connections bogus"`},
		{[]string{"connections", "list", "--limit", "0x"}, "", "-limit"},
		{[]string{"connections", "list", "--limit", "500"}, "", "--limit must be between 1 and 200"},
		{[]string{"connections", "list", "extra"}, "", `unexpected argument "extra"`},
		{create("--auth-type", "bearer", "--secret-stdin"), "s", "--name is required"},
		{create("--name", " ", "--auth-type", "bearer", "--secret-stdin"), "s", "--name must not be empty"},
		{create("--name", strings.Repeat("n", 101), "--auth-type", "bearer", "--secret-stdin"), "s", "--name has 101 characters"},
		{create("--name", "a\tb", "--auth-type", "bearer", "--secret-stdin"), "s", "--name must be valid text"},
		{create("--name", "n", "--secret-stdin"), "s", "--auth-type is required"},
		{create("--name", "n", "--auth-type", "oauth", "--secret-stdin"), "s", `--auth-type must be header, bearer or basic, not "oauth"`},
		{create("--name", "n", "--auth-type", "header", "--secret-stdin"), "s", "--header-name is required with --auth-type header"},
		{create("--name", "n", "--auth-type", "header", "--header-name", "X Key", "--secret-stdin"), "s", "--header-name must be an HTTP header name"},
		{create("--name", "n", "--auth-type", "bearer", "--header-name", "X-Key", "--secret-stdin"), "s", "--header-name applies only to --auth-type header"},
		{create("--name", "n", "--auth-type", "basic", "--secret-stdin"), "s", "--username is required with --auth-type basic"},
		{create("--name", "n", "--auth-type", "basic", "--username", "a:b", "--secret-stdin"), "s", "--username must not contain a colon"},
		{create("--name", "n", "--auth-type", "header", "--header-name", "X-Key", "--username", "u", "--secret-stdin"), "s", "--username applies only to --auth-type basic"},
		{create("--name", "n", "--auth-type", "bearer"), "s", "give the secret with --secret-stdin (or --secret) when svc cannot prompt"},
		{create("--name", "n", "--auth-type", "bearer", "--not-interactive"), "s", "--secret-stdin"},
		{create("--name", "n", "--auth-type", "bearer", "--secret", ""), "", "--secret is empty"},
		{create("--name", "n", "--auth-type", "bearer", "--secret", "x", "--secret-stdin"), "s", "use --secret or --secret-stdin, not both"},
		{create("--name", "n", "--auth-type", "bearer", "--secret-stdin"), "\n", "--secret-stdin: stdin holds no secret"},
		{create("--name", "n", "--auth-type", "bearer", "--secret-stdin"), "two\nlines", "the secret must be one line"},
		{create("--name", "n", "--auth-type", "bearer", "--secret-stdin"), strings.Repeat("s", 8193), "the secret is longer than 8192 bytes"},
		{create("--name", "n", "--auth-type", "bearer", "--bogus"), "", "-bogus"},
		{[]string{"connections", "get"}, "", "exactly one connection id"},
		{[]string{"connections", "get", "a", "b"}, "", "exactly one connection id"},
		{[]string{"connections", "rotate", "--secret-stdin"}, "s", "exactly one connection id"},
		{[]string{"connections", "rotate", "conn_1"}, "s", "give the secret with --secret-stdin"},
		{[]string{"connections", "rotate", "conn_1", "--secret-stdin", "--username", ""}, "s", "--username must not be empty"},
		{[]string{"connections", "rotate", "conn_1", "--secret-stdin", "--username", "a:b"}, "s", "--username must not contain a colon"},
		{[]string{"connections", "disable"}, "", "connections disable takes exactly one connection id"},
		{[]string{"connections", "enable", "a", "b"}, "", "connections enable takes exactly one connection id"},
		{[]string{"connections", "rename", "conn_1"}, "", "--name is required"},
		{[]string{"connections", "rename", "--name", "n"}, "", "exactly one connection id"},
		{[]string{"connections", "rename", "conn_1", "--name", ""}, "", "--name must not be empty"},
		{[]string{"connections", "delete"}, "", "exactly one connection id"},
	} {
		r := cli(t, env, tc.stdin, tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
		require.Empty(t, r.stdout, tc.args)
	}
	require.Empty(t, f.requests, "usage errors are found before any request")
}

func TestConnectionsSecretNeverPrinted(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
	}{
		{[]string{"connections", "create", "--name", "n", "--auth-type", "bearer", "--secret-stdin"}, upstreamSecret, exitOK},
		{[]string{"connections", "create", "--name", "n", "--auth-type", "bearer", "--secret", upstreamSecret}, "", exitOK},
		{[]string{"connections", "create", "--name", "taken", "--auth-type", "bearer", "--secret-stdin"}, upstreamSecret, exitAPI},
		{[]string{"connections", "create", "--name", "n", "--auth-type", "oauth", "--secret", upstreamSecret}, "", exitUsage},
		{[]string{"connections", "rotate", "conn_1", "--secret-stdin"}, upstreamSecret + "\n", exitOK},
		{[]string{"connections", "rotate", "conn_1", "--secret", upstreamSecret}, "", exitOK},
		{[]string{"connections", "rotate", "conn_missing", "--secret-stdin"}, upstreamSecret, exitAPI},
		// A secret typed as an argument (without --secret) is refused without being echoed.
		{[]string{"connections", "create", "--name", "n", "--auth-type", "bearer", upstreamSecret}, "", exitUsage},
		{[]string{"connections", "rotate", "conn_1", upstreamSecret}, "", exitUsage},
		// So is an invalid one.
		{[]string{"connections", "rotate", "conn_1", "--secret-stdin"}, upstreamSecret + "\x00", exitUsage},
		{[]string{"connections", "rotate", "conn_1", "--secret", upstreamSecret + "\n"}, "", exitUsage},
	} {
		for _, mode := range [][]string{nil, {"--json"}} {
			args := append(append([]string{}, tc.args...), mode...)
			r := cli(t, env, tc.stdin, args...)
			require.Equal(t, tc.code, r.code, "%v: %s", args, r.stderr)
			requireNoSecret(t, r, args)
		}
	}
}

func TestServicesInvoke(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "services", "invoke", "weather", "--operation", "forecast", "--input", `{"city":"Oslo","n":12345678901234567890}`,
		"--idempotency-key", "idem-i")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Empty(t, r.stderr)
	require.Regexp(t, `^Service:\s+weather\nOperation:\s+forecast\nStatus:\s+200 OK\nCharged:\s+0\.25 credits\n`+
		`Upstream request:\s+up_123\nRequest:\s+req_fake\nResult:\n\{\n  "city": \{\n    "city": "Oslo",\n`, r.stdout)
	require.Contains(t, r.stdout, `  "tempC": 21.5`+"\n}\n")
	body, hdr := f.last()
	require.Equal(t, "idem-i", hdr.Get("Idempotency-Key"))
	require.Equal(t, "forecast", body["operationId"])
	require.Contains(t, f.requests, "POST /v1/services/weather/invoke")

	// No upstream request id: no line; a string result is shown as JSON.
	r = cli(t, env, "", "services", "invoke", "weather", "--operation", "text")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NotContains(t, r.stdout, "Upstream request")
	require.Contains(t, r.stdout, "Result:\n\"plain text\"\n")

	// --json prints the envelope as received.
	r = cli(t, env, "", "--json", "services", "invoke", "weather", "--operation", "forecast")
	require.Equal(t, exitOK, r.code, r.stderr)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
	require.Equal(t, true, v["ok"])
	require.EqualValues(t, 200, v["status"])
	require.EqualValues(t, 0.25, v["chargedCredits"])

	// --input-file - reads stdin, keeping big numbers exact.
	r = cli(t, env, `{"city":"Bergen","n":12345678901234567890}`, "services", "invoke", "weather", "--operation", "forecast", "--input-file", "-")
	require.Equal(t, exitOK, r.code, r.stderr)
	f.mu.Lock()
	raw := f.lastRaw
	f.mu.Unlock()
	require.JSONEq(t, `{"operationId":"forecast","input":{"city":"Bergen","n":12345678901234567890}}`, raw)
	require.Contains(t, raw, "12345678901234567890")

	// The service answering >= 400: the result is still shown, stderr says so, exit 1.
	r = cli(t, env, "", "services", "invoke", "weather", "--operation", "broken")
	require.Equal(t, exitAPI, r.code)
	require.Regexp(t, `Status:\s+502 Bad Gateway\n`, r.stdout)
	require.Regexp(t, `Charged:\s+0 credits\n`, r.stdout)
	require.Contains(t, r.stdout, `"error": "upstream exploded"`)
	require.Contains(t, r.stderr, "error: service answered 502 Bad Gateway")
	r = cli(t, env, "", "services", "invoke", "weather", "--operation", "broken", "--json")
	require.Equal(t, exitAPI, r.code)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
	require.Equal(t, true, v["ok"])
	require.EqualValues(t, 502, v["status"])
	require.Contains(t, r.stderr, "service answered 502")
}

func TestServicesInvokeErrors(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	// Usage errors exit 2, name the flag and send nothing.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"services"}, "Usage: svc services"},
		{[]string{"services", "bogus"}, `unknown command "services bogus"`},
		{[]string{"services", "invoke", "--operation", "forecast"}, "exactly one service id"},
		{[]string{"services", "invoke", "a", "b", "--operation", "forecast"}, "exactly one service id"},
		{[]string{"services", "invoke", "weather"}, "--operation is required"},
		{[]string{"services", "invoke", "weather", "--operation", "o", "--input", "{bad"}, "input: not valid JSON"},
		{[]string{"services", "invoke", "weather", "--operation", "o", "--input", "[1]"}, "must be a JSON object"},
		{[]string{"services", "invoke", "weather", "--operation", "o", "--input", "{}", "--input-file", "x"}, "use --input or --input-file, not both"},
		{[]string{"services", "invoke", "weather", "--operation", "o", "--input-file", "/nonexistent/in.json"}, "--input-file"},
		{[]string{"services", "invoke", "weather", "--operation", "o", "--idempotency-key"}, "-idempotency-key"},
	} {
		r := cli(t, env, "", tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
		require.Empty(t, r.stdout, tc.args)
	}
	require.Empty(t, f.requests, "usage errors are found before any request")

	// API errors exit 1.
	r := cli(t, env, "", "services", "invoke", "nope", "--operation", "forecast")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, `error: not_found: no invocable service "nope" [req_fake]`+"\n", r.stderr)
	require.Empty(t, r.stdout)
	r = cli(t, env, "", "services", "invoke", "weather", "--operation", "missing", "--json")
	require.Equal(t, exitAPI, r.code)
	var e map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), r.stdout)
	require.Equal(t, false, e["ok"])
	require.Equal(t, "operationId", e["error"].(map[string]any)["param"])
	require.Contains(t, r.stderr, "error: invalid_request: ")

	env["SVC_API_KEY"] = servicesKey
	r = cli(t, env, "", "services", "invoke", "weather", "--operation", "forecast")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, "error: scope_missing: this key lacks scope services:invoke [req_fake]\n", r.stderr)
}
