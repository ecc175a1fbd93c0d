package api_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/api"
)

// TestLegacyClaimEndpointsAreDeprecated: seed 002's four legacy claim endpoints are served, and every
// answer (errors included) carries Deprecation, Sunset and a Link to the route that replaces them; the
// OpenAPI document marks each deprecated with its sunset, and their successors are not.
func TestLegacyClaimEndpointsAreDeprecated(t *testing.T) {
	t.Parallel()
	s := newBareServer(t)
	legacy := []struct{ method, path, doc, successor string }{
		{http.MethodPost, "/token-launches/0x0000000000000000000000000000000000000001/claim", "/token-launches/{tokenAddress}/claim",
			"/token-launches/{tokenAddress}/fees/claim"},
		{http.MethodGet, "/public/amm/claimable/0x0000000000000000000000000000000000000001", "/public/amm/claimable/{tokenAddress}",
			"/public/amm/claimable-fees/{tokenAddress}"},
		{http.MethodPost, "/public/amm/claim-transactions", "/public/amm/claim-transactions", "/public/amm/build-claim"},
		{http.MethodPost, "/public/amm/transfer-beneficiary-transaction", "/public/amm/transfer-beneficiary-transaction",
			"/public/amm/build-transfer-beneficiary"},
	}
	doc := fetchJSON(t, s.Handler(), "/openapi.json")
	paths := doc["paths"].(map[string]any)
	for _, l := range legacy {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(l.method, l.path, nil))
		require.NotEqual(t, http.StatusNotFound, rec.Code, "%s %s is served: %s", l.method, l.path, rec.Body)
		require.Equal(t, "@1795651200", rec.Header().Get("Deprecation"), "%s %s", l.method, l.path)
		require.Equal(t, api.LegacyClaimSunset.Format(http.TimeFormat), rec.Header().Get("Sunset"), "%s %s", l.method, l.path)
		require.Equal(t, "<"+l.successor+`>; rel="successor-version"`, rec.Header().Get("Link"), "%s %s", l.method, l.path)

		op := paths[l.doc].(map[string]any)[map[string]string{http.MethodGet: "get", http.MethodPost: "post"}[l.method]].(map[string]any)
		require.Equal(t, true, op["deprecated"], "%s %s in the OpenAPI document", l.method, l.doc)
		require.Equal(t, "2027-05-31T00:00:00Z", op["x-svc-sunset"])
		succ := paths[l.successor].(map[string]any)
		for _, o := range succ {
			require.Nil(t, o.(map[string]any)["deprecated"], "%s is not deprecated", l.successor)
		}

		rec = httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(l.method, "/public/amm/build-claim", nil))
		require.Empty(t, rec.Header().Get("Deprecation"), "the successors carry no deprecation headers")
	}
}
