package client_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// uploadSeen is what the fake upload route received.
type uploadSeen struct {
	header http.Header
	length int64
	body   []byte
	query  string
}

// filesServer answers every request with a file envelope and records it.
func filesServer(t *testing.T, seen *uploadSeen) *client.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.header, seen.length, seen.query = r.Header.Clone(), r.ContentLength, r.URL.RawQuery
		seen.body, _ = io.ReadAll(r.Body)
		stored := digest(seen.body)
		if r.Header.Get("X-Lie") != "" {
			stored = digest([]byte("other"))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"ok":true,"file":{"id":"file_1","name":"a.txt","bytes":5,"sha256":"`+stored+`"},"files":[]}`)
	}))
	t.Cleanup(srv.Close)
	return client.New(client.WithBaseURL(srv.URL+"/v1"), client.WithAPIKey("sk_test"))
}

// TestUploadFileStreamsWithHeaders: the upload sends the raw body with its headers, computes the SHA-256
// of a seekable body first, and sends a non-seekable one without it.
func TestUploadFileStreamsWithHeaders(t *testing.T) {
	t.Parallel()
	var seen uploadSeen
	c := filesServer(t, &seen)
	body := []byte("hello")
	var progressed int64
	resp := c.UploadFile(context.Background(), client.UploadFileRequest{Name: "a.txt", MediaType: "text/plain",
		Purpose: "inputs", Size: int64(len(body)), Body: bytes.NewReader(body),
		Progress: func(done, _ int64) { progressed = done }})
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Equal(t, "file_1", resp.Body.File.ID)
	require.Equal(t, body, seen.body)
	require.Equal(t, int64(5), seen.length)
	require.Equal(t, "a.txt", seen.header.Get("X-File-Name"))
	require.Equal(t, "inputs", seen.header.Get("X-Svc-File-Purpose"))
	require.Equal(t, "text/plain", seen.header.Get("Content-Type"))
	require.Equal(t, digest(body), seen.header.Get("X-Content-Sha256"))
	require.NotEmpty(t, seen.header.Get("Idempotency-Key"))
	require.Equal(t, int64(5), progressed)

	resp = c.UploadFile(context.Background(), client.UploadFileRequest{Name: "b.bin", Size: 5,
		Body: io.MultiReader(strings.NewReader("hel"), strings.NewReader("lo"))})
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Equal(t, body, seen.body)
	require.Empty(t, seen.header.Get("X-Content-Sha256"))
	require.Equal(t, "application/octet-stream", seen.header.Get("Content-Type"))

	// The server answers a file of other bytes than the ones sent: the SDK notices.
	resp = c.UploadFile(context.Background(), client.UploadFileRequest{Name: "c.bin", Size: 5,
		Body: io.MultiReader(strings.NewReader("hello"))}, client.WithHeader("X-Lie", "1"))
	require.False(t, resp.OK)
	require.Equal(t, client.CodeContentMismatch, resp.Error.Code)

	require.Equal(t, client.CodeInvalidRequest, c.UploadFile(context.Background(), client.UploadFileRequest{Size: 1,
		Body: strings.NewReader("x")}).Error.Code)
}

// TestListFilesQuery: the filters and paging reach the query.
func TestListFilesQuery(t *testing.T) {
	t.Parallel()
	var seen uploadSeen
	c := filesServer(t, &seen)
	resp := c.ListFiles(context.Background(), client.ListFilesParams{ListParams: client.ListParams{Limit: 2, Cursor: "c1"},
		Purpose: "inputs", Name: "rep"})
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Equal(t, "cursor=c1&limit=2&name=rep&purpose=inputs", seen.query)
}

// TestDownloadFileVerifies: DownloadFile keeps a download only when it matches X-Content-Sha256.
func TestDownloadFileVerifies(t *testing.T) {
	t.Parallel()
	body := []byte("the file's bytes")
	var got http.Request
	srv := contentServer(t, http.Header{"X-Content-Sha256": {digest(body)}, "Content-Type": {"text/plain"},
		"Content-Disposition": {`attachment; filename="f.txt"`}}, body, &got)
	c := client.New(client.WithBaseURL(srv.URL+"/v1"), client.WithAPIKey("sk_test"))
	var buf bytes.Buffer
	resp := c.DownloadFile(context.Background(), "file_1", &buf, nil)
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Equal(t, "/v1/files/file_1/content", got.URL.Path)
	require.Equal(t, body, buf.Bytes())
	require.Equal(t, client.FileDownload{ID: "file_1", Name: "f.txt", MediaType: "text/plain", Bytes: int64(len(body)),
		SHA256: digest(body)}, resp.Body)

	bad := contentServer(t, http.Header{"X-Content-Sha256": {digest([]byte("other"))}}, body, &got)
	c = client.New(client.WithBaseURL(bad.URL+"/v1"), client.WithAPIKey("sk_test"))
	resp = c.DownloadFile(context.Background(), "file_1", io.Discard, nil)
	require.False(t, resp.OK)
	require.Equal(t, client.CodeContentMismatch, resp.Error.Code)
	require.Contains(t, resp.Error.Message, "not the file")
}
