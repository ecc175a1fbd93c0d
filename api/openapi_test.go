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
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/testdb"
)

func newBareServer(t *testing.T) *api.Server {
	t.Helper()
	key := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(key)
	box, err := secretbox.New(key)
	require.NoError(t, err)
	s, err := api.New(api.Deps{DB: testdb.New(t), Box: box, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test"})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
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
