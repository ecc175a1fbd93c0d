package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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
		f.serveProjectsUsageAuditCredits(w, r, need)
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

// serveProjectsUsageAuditCredits answers the projects, usage, audit-event and credit routes.
func (f *fakeAPI) serveProjectsUsageAuditCredits(w http.ResponseWriter, r *http.Request, need func(string) bool) {
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
