package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// upload posts body as a file with the headers (X-File-Name, Content-Type, ... ) and an idempotency key.
func upload(t *testing.T, env *apptest.Env, key, idem string, body []byte, headers map[string]string) (int, []byte) {
	t.Helper()
	status, raw, err := tryUpload(env, key, idem, body, headers)
	require.NoError(t, err)
	return status, raw
}

// tryUpload is upload answering its error, for goroutines (which must not stop the test).
func tryUpload(env *apptest.Env, key, idem string, body []byte, headers map[string]string) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, env.URL+"/v1/files", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Idempotency-Key", idem)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// rawUpload sends an upload over a bare connection declaring length bytes and sending body, then closes
// its writing half, so a body shorter than declared ends early; it answers the status and body.
func rawUpload(t *testing.T, env *apptest.Env, key, idem, name string, length int, body []byte) (int, []byte) {
	t.Helper()
	u, err := url.Parse(env.URL)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer conn.Close()
	head := fmt.Sprintf("POST /v1/files HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nIdempotency-Key: %s\r\n"+
		"X-File-Name: %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", u.Host, key, idem, name, length)
	_, err = conn.Write(append([]byte(head), body...))
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, raw
}

// storageOf is the account's used and reserved storage bytes, and how many file rows and blobs it has.
func storageOf(t *testing.T, env *apptest.Env, accountID string) (used, reserved int64, rows, blobs int) {
	t.Helper()
	ctx := context.Background()
	u, err := file.NewStore(env.DB, file.Options{}).Usage(ctx, accountID)
	require.NoError(t, err)
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM files WHERE account_id = ?", accountID).Scan(ctx, &rows))
	require.NoError(t, blob.WithPrefix(env.Blobs, app.FilePrefix).List(ctx, accountID+"/", func(blob.Info) error { blobs++; return nil }))
	return u.UsedBytes, u.ReservedBytes, rows, blobs
}

func fileOf(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var env map[string]any
	require.NoError(t, json.Unmarshal(raw, &env), "%s", raw)
	f, ok := env["file"].(map[string]any)
	require.True(t, ok, "%s", raw)
	return f
}

// TestFileRoundTrip: an upload answers the file, which reads back (metadata, listing with filters,
// content with its headers, a range, If-None-Match), and a replay answers the same file.
func TestFileRoundTrip(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acct := newArtifactAccount(t, env)
	body := randomBytes(t, 100_000)
	headers := map[string]string{"X-File-Name": "rapport été.csv", "Content-Type": "text/csv",
		"X-Content-Sha256": hexSHA256(body), "X-Svc-File-Purpose": "reports"}
	status, raw := upload(t, env, acct.secret, "up-1", body, headers)
	require.Equal(t, http.StatusCreated, status, "%s", raw)
	f := fileOf(t, raw)
	id := f["id"].(string)
	require.True(t, strings.HasPrefix(id, "file_"))
	require.Equal(t, "rapport été.csv", f["name"])
	require.Equal(t, "text/csv", f["mediaType"])
	require.EqualValues(t, len(body), f["bytes"])
	require.Equal(t, hexSHA256(body), f["sha256"])
	require.Equal(t, "reports", f["purpose"])

	status, raw = upload(t, env, acct.secret, "up-1", body, headers)
	require.Equal(t, http.StatusCreated, status, "%s", raw)
	require.Equal(t, id, fileOf(t, raw)["id"], "a replay answers the same file")
	used, reserved, rows, blobs := storageOf(t, env, acct.accountID)
	require.Equal(t, []any{int64(len(body)), int64(0), 1, 1}, []any{used, reserved, rows, blobs})

	got := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/files/" + id, Key: acct.secret})
	require.Equal(t, http.StatusOK, got.Status, "%s", got.Raw)
	require.Equal(t, id, got.Body["file"].(map[string]any)["id"])
	for query, n := range map[string]int{"": 1, "purpose=reports": 1, "purpose=other": 0, "name=rapport": 1, "name=x": 0} {
		list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/files?" + query, Key: acct.secret})
		require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
		require.Len(t, list.Body["files"], n, query)
	}

	resp, content := getFileContent(t, env, acct.secret, id, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, body, content)
	require.Equal(t, `"`+hexSHA256(body)+`"`, resp.Header.Get("ETag"))
	require.Equal(t, hexSHA256(body), resp.Header.Get("X-Content-Sha256"))
	require.Equal(t, "text/csv", resp.Header.Get("Content-Type"))
	require.Equal(t, `attachment; filename="rapport _t_.csv"; filename*=UTF-8''rapport%20%C3%A9t%C3%A9.csv`, resp.Header.Get("Content-Disposition"))

	resp, content = getFileContent(t, env, acct.secret, id, map[string]string{"Range": "bytes=10-19"})
	require.Equal(t, http.StatusPartialContent, resp.StatusCode)
	require.Equal(t, body[10:20], content)
	require.Equal(t, "bytes 10-19/"+strconv.Itoa(len(body)), resp.Header.Get("Content-Range"))
	resp, content = getFileContent(t, env, acct.secret, id, map[string]string{"Range": "bytes=-5"})
	require.Equal(t, http.StatusPartialContent, resp.StatusCode)
	require.Equal(t, body[len(body)-5:], content)
	resp, _ = getFileContent(t, env, acct.secret, id, map[string]string{"Range": "bytes=200000-"})
	require.Equal(t, http.StatusRequestedRangeNotSatisfiable, resp.StatusCode)

	resp, content = getFileContent(t, env, acct.secret, id, map[string]string{"If-None-Match": `"` + hexSHA256(body) + `"`})
	require.Equal(t, http.StatusNotModified, resp.StatusCode)
	require.Empty(t, content)
}

func getFileContent(t *testing.T, env *apptest.Env, key, id string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.URL+"/v1/files/"+id+"/content", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

// TestFileUploadsThatStoreNothing: a checksum mismatch, a short body, a blocked name and a file over
// the per-file cap each store nothing and leak no quota.
func TestFileUploadsThatStoreNothing(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acct := newArtifactAccount(t, env)
	body := []byte("hello files")

	status, raw := upload(t, env, acct.secret, "bad-sum", body, map[string]string{"X-File-Name": "a.txt", "X-Content-Sha256": hexSHA256([]byte("other"))})
	require.Equal(t, http.StatusBadRequest, status, "%s", raw)
	code, _ := errorCode(t, raw)
	require.Equal(t, client.CodeInvalidRequest, code)
	require.Contains(t, string(raw), "X-Content-Sha256")

	status, raw = rawUpload(t, env, acct.secret, "short", "b.txt", 20, body)
	require.Equal(t, http.StatusBadRequest, status, "%s", raw)
	require.Contains(t, string(raw), "Content-Length")

	status, raw = upload(t, env, acct.secret, "blocked", body, map[string]string{"X-File-Name": "setup.EXE. "})
	require.Equal(t, http.StatusUnsupportedMediaType, status, "%s", raw)
	status, raw = upload(t, env, acct.secret, "path", body, map[string]string{"X-File-Name": "../etc/passwd"})
	require.Equal(t, http.StatusBadRequest, status, "%s", raw)

	status, raw = rawUpload(t, env, acct.secret, "too-big", "big.bin", 11<<20, nil)
	require.Equal(t, http.StatusRequestEntityTooLarge, status, "%s", raw)
	code, _ = errorCode(t, raw)
	require.Equal(t, client.CodePayloadTooLarge, code)

	used, reserved, rows, blobs := storageOf(t, env, acct.accountID)
	require.Equal(t, []any{int64(0), int64(0), 0, 0}, []any{used, reserved, rows, blobs})
}

// TestFileAccess: another account's file is 404 on every route; a key without files:write cannot
// upload or delete (403) but reads.
func TestFileAccess(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)
	status, raw := upload(t, env, owner.secret, "own", []byte("mine"), map[string]string{"X-File-Name": "mine.txt"})
	require.Equal(t, http.StatusCreated, status, "%s", raw)
	id := fileOf(t, raw)["id"].(string)

	other := newArtifactAccount(t, env)
	for _, r := range []apptest.Req{
		{Method: http.MethodGet, Path: "/v1/files/" + id},
		{Method: http.MethodGet, Path: "/v1/files/" + id + "/content"},
		{Method: http.MethodDelete, Path: "/v1/files/" + id, Headers: map[string]string{"Idempotency-Key": "del"}},
	} {
		r.Key = other.secret
		resp := env.Do(t, r)
		require.Equal(t, http.StatusNotFound, resp.Status, "%s %s: %s", r.Method, r.Path, resp.Raw)
	}

	reader := owner.key(t, env, "reader", []string{client.ScopeFilesRead}, []string{"*"})
	status, raw = upload(t, env, reader, "ro", []byte("x"), map[string]string{"X-File-Name": "x.txt"})
	require.Equal(t, http.StatusForbidden, status, "%s", raw)
	resp := env.Do(t, apptest.Req{Method: http.MethodDelete, Path: "/v1/files/" + id, Key: reader, Headers: map[string]string{"Idempotency-Key": "d"}})
	require.Equal(t, http.StatusForbidden, resp.Status, "%s", resp.Raw)
	resp = env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/files/" + id, Key: reader})
	require.Equal(t, http.StatusOK, resp.Status, "%s", resp.Raw)
}

// TestFileDelete: a deleted file is 404 at once, leaves the listing and the storage count, and its
// purge workflow file-purge/<id> is running.
func TestFileDelete(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acct := newArtifactAccount(t, env)
	status, raw := upload(t, env, acct.secret, "doomed", []byte("bye"), map[string]string{"X-File-Name": "bye.txt"})
	require.Equal(t, http.StatusCreated, status, "%s", raw)
	id := fileOf(t, raw)["id"].(string)

	resp := env.Do(t, apptest.Req{Method: http.MethodDelete, Path: "/v1/files/" + id, Key: acct.secret, Headers: map[string]string{"Idempotency-Key": "del"}})
	require.Equal(t, http.StatusOK, resp.Status, "%s", resp.Raw)
	for _, path := range []string{"/v1/files/" + id, "/v1/files/" + id + "/content"} {
		got := env.Do(t, apptest.Req{Method: http.MethodGet, Path: path, Key: acct.secret})
		require.Equal(t, http.StatusNotFound, got.Status, "%s: %s", path, got.Raw)
	}
	list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/files", Key: acct.secret})
	require.Empty(t, list.Body["files"])
	used, _, _, _ := storageOf(t, env, acct.accountID)
	require.Zero(t, used)

	desc, err := env.Temporal.DescribeWorkflowExecution(context.Background(), "file-purge/"+id, "")
	require.NoError(t, err)
	require.Equal(t, "FilePurgeWorkflow", desc.WorkflowExecutionInfo.Type.Name)
}

// TestFileQuotaAndDownloadVolume: an upload past the account's total storage is 413 stating used, total
// and attempted size, stores nothing and leaks no reservation; a download past the month's volume is 429
// naming the limit and its reset.
func TestFileQuotaAndDownloadVolume(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	acct := newArtifactAccount(t, env)
	status, raw := upload(t, env, acct.secret, "first", []byte("0123456789"), map[string]string{"X-File-Name": "a.txt"})
	require.Equal(t, http.StatusCreated, status, "%s", raw)
	id := fileOf(t, raw)["id"].(string)

	limits := file.DefaultTiers()["standard"]
	_, err := env.DB.ExecContext(ctx, "UPDATE storage_usage SET used_bytes = ? WHERE account_id = ?", limits.StorageBytes-5, acct.accountID)
	require.NoError(t, err)
	status, raw = upload(t, env, acct.secret, "second", []byte("0123456789"), map[string]string{"X-File-Name": "b.txt"})
	require.Equal(t, http.StatusRequestEntityTooLarge, status, "%s", raw)
	require.Contains(t, string(raw), strconv.FormatInt(limits.StorageBytes, 10))
	used, reserved, rows, blobs := storageOf(t, env, acct.accountID)
	require.Equal(t, []any{limits.StorageBytes - 5, int64(0), 1, 1}, []any{used, reserved, rows, blobs})

	_, err = env.DB.ExecContext(ctx, "UPDATE download_volume SET bytes = ? WHERE account_id = ?", limits.MonthlyDownloadBytes-5, acct.accountID)
	require.NoError(t, err)
	resp, body := getFileContent(t, env, acct.secret, id, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "the first download creates the month's row")
	require.Equal(t, "0123456789", string(body))
	_, err = env.DB.ExecContext(ctx, "UPDATE download_volume SET bytes = ? WHERE account_id = ?", limits.MonthlyDownloadBytes-5, acct.accountID)
	require.NoError(t, err)
	resp, body = getFileContent(t, env, acct.secret, id, nil)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "%s", body)
	code, details := errorCode(t, body)
	require.Equal(t, client.CodeLimitExceeded, code)
	require.Equal(t, file.DownloadOperation, details["operation"])
	require.NotEmpty(t, details["resetAt"])
	resp, _ = getFileContent(t, env, acct.secret, id, map[string]string{"Range": "bytes=0-4"})
	require.Equal(t, http.StatusPartialContent, resp.StatusCode, "a range within the volume left is served")
}

// TestFileUploadLargerThanAJSONBody: an upload bigger than MaxJSONBody passes the edge, whose JSON
// checks and idempotency fingerprint never read a raw body.
func TestFileUploadLargerThanAJSONBody(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acct := newArtifactAccount(t, env)
	body := randomBytes(t, 3<<20)
	status, raw := upload(t, env, acct.secret, "big", body, map[string]string{"X-File-Name": "big.bin", "X-Content-Sha256": hexSHA256(body)})
	require.Equal(t, http.StatusCreated, status, "%s", raw)
	resp, content := getFileContent(t, env, acct.secret, fileOf(t, raw)["id"].(string), nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, hexSHA256(body), hexSHA256(content))
}

// TestFilePurgeSweep: the sweep starts the purge of a recent delete that has none (its start failed),
// and of a deleted file long past its purge time, which the purge then removes.
func TestFilePurgeSweep(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	acct := newArtifactAccount(t, env)
	store := file.NewStore(env.DB, file.Options{})
	var deleted []*schema.File
	for _, name := range []string{"recent.txt", "overdue.txt"} {
		status, raw := upload(t, env, acct.secret, name, []byte(name), map[string]string{"X-File-Name": name})
		require.Equal(t, http.StatusCreated, status, "%s", raw)
		f, err := store.Delete(ctx, tenant.Scope{AccountID: acct.accountID}, fileOf(t, raw)["id"].(string)) // no purge started
		require.NoError(t, err)
		deleted = append(deleted, f)
	}
	recent, overdue, key := deleted[0].ID, deleted[1].ID, deleted[1].BlobKey
	_, err := env.DB.ExecContext(ctx, "UPDATE files SET deleted_at = now() - interval '2 minutes' WHERE id = ?", recent)
	require.NoError(t, err)
	_, err = env.DB.ExecContext(ctx, "UPDATE files SET deleted_at = now() - interval '3 days', purge_at = now() - interval '2 days' WHERE id = ?", overdue)
	require.NoError(t, err)

	purges := &file.Purges{Store: store, Engine: env.Temporal}
	n, err := purges.Sweep(ctx, time.Minute, 10*time.Minute)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	desc, err := env.Temporal.DescribeWorkflowExecution(ctx, file.PurgeWorkflowID(recent), "")
	require.NoError(t, err)
	require.Equal(t, workflows.FilePurgeWorkflowName, desc.WorkflowExecutionInfo.Type.Name)

	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, env.Temporal.GetWorkflow(wctx, file.PurgeWorkflowID(overdue), "").Get(wctx, nil))
	_, err = blob.WithPrefix(env.Blobs, app.FilePrefix).Stat(ctx, key)
	require.ErrorIs(t, err, blob.ErrNotFound)

	n, err = purges.Sweep(ctx, time.Minute, 10*time.Minute)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the recent delete is swept again (already started: harmless); the purged one is gone")
}

// TestFileQuotaUnderConcurrency: 20 concurrent uploads of 10 bytes into 50 bytes of space left store
// exactly five files, and the account ends at its total to the byte.
func TestFileQuotaUnderConcurrency(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	acct := newArtifactAccount(t, env)
	status, raw := upload(t, env, acct.secret, "seed", []byte("x"), map[string]string{"X-File-Name": "seed.txt"})
	require.Equal(t, http.StatusCreated, status, "%s", raw)
	total := file.DefaultTiers()["standard"].StorageBytes
	_, err := env.DB.ExecContext(ctx, "UPDATE storage_usage SET used_bytes = ? WHERE account_id = ?", total-50, acct.accountID)
	require.NoError(t, err)

	statuses := make(chan int, 20)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("c%02d.txt", i)
			s, _, err := tryUpload(env, acct.secret, name, []byte("0123456789"), map[string]string{"X-File-Name": name})
			if err != nil {
				s = -1
			}
			statuses <- s
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	require.Equal(t, map[int]int{http.StatusCreated: 5, http.StatusRequestEntityTooLarge: 15}, count)
	used, reserved, rows, blobs := storageOf(t, env, acct.accountID)
	require.Equal(t, []any{total, int64(0), 6, 6}, []any{used, reserved, rows, blobs})
}

// TestUserFilesRoutes: seed 002's /user/files routes answer the same operations on the same store, with
// the key in X-API-Key; a key sent twice must be the same key.
func TestUserFilesRoutes(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acct := newArtifactAccount(t, env)
	viaKeyHeader := func(r apptest.Req) *apptest.Response {
		if r.Headers == nil {
			r.Headers = map[string]string{}
		}
		r.Headers["X-API-Key"] = acct.secret
		return env.Do(t, r)
	}
	body := []byte("seed 002 file")
	req, err := http.NewRequest(http.MethodPost, env.URL+"/user/files", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-API-Key", acct.secret)
	req.Header.Set("Idempotency-Key", "user-up")
	req.Header.Set("X-File-Name", "notes.txt")
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode, "%s", raw)
	id := fileOf(t, raw)["id"].(string)

	v1 := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/files/" + id, Key: acct.secret})
	require.Equal(t, http.StatusOK, v1.Status, "the same store: %s", v1.Raw)
	list := viaKeyHeader(apptest.Req{Method: http.MethodGet, Path: "/user/files"})
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	require.Len(t, list.Body["files"], 1)
	content := viaKeyHeader(apptest.Req{Method: http.MethodGet, Path: "/user/files/" + id + "/content"})
	require.Equal(t, http.StatusOK, content.Status)
	require.Equal(t, body, content.Raw)

	both := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/user/files", Key: acct.secret,
		Headers: map[string]string{"X-API-Key": newArtifactAccount(t, env).secret}})
	require.Equal(t, http.StatusUnauthorized, both.Status, "two different keys: %s", both.Raw)
	none := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/user/files"})
	require.Equal(t, http.StatusUnauthorized, none.Status, "%s", none.Raw)

	del := viaKeyHeader(apptest.Req{Method: http.MethodDelete, Path: "/user/files/" + id, Headers: map[string]string{"Idempotency-Key": "user-del"}})
	require.Equal(t, http.StatusOK, del.Status, "%s", del.Raw)
	gone := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/files/" + id, Key: acct.secret})
	require.Equal(t, http.StatusNotFound, gone.Status, "%s", gone.Raw)

	doc := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/openapi.json"})
	paths := doc.Body["paths"].(map[string]any)
	for _, p := range []string{"/user/files", "/user/files/{fileId}", "/user/files/{fileId}/content"} {
		require.Contains(t, paths, p)
	}
}

// TestFileUploadHeadersAreChecked: a malformed Content-Type or purpose is refused before anything
// streams, naming its header.
func TestFileUploadHeadersAreChecked(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acct := newArtifactAccount(t, env)
	for header, value := range map[string]string{"Content-Type": "not a media type", "X-Svc-File-Purpose": strings.Repeat("p", 101)} {
		status, raw := upload(t, env, acct.secret, "h-"+header, []byte("x"), map[string]string{"X-File-Name": "a.txt", header: value})
		require.Equal(t, http.StatusBadRequest, status, "%s", raw)
		code, _ := errorCode(t, raw)
		require.Equal(t, client.CodeInvalidRequest, code)
		var e struct {
			Error struct{ Param, Message string }
		}
		require.NoError(t, json.Unmarshal(raw, &e))
		require.Equal(t, header, e.Error.Param)
		require.Contains(t, e.Error.Message, header)
	}
	used, reserved, rows, blobs := storageOf(t, env, acct.accountID)
	require.Equal(t, []any{int64(0), int64(0), 0, 0}, []any{used, reserved, rows, blobs})
}
