package api_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/testbrowser"
)

// attrURL matches the src and href attributes of an HTML page.
var attrURL = regexp.MustCompile(`(?i)\b(?:src|href|spec-url)\s*=\s*"([^"]*)"`)

// TestDocsServedFromTheBinary: /docs references nothing outside this host, and every asset it references
// is served here (not from a CDN).
func TestDocsServedFromTheBinary(t *testing.T) {
	t.Parallel()
	h := newBareServer(t).Handler()
	page := get(t, h, "/docs")
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Header().Get("Content-Type"), "text/html")
	require.Contains(t, page.Header().Get("Content-Security-Policy"), "default-src 'self'")
	body := page.Body.String()
	require.NotContains(t, body, "//", "no absolute or protocol-relative URL: nothing from another host")
	refs := attrURL.FindAllStringSubmatch(body, -1)
	require.Len(t, refs, 2, "the spec and the viewer script")
	for _, ref := range refs {
		require.True(t, strings.HasPrefix(ref[1], "/"), "%s is a path on this host", ref[1])
		asset := get(t, h, ref[1])
		require.Equal(t, http.StatusOK, asset.Code, ref[1])
		require.Greater(t, asset.Body.Len(), 1000, ref[1])
	}
	require.Contains(t, get(t, h, "/docs/assets/LICENSE").Body.String(), "MIT License")
}

// TestDocsRenderOffline loads /docs in a headless Chromium that can reach only 127.0.0.1: Redoc renders the
// API's title and its operations from the embedded viewer and /openapi.json.
func TestDocsRenderOffline(t *testing.T) {
	t.Parallel()
	bin := testbrowser.Require(t, "this test renders /docs in a browser")
	srv := httptest.NewServer(newBareServer(t).Handler())
	t.Cleanup(srv.Close)
	dom := testbrowser.DumpDOM(t, bin, srv.URL+"/docs", 20*time.Second)
	require.Contains(t, dom, "redoc-wrap", "Redoc ran")
	require.Regexp(t, `<h1[^>]*>svc platform API`, dom, "the API's title is rendered as a heading")
	require.Contains(t, dom, "Server-owned price and availability catalog", "operations from /openapi.json are rendered")
}

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}
