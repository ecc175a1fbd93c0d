package api_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/workflows"
)

// deletedFile stores a file's bytes in the environment's blob store and its row, soft-deletes it, and
// returns its id and blob key.
func deletedFile(t *testing.T, env *apptest.Env) (string, string) {
	t.Helper()
	ctx := context.Background()
	accountID, _ := env.NewAccount(t, "files")
	scope := tenant.Scope{AccountID: accountID}
	store := file.NewStore(env.DB, file.Options{})
	id, key := "file_purged", accountID+"/file_purged"
	size, sum, err := blob.WithPrefix(env.Blobs, app.FilePrefix).Put(ctx, key, strings.NewReader("bytes to purge"))
	require.NoError(t, err)
	r, err := store.Reserve(ctx, accountID, size)
	require.NoError(t, err)
	_, _, err = store.Create(ctx, r, file.NewFile{ID: id, Scope: scope, Name: "a.txt", MediaType: "text/plain",
		Bytes: size, SHA256: sum, BlobKey: key})
	require.NoError(t, err)
	_, err = store.Delete(ctx, scope, id)
	require.NoError(t, err)
	return id, key
}

// purgeFile runs file-purge/<id> on the platform's worker, due at once, and waits for it to end.
func purgeFile(t *testing.T, env *apptest.Env, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run, err := env.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: "file-purge/" + id, TaskQueue: workflows.TaskQueue},
		workflows.FilePurgeWorkflowName, workflows.FilePurgeParams{FileID: id, PurgeAt: time.Now()})
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
}

// TestFilePurgeRemovesBytesAndRow: the purge workflow, run by the production worker, removes a deleted
// file's bytes from the blob store and then its row.
func TestFilePurgeRemovesBytesAndRow(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	id, key := deletedFile(t, env)
	files := blob.WithPrefix(env.Blobs, app.FilePrefix)
	_, err := files.Stat(context.Background(), key)
	require.NoError(t, err, "the bytes are there before the purge")

	purgeFile(t, env, id)
	_, err = files.Stat(context.Background(), key)
	require.ErrorIs(t, err, blob.ErrNotFound)
	var rows int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM files WHERE id = ?", id).Scan(context.Background(), &rows))
	require.Zero(t, rows)
}

// TestRecordFilePurgeHistories re-records workflows/testdata/file_purge.json (SVC_RECORD_HISTORIES=1,
// make record-histories).
func TestRecordFilePurgeHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.New(t)
	id, _ := deletedFile(t, env)
	purgeFile(t, env, id)
	writeHistory(t, env, "file-purge/"+id, filepath.Join("..", "workflows", "testdata", "file_purge.json"))
}
