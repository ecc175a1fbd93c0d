package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/workflows"
)

// TestAPIKilledMidUploadLeavesNoFileAndNoLeakedQuota kills the svcd API process (SIGKILL) while an
// upload's body is streaming into the blob store, and checks that nothing of it is visible afterwards:
// no file row, no listed file, no committed blob; its reservation holds the quota only until it expires,
// when the release of expired reservations gives every byte back; and a new upload of the full size
// succeeds on a restarted API.
func TestAPIKilledMidUploadLeavesNoFileAndNoLeakedQuota(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true})
	accountID, key := accountKey(t, env)
	blobDir := t.TempDir()
	blobEnv := "SVC_BLOB_URL=" + fileURL(blobDir)
	first := startAPI(t, svcd, env, blobEnv)

	const size = 1 << 20
	payload := randomBytes(t, size)
	conn := sendPartialUpload(t, first, key, "big.bin", size, payload[:size/4])
	defer conn.Close()
	require.Eventually(t, func() bool { return reservations(t, env, accountID) == 1 && tempBlobWritten(t, blobDir) },
		30*time.Second, 10*time.Millisecond, "the upload never streamed; API log:\n%s", first.log.String())
	first.kill(t)

	var rows int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM files WHERE account_id = ?", accountID).Scan(ctx, &rows))
	require.Zero(t, rows, "no file row")
	require.Empty(t, committedFileBlobs(t, blobDir), "no committed blob under %s", app.FilePrefix)
	second := startAPI(t, svcd, env, blobEnv)
	listed := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/files", Key: key, BaseURL: second.url})
	require.Equal(t, http.StatusOK, listed.Status, "%s", listed.Raw)
	require.Empty(t, listed.Body["files"], "the restarted API lists nothing")

	store := file.NewStore(env.DB, file.Options{})
	requireUsage(t, store, accountID, 0, size, "the reservation holds its bytes until it expires")
	released, err := store.ReleaseExpired(ctx)
	require.NoError(t, err)
	require.Zero(t, released, "an unexpired reservation is kept")
	requireUsage(t, store, accountID, 0, size, "still held before its expiry")
	// The default reservation lifetime is one hour (file.Options.ReservationTTL); a clock past it expires it.
	later := file.NewStore(env.DB, file.Options{Now: func() time.Time { return time.Now().Add(time.Hour + time.Minute) }})
	released, err = later.ReleaseExpired(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, released)
	requireUsage(t, store, accountID, 0, 0, "no leaked quota")
	require.Zero(t, reservations(t, env, accountID))

	up := uploadFile(t, env, second.url, key, "big.bin", payload)
	require.EqualValues(t, size, up["bytes"])
	requireUsage(t, store, accountID, size, 0, "the new upload is settled")
	blobs := committedFileBlobs(t, blobDir)
	require.Len(t, blobs, 1, "the new upload's blob is committed")
	require.EqualValues(t, size, blobs[0].Size)
}

// TestWorkerKilledDuringFilePurgePurgesOnce deletes a file (its purge due a few seconds later through
// SVC_FILE_PURGE_AFTER), kills the svcd worker (SIGKILL) while the purge workflow waits on its durable
// timer, starts another, and checks the purge happened exactly once: the bytes and the row are gone,
// the account's used bytes were decremented once (at the delete) while another file still counts, and
// the workflow completed after one purge activity.
func TestWorkerKilledDuringFilePurgePurgesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true})
	accountID, key := accountKey(t, env)
	blobDir := t.TempDir()
	blobEnv := "SVC_BLOB_URL=" + fileURL(blobDir)
	first := startWorker(t, svcd, env, "", t.TempDir(), blobEnv)
	api := startAPI(t, svcd, env, blobEnv, "SVC_FILE_PURGE_AFTER=4s")

	gone := uploadFile(t, env, api.url, key, "gone.bin", randomBytes(t, 3000))
	uploadFile(t, env, api.url, key, "kept.bin", randomBytes(t, 5000))
	store := file.NewStore(env.DB, file.Options{})
	requireUsage(t, store, accountID, 8000, 0, "two files")
	goneID := gone["id"].(string)
	var blobKey string
	require.NoError(t, env.DB.NewRaw("SELECT blob_key FROM files WHERE id = ?", goneID).Scan(ctx, &blobKey))
	files := blob.WithPrefix(blob.NewLocal(blobDir), app.FilePrefix)

	waitForPoller(t, env, first)
	deleted := env.Do(t, apptest.Req{Method: http.MethodDelete, Path: "/v1/files/" + goneID, Key: key, BaseURL: api.url,
		Headers: map[string]string{"Idempotency-Key": "delete-gone"}})
	require.Equal(t, http.StatusOK, deleted.Status, "%s", deleted.Raw)
	requireUsage(t, store, accountID, 5000, 0, "the delete stops the file counting")
	workflowID := file.PurgeWorkflowID(goneID)
	require.Eventually(t, func() bool { return countEvents(t, env, workflowID)[enums.EVENT_TYPE_TIMER_STARTED] == 1 },
		30*time.Second, 20*time.Millisecond, "the purge never started its timer; worker log:\n%s", first.log.String())
	first.kill(t)
	var status string
	require.NoError(t, env.DB.NewRaw("SELECT status FROM files WHERE id = ?", goneID).Scan(ctx, &status),
		"killed before the purge: the row is there")
	require.Equal(t, "deleted", status)
	_, err := files.Stat(ctx, blobKey)
	require.NoError(t, err, "killed before the purge: the bytes are there")

	second := startWorker(t, svcd, env, "", t.TempDir(), blobEnv)
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	require.NoError(t, env.Temporal.GetWorkflow(wctx, workflowID, "").Get(wctx, nil),
		"the purge never completed; second worker log:\n%s", second.log.String())

	_, err = files.Stat(ctx, blobKey)
	require.ErrorIs(t, err, blob.ErrNotFound, "the bytes are gone")
	var rows int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM files WHERE id = ?", goneID).Scan(ctx, &rows))
	require.Zero(t, rows, "the row is gone")
	requireUsage(t, store, accountID, 5000, 0, "decremented once, at the delete; the kept file still counts")
	listed := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/files", Key: key, BaseURL: api.url})
	require.Len(t, listed.Body["files"], 1, "%s", listed.Raw)
	require.Len(t, committedFileBlobs(t, blobDir), 1, "the kept file's bytes remain")

	events := countEvents(t, env, workflowID)
	require.Equal(t, 1, events[enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED], "one purge activity")
	require.Equal(t, 1, events[enums.EVENT_TYPE_ACTIVITY_TASK_COMPLETED])
	require.Equal(t, 1, events[enums.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED])
	desc, err := env.Temporal.DescribeWorkflowExecution(ctx, workflowID, "")
	require.NoError(t, err)
	require.Equal(t, enums.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.GetWorkflowExecutionInfo().GetStatus())
	deletes, err := outbox.List(ctx, env.DB, accountID)
	require.NoError(t, err)
	n := 0
	for _, e := range deletes {
		if e.Type == outbox.FileDeleted { // only gone.bin was deleted
			n++
		}
	}
	require.Equal(t, 1, n, "one file.deleted event")
}

// accountKey creates an account and its first key (every scope, files:write among them) and returns the
// account's id and the key's secret.
func accountKey(t *testing.T, env *apptest.Env) (string, string) {
	t.Helper()
	accountID, token := env.NewAccount(t, "files")
	first := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "k"}})
	require.Equal(t, http.StatusCreated, first.Status, "%s", first.Raw)
	return accountID, first.Body["apiKey"].(map[string]any)["secret"].(string)
}

// fileURL is the SVC_BLOB_URL of a local directory.
func fileURL(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return b
}

// sendPartialUpload opens a raw TCP connection to the API and sends POST /v1/files declaring size bytes
// but only the first part of them; the connection stays open, so the upload waits for the rest.
func sendPartialUpload(t *testing.T, api *apiProcess, key, name string, size int, part []byte) net.Conn {
	t.Helper()
	addr := strings.TrimPrefix(api.url, "http://")
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	require.NoError(t, err)
	head := fmt.Sprintf("POST /v1/files HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nIdempotency-Key: killed-upload\r\n"+
		"X-File-Name: %s\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", addr, key, name, size)
	_, err = conn.Write(append([]byte(head), part...))
	require.NoError(t, err)
	return conn
}

// reservations counts the account's storage reservations.
func reservations(t *testing.T, env *apptest.Env, accountID string) int {
	t.Helper()
	var n int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM storage_reservations WHERE account_id = ?", accountID).
		Scan(context.Background(), &n))
	return n
}

// tempBlobWritten reports whether a temporary file of the local store below the files prefix holds
// bytes: the upload's body is streaming into it.
func tempBlobWritten(t *testing.T, blobDir string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(filepath.Join(blobDir, filepath.FromSlash(app.FilePrefix)), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), ".tmp-") {
			return nil // a directory not created yet is not written to yet
		}
		if info, err := d.Info(); err == nil && info.Size() > 0 {
			found = true
		}
		return nil
	})
	require.NoError(t, err)
	return found
}

// committedFileBlobs lists the committed blobs below the files prefix (the local store's temporary
// files are not blobs and are not listed).
func committedFileBlobs(t *testing.T, blobDir string) []blob.Info {
	t.Helper()
	var out []blob.Info
	require.NoError(t, blob.WithPrefix(blob.NewLocal(blobDir), app.FilePrefix).List(context.Background(), "",
		func(i blob.Info) error { out = append(out, i); return nil }))
	return out
}

// requireUsage checks the account's used and reserved storage bytes.
func requireUsage(t *testing.T, store *file.Store, accountID string, used, reserved int64, msg string) {
	t.Helper()
	u, err := store.Usage(context.Background(), accountID)
	require.NoError(t, err)
	require.Equal(t, [2]int64{used, reserved}, [2]int64{u.UsedBytes, u.ReservedBytes}, "used and reserved bytes: %s", msg)
}

// uploadFile uploads body as a file through the API at baseURL, checks the answer, and returns the file.
func uploadFile(t *testing.T, env *apptest.Env, baseURL, key, name string, body []byte) map[string]any {
	t.Helper()
	sum := sha256.Sum256(body)
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/files", Key: key, BaseURL: baseURL, Body: string(body),
		Headers: map[string]string{"Idempotency-Key": "upload-" + name, "X-File-Name": name,
			"Content-Type": "application/octet-stream", "X-Content-Sha256": hex.EncodeToString(sum[:])}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	f := r.Body["file"].(map[string]any)
	require.Equal(t, hex.EncodeToString(sum[:]), f["sha256"])
	return f
}

// waitForPoller waits until a worker polls the namespace's workflow task queue, so the purge's first
// workflow task (which starts its timer) runs at once.
func waitForPoller(t *testing.T, env *apptest.Env, w *svcdProcess) {
	t.Helper()
	require.Eventually(t, func() bool {
		d, err := env.Temporal.DescribeTaskQueue(context.Background(), workflows.TaskQueue, enums.TASK_QUEUE_TYPE_WORKFLOW)
		return err == nil && len(d.GetPollers()) > 0
	}, 60*time.Second, 20*time.Millisecond, "the worker never polled; log:\n%s", w.log.String())
}

// countEvents counts the workflow's history events by type (none while it does not exist).
func countEvents(t *testing.T, env *apptest.Env, workflowID string) map[enums.EventType]int {
	t.Helper()
	out := map[enums.EventType]int{}
	iter := env.Temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		e, err := iter.Next()
		if err != nil {
			return out
		}
		out[e.GetEventType()]++
	}
	return out
}
