package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// rawDo sends a request exactly as given (body bytes, headers; no Content-Type unless set) and decodes
// the answer.
func rawDo(t *testing.T, env *apptest.Env, method, path string, body []byte, headers map[string]string) *apptest.Response {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, env.URL+path, r)
	require.NoError(t, err)
	for k, v := range headers {
		req.Header[http.CanonicalHeaderKey(k)] = []string{v} // unvalidated, as a hostile client sends it
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := &apptest.Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	require.NoError(t, json.Unmarshal(raw, &out.Body), "%s", raw)
	return out
}

// goNames are what answers must never show: Go's type and field names from encoding/json.
var goNames = regexp.MustCompile(`Go (struct field|value)|of type (u?int|float|string|map)|json: `)

// TestStrictInputRefusals checks each rule of the edge decoder through the real server: status, code and
// the field named, and that nothing was written.
func TestStrictInputRefusals(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	runsBefore, projectsBefore := countRows(t, env, "runs"), countRows(t, env, "projects")
	jsonH := func(idem string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + root, "Idempotency-Key": idem, "Content-Type": "application/json"}
	}
	run := func(extra string) []byte {
		return []byte(`{"serviceId":"managed-workflows","operationId":"echo"` + extra + `}`)
	}
	deep := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	cases := []struct {
		name    string
		method  string
		path    string
		body    []byte
		headers map[string]string
		status  int
		code    string
		param   string
	}{
		{"NUL in a name", "POST", "/v1/projects", []byte(`{"name":"a\u0000b"}`), jsonH("p1"), 400, "invalid_request", "name"},
		{"newline in a name", "POST", "/v1/projects", []byte(`{"name":"a\nb"}`), jsonH("p2"), 400, "invalid_request", "name"},
		{"control character in a description", "POST", "/v1/projects", []byte(`{"name":"a","description":"\u0007"}`), jsonH("p3"), 400, "invalid_request", "description"},
		{"invalid UTF-8", "POST", "/v1/projects", []byte("{\"name\":\"a\xff\"}"), jsonH("p4"), 400, "invalid_request", "name"},
		{"lone surrogate", "POST", "/v1/runs", run(`,"input":{"x":"\ud800"}`), jsonH("r1"), 400, "invalid_request", "input.x"},
		{"NUL in run input", "POST", "/v1/runs", run(`,"input":{"x":["\u0000"]}`), jsonH("r2"), 400, "invalid_request", "input.x[0]"},
		{"NUL in an input key", "POST", "/v1/runs", run(`,"input":{"a\u0000":1}`), jsonH("r3"), 400, "invalid_request", "input"},
		{"duplicate key", "POST", "/v1/runs", []byte(`{"serviceId":"nope","serviceId":"managed-workflows","operationId":"echo"}`), jsonH("r4"), 400, "invalid_request", "serviceId"},
		{"65 levels", "POST", "/v1/runs", run(`,"input":` + deep(64)), jsonH("r5"), 400, "invalid_request", "input" + strings.Repeat(".a", 63)},
		{"9998 levels", "POST", "/v1/runs", run(`,"input":` + deep(9997)), jsonH("r6"), 400, "invalid_request", "input" + strings.Repeat(".a", 63)},
		{"1e400", "POST", "/v1/runs", run(`,"input":{"x":1e400}`), jsonH("r7"), 400, "invalid_request", "input.x"},
		{"integer beyond 2^53", "POST", "/v1/runs", run(`,"input":{"x":9007199254740993}`), jsonH("r8"), 400, "invalid_request", "input.x"},
		{"1e19 for an integer", "POST", "/v1/runs", run(`,"requireApproval":true,"approvalExpiresInSeconds":1e19`), jsonH("r9"), 400, "invalid_request", "approvalExpiresInSeconds"},
		{"3.0 for an integer", "POST", "/v1/approvals/service-actions", run(`,"expiresInSeconds":3.0`), jsonH("r10"), 400, "invalid_request", "expiresInSeconds"},
		{"1e19 in a nested integer", "POST", "/v1/api-keys", []byte(`{"limits":[{"operation":"runs.create","requestsPerMinute":1e19}]}`), jsonH("k1"), 400, "invalid_request", "limits[0].requestsPerMinute"},
		{"1e400 for a number", "POST", "/v1/credits/x402/top-up", []byte(`{"amountUsd":1e400}`), jsonH("t1"), 400, "invalid_request", "amountUsd"},
		{"no Content-Type", "POST", "/v1/projects", []byte(`{"name":"x"}`), map[string]string{"Authorization": "Bearer " + root, "Idempotency-Key": "c1"}, 415, "unsupported_media_type", "Content-Type"},
		{"text/plain", "POST", "/v1/runs", run(""), map[string]string{"Authorization": "Bearer " + root, "Idempotency-Key": "c2", "Content-Type": "text/plain"}, 415, "unsupported_media_type", "Content-Type"},
		{"JSON in Latin-1", "POST", "/v1/runs", run(""), map[string]string{"Authorization": "Bearer " + root, "Idempotency-Key": "c3", "Content-Type": "application/json; charset=iso-8859-1"}, 415, "unsupported_media_type", "Content-Type"},
		{"NUL in a path id", "GET", "/v1/runs/run_%00", nil, jsonH(""), 400, "invalid_request", "runId"},
		{"NUL in a path id, idempotent", "POST", "/v1/runs/run_%00/cancel", nil, jsonH("x1"), 400, "invalid_request", "runId"},
		{"NUL in a query filter", "GET", "/v1/runs?serviceId=%00", nil, jsonH(""), 400, "invalid_request", "serviceId"},
		{"invalid UTF-8 in a query filter", "GET", "/v1/approvals?status=%ff", nil, jsonH(""), 400, "invalid_request", "status"},
		{"NUL in a query name", "GET", "/v1/runs?a%00=1", nil, jsonH(""), 400, "invalid_request", `"a\x00"`},
		{"malformed query", "GET", "/v1/runs?a=%zz", nil, jsonH(""), 400, "invalid_request", ""},
		{"tab in a header", "GET", "/v1/runs", nil, map[string]string{"Authorization": "Bearer " + root, "X-Svc-Project": "proj_\tx"}, 400, "invalid_request", "X-Svc-Project"},
		{"invalid UTF-8 in a header", "GET", "/v1/runs", nil, map[string]string{"Authorization": "Bearer " + root, "X-Svc-Project": "proj_\xff"}, 400, "invalid_request", "X-Svc-Project"},
		{"without a key, authentication comes first", "GET", "/v1/runs/run_%00", nil, nil, 401, "unauthenticated", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawDo(t, env, tc.method, tc.path, tc.body, tc.headers)
			require.Equal(t, tc.status, resp.Status, "%s", resp.Raw)
			e := errorOf(resp)
			require.Equal(t, tc.code, e["code"], "%s", resp.Raw)
			require.Equal(t, resp.Header.Get("X-Request-Id"), e["requestId"])
			if tc.param == "" {
				require.Nil(t, e["param"], "%s", resp.Raw)
			} else {
				require.Equal(t, tc.param, e["param"], "%s", resp.Raw)
			}
			require.NotRegexp(t, goNames, e["message"])
		})
	}
	require.Equal(t, runsBefore, countRows(t, env, "runs"), "a refused request wrote a run")
	require.Equal(t, projectsBefore, countRows(t, env, "projects"), "a refused request wrote a project")
}

// TestStrictInputAccepts checks what the rules let through and that it is stored and served back as
// sent: free-text white space, escaped backslashes, characters outside the BMP, 64 levels of nesting.
func TestStrictInputAccepts(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	h := func(idem, ct string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + root, "Idempotency-Key": idem, "Content-Type": ct}
	}
	proj := rawDo(t, env, "POST", "/v1/projects", []byte(`{"name":"a 😀","description":"line\none\ttab\r\n"}`), h("p", "application/json; charset=UTF-8"))
	require.Equal(t, http.StatusCreated, proj.Status, "%s", proj.Raw)
	require.Equal(t, "line\none\ttab\r\n", proj.Body["project"].(map[string]any)["description"])
	require.Equal(t, "a 😀", proj.Body["project"].(map[string]any)["name"])

	// 64 levels in all: the body, input, and 62 more.
	input := `{"text":"a\\u0000b \"q\" it's\n","deep":` + strings.Repeat(`[`, 62) + strings.Repeat(`]`, 62) + `}`
	created := rawDo(t, env, "POST", "/v1/runs", []byte(`{"serviceId":"managed-workflows","operationId":"echo","input":`+input+`}`), h("r", "application/json"))
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	id := created.Body["run"].(map[string]any)["id"].(string)
	done := waitRun(t, env, root, id, "succeeded")
	var want map[string]any
	require.NoError(t, json.Unmarshal([]byte(input), &want))
	require.Equal(t, want, done["input"])
	require.Equal(t, want, done["output"])
	require.Equal(t, "a\\u0000b \"q\" it's\n", done["output"].(map[string]any)["text"])
}

// TestNULNeverA500 sends a NUL in every path parameter, in a query parameter and in a string field of
// the body of every route in the route table: each answer is 400 naming the field, never a 500.
func TestNULNeverA500(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	doc := env.Server.OpenAPI()
	param := regexp.MustCompile(`\{([^}]+)\}`)
	n, session := 0, ""
	for _, r := range env.Server.Routes() {
		caller := root
		if r.SessionOnly { // these take a web session, never a key
			if session == "" {
				session = ownerSession(t, env, root)
			}
			caller = session
		}
		headers := map[string]string{"Authorization": "Bearer " + caller, "Idempotency-Key": fmt.Sprint("nul-", n), "Content-Type": "application/json"}
		check := func(what, path string, body []byte, wantParam string) {
			n++
			resp := rawDo(t, env, r.Method, path, body, headers)
			require.Equal(t, http.StatusBadRequest, resp.Status, "%s %s (%s): %s", r.Method, path, what, resp.Raw)
			require.Equal(t, "invalid_request", resp.ErrorCode(), "%s %s: %s", r.Method, path, resp.Raw)
			require.Equal(t, wantParam, errorOf(resp)["param"], "%s %s (%s): %s", r.Method, path, what, resp.Raw)
		}
		clean := param.ReplaceAllString(r.Path, "x_1")
		for i, m := range param.FindAllStringSubmatch(r.Path, -1) {
			k := 0
			path := param.ReplaceAllStringFunc(r.Path, func(string) string {
				k++
				if k == i+1 {
					return "x_%00"
				}
				return "x_1"
			})
			check("path", path, nil, m[1])
		}
		check("query", clean+"?serviceId=%00", nil, "serviceId")
		for _, field := range stringFields(doc.Paths[r.Path], r.Method, doc.Components.Schemas) {
			check("body", clean, []byte(`{"`+field+`":"a\u0000b"}`), field)
		}
	}
	require.GreaterOrEqual(t, n, 80, "requests sent")
}

// ownerSession links a fresh address to the account of the owner's key and signs in with it: the web
// session token.
func ownerSession(t *testing.T, env *apptest.Env, owner string) string {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	linkAddress(t, env, owner, key)
	text, sig := siweMessage(t, key, siweNonce(t, env), nil)
	r := signIn(t, env, text, sig)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	return r.Body["token"].(string)
}

// stringFields are the string properties of the route's JSON body, by name.
func stringFields(item *huma.PathItem, method string, reg huma.Registry) []string {
	ops := map[string]*huma.Operation{http.MethodPost: item.Post, http.MethodPatch: item.Patch, http.MethodPut: item.Put, http.MethodDelete: item.Delete}
	op := ops[method]
	if op == nil || op.RequestBody == nil || op.RequestBody.Content["application/json"] == nil {
		return nil
	}
	s := op.RequestBody.Content["application/json"].Schema
	if s.Ref != "" {
		s = reg.SchemaFromRef(s.Ref)
	}
	names := make([]string, 0, len(s.Properties))
	for name, p := range s.Properties {
		if p.Type == "string" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}
