package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

const testKey = "svc_sk_0123456789abcdefghijABCDEFGHIJKL123456"

// recorded is what a test server saw of one request.
type recorded struct {
	Method, Path, RawPath, Query string
	Header                       http.Header
	Body                         []byte
}

// recorder is an httptest server that records requests and answers with a handler.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
	srv  *httptest.Server
}

func newRecorder(t *testing.T, h http.HandlerFunc) *recorder {
	t.Helper()
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, recorded{Method: req.Method, Path: req.URL.Path, RawPath: req.URL.EscapedPath(),
			Query: req.URL.RawQuery, Header: req.Header.Clone(), Body: body})
		r.mu.Unlock()
		w.Header().Set("X-Request-Id", "req_test")
		h(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) last(t *testing.T) recorded {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	require.NotEmpty(t, r.reqs)
	return r.reqs[len(r.reqs)-1]
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func okRun(status string) map[string]any {
	return map[string]any{"ok": true, "run": map[string]any{
		"id": "run_1", "serviceId": "managed-workflows", "operationId": "echo", "status": status,
		"input": map[string]any{"a": 1.0}, "output": nil, "error": nil, "approvalId": nil, "chargedCredits": 0,
		"createdAt": "2025-01-01T00:00:00Z", "updatedAt": "2025-01-01T00:00:00Z", "completedAt": nil,
	}}
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestHeadersAndGeneratedIdempotencyKey(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusCreated, okRun("queued")) })
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey), client.WithProject("proj_1"),
		client.WithUserAgent("test-agent/1"))

	resp := c.CreateRun(context.Background(), client.CreateRunRequest{ServiceID: "managed-workflows", OperationID: "echo",
		Input: map[string]any{"a": 1}})
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, "run_1", resp.Body.Run.ID)
	require.Equal(t, "req_test", resp.RequestID)
	require.False(t, resp.Replayed)

	got := rec.last(t)
	require.Equal(t, http.MethodPost, got.Method)
	require.Equal(t, "/v1/runs", got.Path)
	require.Equal(t, "Bearer "+testKey, got.Header.Get("Authorization"))
	require.Equal(t, "proj_1", got.Header.Get("X-Svc-Project"))
	require.Equal(t, "application/json", got.Header.Get("Content-Type"))
	require.Equal(t, "test-agent/1", got.Header.Get("User-Agent"))
	require.Empty(t, got.Header.Get("X-Svc-Credit-Token"))
	key := got.Header.Get("Idempotency-Key")
	require.Regexp(t, uuidRE, key)
	require.Equal(t, key, resp.IdempotencyKey)
	require.JSONEq(t, `{"serviceId":"managed-workflows","operationId":"echo","input":{"a":1}}`, string(got.Body))

	// Each call without a key gets a fresh one.
	resp2 := c.CreateRun(context.Background(), client.CreateRunRequest{ServiceID: "managed-workflows", OperationID: "echo"})
	require.True(t, resp2.OK)
	require.NotEqual(t, key, rec.last(t).Header.Get("Idempotency-Key"))
}

func TestGivenIdempotencyKeyIsStable(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusCreated, okRun("queued")) })
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	for range 2 {
		resp := c.CreateRun(context.Background(), client.CreateRunRequest{ServiceID: "s", OperationID: "o"},
			client.WithIdempotencyKey("my-key-1"))
		require.True(t, resp.OK)
		require.Equal(t, "my-key-1", resp.IdempotencyKey)
		require.Equal(t, "my-key-1", rec.last(t).Header.Get("Idempotency-Key"))
	}
	// A retry reusing the returned key sends the same key again.
	first := c.RevokeAPIKey(context.Background(), "key_1")
	_ = c.RevokeAPIKey(context.Background(), "key_1", client.WithIdempotencyKey(first.IdempotencyKey))
	require.Equal(t, first.IdempotencyKey, rec.last(t).Header.Get("Idempotency-Key"))
}

func TestNonIdempotentRoutesSendNoKeyAndPublicRoutesNoAuth(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/health":
			writeJSON(w, http.StatusOK, map[string]any{"ok": true, "status": "ok", "apiVersion": "v1", "version": "dev",
				"checks": map[string]any{"postgres": map[string]any{"status": "ok", "latencyMs": 1}}})
		default:
			writeJSON(w, http.StatusOK, map[string]any{"ok": true, "services": []any{}})
		}
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey), client.WithProject("proj_1"))

	svcs := c.ListServices(context.Background())
	require.True(t, svcs.OK)
	got := rec.last(t)
	require.Equal(t, "/v1/services", got.Path)
	require.Empty(t, got.Header.Get("Idempotency-Key"))
	require.Empty(t, svcs.IdempotencyKey)
	require.Equal(t, "Bearer "+testKey, got.Header.Get("Authorization"))

	h := c.Health(context.Background())
	require.True(t, h.OK)
	require.Equal(t, "v1", h.Body.APIVersion)
	require.Equal(t, "ok", h.Body.Checks["postgres"].Status)
	got = rec.last(t)
	require.Empty(t, got.Header.Get("Authorization"), "public routes carry no credentials")
	require.Empty(t, got.Header.Get("X-Svc-Project"))
}

func TestCreditTokenOnlyWithoutAPIKey(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"ok": true, "apiKey": map[string]any{
			"id": "key_1", "name": "first", "secret": testKey, "prefix": testKey[:13], "scopes": []string{"runs:read"},
			"services": []string{"*"}, "limits": []any{}, "parentId": nil, "projectId": nil, "createdAt": "2025-01-01T00:00:00Z"}})
	})
	ctx := context.Background()

	boot := client.New(client.WithBaseURL(rec.srv.URL), client.WithCreditToken("jwt.token.here"))
	resp := boot.CreateAPIKey(ctx, client.CreateAPIKeyRequest{Name: "first"})
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Equal(t, testKey, resp.Body.APIKey.Secret)
	got := rec.last(t)
	require.Equal(t, "jwt.token.here", got.Header.Get("X-Svc-Credit-Token"))
	require.Empty(t, got.Header.Get("Authorization"))
	require.NotEmpty(t, got.Header.Get("Idempotency-Key"))
	require.JSONEq(t, `{"name":"first","scopes":null,"services":null}`, string(got.Body), "nil inherits")

	_ = boot.CreateAPIKey(ctx, client.CreateAPIKeyRequest{Scopes: []string{}, Services: []string{}})
	require.JSONEq(t, `{"scopes":[],"services":[]}`, string(rec.last(t).Body), "an empty list asks for none")

	// The credit token is never sent on other routes.
	_ = boot.ListAPIKeys(ctx, client.ListParams{})
	require.Empty(t, rec.last(t).Header.Get("X-Svc-Credit-Token"))

	// With an API key the key wins.
	both := client.New(client.WithBaseURL(rec.srv.URL), client.WithCreditToken("jwt.token.here"), client.WithAPIKey(testKey))
	_ = both.CreateAPIKey(ctx, client.CreateAPIKeyRequest{})
	got = rec.last(t)
	require.Equal(t, "Bearer "+testKey, got.Header.Get("Authorization"))
	require.Empty(t, got.Header.Get("X-Svc-Credit-Token"))
}

func TestErrorEnvelope(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusForbidden, map[string]any{"ok": false, "error": map[string]any{
			"code": "scope_missing", "message": "this key lacks scope runs:write", "requestId": "req_body",
			"param": "scope", "details": map[string]any{"requiredScope": "runs:write"}}})
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	resp := c.CreateRun(context.Background(), client.CreateRunRequest{ServiceID: "s", OperationID: "o"})
	require.False(t, resp.OK)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.NotNil(t, resp.Error)
	require.Equal(t, "scope_missing", resp.Error.Code)
	require.Equal(t, "this key lacks scope runs:write", resp.Error.Message)
	require.Equal(t, "req_body", resp.Error.RequestID)
	require.Equal(t, "scope", resp.Error.Param)
	require.Equal(t, "runs:write", resp.Error.Details["requiredScope"])
	require.Equal(t, "req_test", resp.RequestID, "X-Request-Id header")
	require.Error(t, resp.Err())
	require.JSONEq(t, `{"ok":false,"error":{"code":"scope_missing","message":"this key lacks scope runs:write","requestId":"req_body","param":"scope","details":{"requiredScope":"runs:write"}}}`, string(resp.Raw))
}

func TestErrorWithoutErrorObject(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "status": "degraded", "apiVersion": "v1",
			"checks": map[string]any{"postgres": map[string]any{"status": "down", "latencyMs": 2, "error": "unreachable"}}})
	})
	c := client.New(client.WithBaseURL(rec.srv.URL))
	resp := c.Health(context.Background())
	require.False(t, resp.OK)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, "unavailable", resp.Error.Code)
	require.Equal(t, "req_test", resp.Error.RequestID)
	require.Equal(t, "degraded", resp.Body.Status, "the body is still decoded")
	require.Equal(t, "down", resp.Body.Checks["postgres"].Status)
}

func TestReplayedFlag(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Idempotent-Replayed", "true")
		writeJSON(w, http.StatusCreated, okRun("queued"))
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	resp := c.CreateRun(context.Background(), client.CreateRunRequest{ServiceID: "s", OperationID: "o"})
	require.True(t, resp.OK)
	require.True(t, resp.Replayed)
}

func TestTransportError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c := client.New(client.WithBaseURL(base), client.WithAPIKey(testKey))

	resp := c.GetRun(context.Background(), "run_1")
	require.False(t, resp.OK)
	require.Equal(t, 0, resp.StatusCode)
	require.Equal(t, "transport_error", resp.Error.Code)
	require.NotEmpty(t, resp.Error.Message)

	// An idempotent call still reports the key it used, so it can be retried with it.
	created := c.CreateRun(context.Background(), client.CreateRunRequest{ServiceID: "s", OperationID: "o"})
	require.Equal(t, "transport_error", created.Error.Code)
	require.Regexp(t, uuidRE, created.IdempotencyKey)
}

func TestTimeoutIsTransportError(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	})
	defer close(block)
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	resp := c.ListServices(ctx)
	require.False(t, resp.OK)
	require.Equal(t, "transport_error", resp.Error.Code)
	require.Contains(t, resp.Error.Message, "deadline exceeded")
}

func TestInvalidResponse(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/v1/services" {
			w.WriteHeader(http.StatusBadGateway)
		}
		_, _ = io.WriteString(w, "<html>bad gateway</html>")
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))

	resp := c.GetRun(context.Background(), "run_1")
	require.False(t, resp.OK)
	require.Equal(t, "invalid_response", resp.Error.Code)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "<html>bad gateway</html>", string(resp.Raw))

	resp2 := c.ListServices(context.Background())
	require.False(t, resp2.OK)
	require.Equal(t, "invalid_response", resp2.Error.Code)
	require.Equal(t, http.StatusBadGateway, resp2.StatusCode)
	require.Equal(t, "req_test", resp2.RequestID)
}

func TestSuccessBodyOfWrongShapeIsInvalidResponse(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "run": "not an object"})
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	resp := c.GetRun(context.Background(), "run_1")
	require.False(t, resp.OK)
	require.Equal(t, "invalid_response", resp.Error.Code)
}

func TestBaseURLNormalisation(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                            client.DefaultBaseURL,
		"http://h:1":                  "http://h:1/v1",
		"http://h:1/":                 "http://h:1/v1",
		"http://h:1/v1":               "http://h:1/v1",
		"http://h:1/v1/":              "http://h:1/v1",
		" https://api.example.com/x ": "https://api.example.com/x/v1",
	} {
		require.Equal(t, want, client.NormalizeBaseURL(in), in)
		require.Equal(t, want, client.New(client.WithBaseURL(in)).BaseURL(), in)
	}
	require.Equal(t, client.DefaultBaseURL, client.New().BaseURL())

	// Host root and versioned base reach the same route.
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "actions": []any{}})
	})
	for _, base := range []string{rec.srv.URL, rec.srv.URL + "/", rec.srv.URL + "/v1", rec.srv.URL + "/v1/"} {
		resp := client.New(client.WithBaseURL(base), client.WithAPIKey(testKey)).ListActions(context.Background())
		require.True(t, resp.OK, base)
		require.Equal(t, "/v1/actions", rec.last(t).Path, base)
	}
}

func TestPathEscapingAndQuery(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"ok": false, "error": map[string]any{
			"code": "not_found", "message": "no such thing", "requestId": "req_x"}})
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	ctx := context.Background()

	resp := c.GetRun(ctx, "run_1/../../api-keys?x=1#f")
	require.Equal(t, "not_found", resp.Error.Code)
	got := rec.last(t)
	require.Equal(t, "/v1/runs/run_1%2F..%2F..%2Fapi-keys%3Fx=1%23f", got.RawPath)
	require.Empty(t, got.Query)

	_ = c.GetCapabilities(ctx, "my service")
	require.Equal(t, "/v1/capabilities/my%20service", rec.last(t).RawPath)

	_ = c.RevokeAPIKey(ctx, "key/1")
	got = rec.last(t)
	require.Equal(t, http.MethodDelete, got.Method)
	require.Equal(t, "/v1/api-keys/key%2F1", got.RawPath)

	_ = c.ListAPIKeys(ctx, client.ListParams{Limit: 10, Cursor: "a+b/c=="})
	got = rec.last(t)
	require.Equal(t, "/v1/api-keys", got.Path)
	require.Equal(t, "cursor=a%2Bb%2Fc%3D%3D&limit=10", got.Query)

	_ = c.Pricing(ctx, "managed-workflows")
	require.Equal(t, "service=managed-workflows", rec.last(t).Query)
	_ = c.OpenAPI(ctx)
	require.Equal(t, "/v1/openapi.json", rec.last(t).Path)
}

func TestEmptyIDIsRejectedLocally(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { calls.Add(1) })
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	r := c.GetRun(context.Background(), "")
	require.False(t, r.OK)
	require.Equal(t, "invalid_request", r.Error.Code)
	require.Equal(t, "runId", r.Error.Param)
	require.Equal(t, 0, r.StatusCode)
	require.Equal(t, "invalid_request", c.RevokeAPIKey(context.Background(), "").Error.Code)
	require.Equal(t, "invalid_request", c.GetCapabilities(context.Background(), "").Error.Code)
	require.Zero(t, calls.Load())
}

func TestWaitRunPollsUntilFinished(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		switch n.Add(1) {
		case 1:
			writeJSON(w, http.StatusOK, okRun("queued"))
		case 2:
			w.Header().Set("Retry-After", "0")
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "error": map[string]any{
				"code": "unavailable", "message": "try again", "requestId": "req_u"}})
		case 3:
			writeJSON(w, http.StatusOK, okRun("running"))
		default:
			writeJSON(w, http.StatusOK, okRun("succeeded"))
		}
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	var seen []string
	resp := c.WatchRun(context.Background(), "run_1", time.Millisecond, func(r client.Response[client.RunEnvelope]) {
		if r.OK {
			seen = append(seen, r.Body.Run.Status)
		} else {
			seen = append(seen, r.Error.Code)
		}
	})
	require.True(t, resp.OK)
	require.Equal(t, client.RunSucceeded, resp.Body.Run.Status)
	require.Equal(t, []string{"queued", "unavailable", "running", "succeeded"}, seen)
	require.Equal(t, "/v1/runs/run_1", rec.last(t).Path)
}

func TestWaitRunStopsOnPermanentErrorAndContext(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/runs/run_missing" {
			writeJSON(w, http.StatusNotFound, map[string]any{"ok": false, "error": map[string]any{
				"code": "not_found", "message": "no run", "requestId": "req_n"}})
			return
		}
		writeJSON(w, http.StatusOK, okRun("running"))
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))

	resp := c.WaitRun(context.Background(), "run_missing", time.Millisecond)
	require.False(t, resp.OK)
	require.Equal(t, "not_found", resp.Error.Code)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	resp = c.WaitRun(ctx, "run_1", 5*time.Millisecond)
	require.Error(t, ctx.Err())
	if resp.OK {
		require.False(t, resp.Body.Run.Finished())
	} else {
		require.Equal(t, "transport_error", resp.Error.Code)
	}
}

func TestNewIdempotencyKey(t *testing.T) {
	t.Parallel()
	a, b := client.NewIdempotencyKey(), client.NewIdempotencyKey()
	require.Regexp(t, uuidRE, a)
	require.NotEqual(t, a, b)
}

func TestWithHeader(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusCreated, okRun("queued")) })
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	_ = c.CreateRun(context.Background(), client.CreateRunRequest{ServiceID: "s", OperationID: "o"}, client.WithHeader("X-Extra", "1"))
	require.Equal(t, "1", rec.last(t).Header.Get("X-Extra"))
}

func TestUnencodableBody(t *testing.T) {
	t.Parallel()
	c := client.New(client.WithBaseURL("http://127.0.0.1:1"), client.WithAPIKey(testKey))
	resp := c.CreateRun(context.Background(), client.CreateRunRequest{ServiceID: "s", OperationID: "o",
		Input: map[string]any{"ch": make(chan int)}})
	require.False(t, resp.OK)
	require.Equal(t, "invalid_request", resp.Error.Code)
	require.Equal(t, 0, resp.StatusCode)
}
