package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// contentServer answers the content route with the given headers and body, and records the request.
func contentServer(t *testing.T, header http.Header, body []byte, got *http.Request) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = *r.Clone(context.Background())
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestDownloadArtifactVerifiesWhatArrives: the SDK keeps a download only when its length and SHA-256
// match the headers, and refuses answers it cannot verify.
func TestDownloadArtifactVerifiesWhatArrives(t *testing.T) {
	t.Parallel()
	body := []byte("the artifact's bytes")
	good := http.Header{"Content-Type": {"text/plain"}, "X-Content-Sha256": {digest(body)},
		"Content-Disposition": {`attachment; filename="out.txt"`}, "X-Request-Id": {"req_1"}}
	for _, tc := range []struct {
		name   string
		header http.Header
		body   []byte
		w      io.Writer
		code   string
	}{
		{"matching", good, body, nil, ""},
		{"other bytes", good, []byte("the artifact's BYTES"), nil, client.CodeContentMismatch},
		{"upper-case digest", http.Header{"X-Content-Sha256": {string(bytes.ToUpper([]byte(digest(body))))}}, body, nil, ""},
		{"no digest", http.Header{"Content-Type": {"text/plain"}}, body, nil, client.CodeInvalidResponse},
		{"malformed digest", http.Header{"X-Content-Sha256": {"abc"}}, body, nil, client.CodeInvalidResponse},
		{"short body", http.Header{"X-Content-Sha256": {digest(body)}, "Content-Length": {strconv.Itoa(len(body) + 10)}}, body, nil, client.CodeTransportError},
		{"failing writer", good, body, failingWriter{}, client.CodeWriteFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var req http.Request
			srv := contentServer(t, tc.header, tc.body, &req)
			c := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey(testKey), client.WithProject("proj_1"))
			var buf bytes.Buffer
			w := tc.w
			if w == nil {
				w = &buf
			}
			resp := c.DownloadArtifact(context.Background(), "art_1/x", w, nil)
			require.Equal(t, "/v1/artifacts/art_1%2Fx/content", req.URL.EscapedPath())
			require.Equal(t, "Bearer "+testKey, req.Header.Get("Authorization"))
			require.Equal(t, "proj_1", req.Header.Get("X-Svc-Project"))
			if tc.code == "" {
				require.True(t, resp.OK, "%v", resp.Error)
				require.Equal(t, body, buf.Bytes())
				require.Equal(t, digest(body), resp.Body.SHA256)
				require.Equal(t, int64(len(body)), resp.Body.SizeBytes)
				return
			}
			require.False(t, resp.OK)
			require.Equal(t, tc.code, resp.Error.Code, "%v", resp.Error)
		})
	}
}

// TestOpenArtifactNamesAndErrors: OpenArtifact reads the name from Content-Disposition, and a failure
// answer is decoded like every other call's.
func TestOpenArtifactNamesAndErrors(t *testing.T) {
	t.Parallel()
	body := []byte("ü")
	var req http.Request
	srv := contentServer(t, http.Header{"X-Content-Sha256": {digest(body)}, "Content-Type": {"text/plain"},
		"Content-Disposition": {"attachment; filename*=utf-8''r%C3%A9sum%C3%A9.txt"}}, body, &req)
	c := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey(testKey))
	resp := c.OpenArtifact(context.Background(), "art_1")
	require.True(t, resp.OK, "%v", resp.Error)
	require.Equal(t, "résumé.txt", resp.Body.Name)
	require.Equal(t, "text/plain", resp.Body.ContentType)
	got, err := io.ReadAll(resp.Body.Body)
	require.NoError(t, err)
	require.Equal(t, body, got)
	require.NoError(t, resp.Body.Body.Close())

	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_2")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"ok":false,"error":{"code":"service_access_denied","message":"no","details":{"serviceId":"s"}}}`))
	}))
	t.Cleanup(failing.Close)
	c = client.New(client.WithBaseURL(failing.URL), client.WithAPIKey(testKey))
	resp = c.OpenArtifact(context.Background(), "art_1")
	require.False(t, resp.OK)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Equal(t, client.CodeServiceAccessDenied, resp.Error.Code)
	require.Equal(t, "s", resp.Error.Details["serviceId"])
	require.Equal(t, "req_2", resp.Error.RequestID)
	require.Contains(t, string(resp.Raw), "service_access_denied")
	require.Nil(t, resp.Body)

	list := client.New(client.WithBaseURL(failing.URL)).ListArtifacts(context.Background(), client.ListArtifactsParams{RunID: "run_1"})
	require.False(t, list.OK)
	require.Equal(t, client.CodeServiceAccessDenied, list.Error.Code)
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		require.Equal(t, want, client.FormatBytes(n), "%d", n)
	}
}
