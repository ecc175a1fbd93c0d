package main

import (
	"bytes"
	"encoding/json"
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
	f.lastHdr = r.Header.Clone()
	f.lastBody = nil
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
	scopes := map[string][]string{goodKey: {"api_keys:manage", "runs:read", "runs:write", "services:read"},
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
	if r.Method == http.MethodPost || r.Method == http.MethodDelete {
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
	} {
		r := cli(t, testEnv(t, nil), "", args...)
		require.Equal(t, exitOK, r.code, args)
		require.Contains(t, r.stdout, "Usage:", args)
	}
	r := cli(t, testEnv(t, nil), "", "help")
	for _, cmd := range []string{"login", "whoami", "keys create", "keys list", "keys revoke", "runs create", "runs get", "--json", "--not-interactive"} {
		require.Contains(t, r.stdout, cmd)
	}
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
