package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"
)

// TestDeprecatedRouteSaysSoEverywhere: a deprecated route answers Deprecation (RFC 9745), Sunset
// (RFC 8594) and a successor Link on every answer, errors included, and its OpenAPI operation is marked
// deprecated with the sunset date; other routes carry none of it.
func TestDeprecatedRouteSaysSoEverywhere(t *testing.T) {
	t.Parallel()
	gin.SetMode(gin.TestMode)
	since := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	sunset := time.Date(2027, 5, 1, 0, 0, 0, 0, time.UTC)
	old := Route{Op: "legacy.claim", Method: http.MethodPost, Path: "/legacy/{token}/claim", Summary: "Old claim",
		Deprecated: &Deprecation{Since: since, Sunset: sunset, Successor: "/token-launches/{tokenAddress}/fees/claim"}}
	current := Route{Op: "current", Method: http.MethodGet, Path: "/current", Summary: "Current"}
	s := &Server{routes: map[string]*Route{}}
	for _, r := range []Route{old, current} {
		s.routes[r.Method+" "+ginPath(r.Path)] = &r
	}
	engine := gin.New()
	engine.Use(s.deprecationHeaders)
	engine.POST(ginPath(old.Path), func(c *gin.Context) { c.JSON(http.StatusForbidden, gin.H{"ok": false}) })
	engine.GET(current.Path, func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"ok": true}) })

	w := httptest.NewRecorder()
	engine.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/legacy/0xabc/claim", nil))
	require.Equal(t, http.StatusForbidden, w.Code)
	require.Equal(t, "@1793491200", w.Header().Get("Deprecation"))
	require.Equal(t, "Sat, 01 May 2027 00:00:00 GMT", w.Header().Get("Sunset"))
	require.Equal(t, `</token-launches/{tokenAddress}/fees/claim>; rel="successor-version"`, w.Header().Get("Link"))

	w = httptest.NewRecorder()
	engine.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/current", nil))
	require.Equal(t, http.StatusOK, w.Code)
	require.Empty(t, w.Header().Get("Deprecation"))
	require.Empty(t, w.Header().Get("Sunset"))

	op := old.operation()
	require.True(t, op.Deprecated)
	require.Equal(t, "2027-05-01T00:00:00Z", op.Extensions["x-svc-sunset"])
	require.Contains(t, op.Description, "Deprecated since 2026-11-01; served until 2027-05-01. Use `/token-launches/{tokenAddress}/fees/claim` instead.")
	require.False(t, current.operation().Deprecated)
}
