package api_test

import (
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/testdb"
)

func newBareServer(t *testing.T) *api.Server {
	t.Helper()
	key := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(key)
	box, err := secretbox.New(key)
	require.NoError(t, err)
	p, err := app.NewAPI(app.APIDeps{DB: testdb.New(t), Box: box, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test"})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p.Server
}

func fetchJSON(t *testing.T, h http.Handler, path string) map[string]any {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	require.Equal(t, http.StatusOK, rec.Code, "%s", rec.Body)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	return doc
}

// TestOpenAPIDocumentCoversEveryRoute checks the generated document against the route table.
func TestOpenAPIDocumentCoversEveryRoute(t *testing.T) {
	t.Parallel()
	s := newBareServer(t)
	doc := fetchJSON(t, s.Handler(), "/openapi.json")
	require.Equal(t, doc, fetchJSON(t, s.Handler(), "/v1/openapi.json"))
	require.Equal(t, "3.1.0", doc["openapi"])

	paths := doc["paths"].(map[string]any)
	routes := s.Routes()
	require.NotEmpty(t, routes)
	for _, r := range routes {
		item, ok := paths[r.Path].(map[string]any)
		require.True(t, ok, "path %s missing", r.Path)
		op, ok := item[strings.ToLower(r.Method)].(map[string]any)
		require.True(t, ok, "%s %s missing", r.Method, r.Path)
		if r.Scope != "" {
			require.Equal(t, r.LimitOp(), op["x-svc-limit-operation"], r.Path)
			require.Equal(t, r.Scope, op["x-svc-scope"], r.Path)
			require.NotEmpty(t, op["security"], "%s %s has no security", r.Method, r.Path)
		}
		responses := op["responses"].(map[string]any)
		require.Contains(t, responses, "400", "%s %s", r.Method, r.Path)
		hasIdem := false
		params, _ := op["parameters"].([]any)
		for _, p := range params {
			param := p.(map[string]any)
			if param["name"] == "Idempotency-Key" && param["in"] == "header" {
				hasIdem = param["required"] == true
			}
		}
		require.Equal(t, r.Idem, hasIdem, "%s %s idempotency header", r.Method, r.Path)
		if r.Idem {
			require.Contains(t, responses, "409")
			require.Contains(t, responses, "422")
			headers, _ := responses["409"].(map[string]any)["headers"].(map[string]any)
			require.Contains(t, headers, "Retry-After", "%s %s: 409 idempotency_in_flight sends Retry-After", r.Method, r.Path)
		}
		if r.Scope != "" {
			for _, code := range []string{"401", "403", "429"} {
				require.Contains(t, responses, code, "%s %s", r.Method, r.Path)
			}
		}
	}
	// Error answers share one schema: the envelope.
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	require.Contains(t, schemas, "ErrorEnvelope")
}

// TestOpenAPIServersLicenseAndServiceAccess: the document names its server (relative: the host serving it)
// and its license, and marks every operation that checks service access, whether the service id is in the
// path or in the body.
func TestOpenAPIServersLicenseAndServiceAccess(t *testing.T) {
	t.Parallel()
	s := newBareServer(t)
	doc := fetchJSON(t, s.Handler(), "/openapi.json")
	servers, _ := doc["servers"].([]any)
	require.Len(t, servers, 1)
	require.Equal(t, "/", servers[0].(map[string]any)["url"])
	license, _ := doc["info"].(map[string]any)["license"].(map[string]any)
	require.Equal(t, api.APILicense, license["name"])
	require.Equal(t, api.APILicenseID, license["identifier"])

	paths := doc["paths"].(map[string]any)
	access := func(method, path string) any {
		return paths[path].(map[string]any)[method].(map[string]any)["x-svc-service-access"]
	}
	require.Equal(t, "body:serviceId", access("post", "/v1/runs"))
	require.Equal(t, "body:serviceId", access("post", "/v1/approvals/service-actions"))
	require.Equal(t, "path:serviceId", access("post", "/v1/services/{serviceId}/invoke"))
	for _, r := range s.Routes() {
		got := access(strings.ToLower(r.Method), r.Path)
		switch {
		case r.Service != "":
			require.Equal(t, r.Service, got, "%s %s", r.Method, r.Path)
		case r.ServiceParam != "":
			require.Equal(t, "path:"+r.ServiceParam, got, "%s %s", r.Method, r.Path)
		case r.ServiceBody != "":
			require.Equal(t, "body:"+r.ServiceBody, got, "%s %s", r.Method, r.Path)
		case r.Service != "":
			require.Equal(t, r.Service, got, "%s %s", r.Method, r.Path)
		default:
			require.Nil(t, got, "%s %s", r.Method, r.Path)
		}
	}
}

// TestHostRootPublicRoutes pins where the public routes live: OpenAPI and the docs at the host root (health
// too, tested with a real Temporal elsewhere); pricing only under /v1 (seed 000 writes host-root routes as {host_url}/..., and lists
// /pricing, like every other relative path, under {base_url}). /pricing at the root is a 404 envelope.
func TestHostRootPublicRoutes(t *testing.T) {
	t.Parallel()
	s := newBareServer(t)
	h := s.Handler()
	for _, path := range []string{"/openapi.json", "/v1/openapi.json", "/docs", "/v1/pricing", "/v1/pricing?service=managed-workflows"} {
		require.Equal(t, http.StatusOK, get(t, h, path).Code, path)
	}
	root := get(t, h, "/pricing")
	require.Equal(t, http.StatusNotFound, root.Code)
	var env struct {
		OK    bool                  `json:"ok"`
		Error struct{ Code string } `json:"error"`
	}
	require.NoError(t, json.Unmarshal(root.Body.Bytes(), &env))
	require.False(t, env.OK)
	require.Equal(t, "not_found", env.Error.Code)
	require.NotContains(t, fetchJSON(t, h, "/openapi.json")["paths"], "/pricing")
}

// TestOpenAPIStatesSessionOnlyRoutes: a session-only route's only security is a web session and it says
// so (x-svc-session-only); a route that takes both lists the web session beside the API key.
func TestOpenAPIStatesSessionOnlyRoutes(t *testing.T) {
	t.Parallel()
	doc := fetchJSON(t, newBareServer(t).Handler(), "/openapi.json")
	paths := doc["paths"].(map[string]any)
	transfer := paths["/user/amm/execute-transfer-beneficiary"].(map[string]any)["post"].(map[string]any)
	require.Equal(t, []any{map[string]any{"webSession": []any{}}}, transfer["security"])
	require.Equal(t, true, transfer["x-svc-session-only"])
	require.Contains(t, transfer["description"], "not an API key")
	claim := paths["/token-launches/{tokenAddress}/fees/claim"].(map[string]any)["post"].(map[string]any)
	require.Contains(t, claim["security"], map[string]any{"webSession": []any{}})
	require.Contains(t, claim["security"], map[string]any{"apiKey": []any{}})
	require.Nil(t, claim["x-svc-session-only"])
	schemes := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	require.Contains(t, schemes, "webSession")
}
