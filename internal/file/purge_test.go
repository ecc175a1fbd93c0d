package file_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/tenant"
)

// blobLog records the keys a purge deletes, and fails the first failures deletions.
type blobLog struct {
	deleted  []string
	failures int
}

func (b *blobLog) Delete(_ context.Context, key string) error {
	if b.failures > 0 {
		b.failures--
		return errors.New("blob store away")
	}
	b.deleted = append(b.deleted, key)
	return nil
}

// TestPurgeRemovesBytesThenRow: the blob goes before the row, so a purge that failed on the blob keeps
// the row and the next attempt removes both; a live file is never touched, a purged one is left alone.
func TestPurgeRemovesBytesThenRow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	scope := tenant.Scope{AccountID: f.account}
	live := f.upload(t, scope, file.NewFile{ID: "file_live", Scope: scope, Name: "a.txt", MediaType: "text/plain", Bytes: 10, SHA256: sum("a"), BlobKey: "files/a"})
	gone := f.upload(t, scope, file.NewFile{ID: "file_gone", Scope: scope, Name: "b.txt", MediaType: "text/plain", Bytes: 10, SHA256: sum("b"), BlobKey: "files/b"})
	_, err := f.store.Delete(ctx, scope, gone.ID)
	require.NoError(t, err)

	blobs := &blobLog{failures: 1}
	p := &file.Purger{Store: f.store, Blobs: blobs}
	require.Error(t, p.Purge(ctx, gone.ID), "the blob store failing fails the purge")
	var rows int
	require.NoError(t, f.db.NewRaw("SELECT count(*) FROM files WHERE id = ?", gone.ID).Scan(ctx, &rows))
	require.Equal(t, 1, rows, "the row stays until its bytes are gone")

	require.NoError(t, p.Purge(ctx, gone.ID))
	require.NoError(t, f.db.NewRaw("SELECT count(*) FROM files WHERE id = ?", gone.ID).Scan(ctx, &rows))
	require.Equal(t, 0, rows)
	require.Equal(t, []string{"files/b"}, blobs.deleted)

	require.NoError(t, p.Purge(ctx, gone.ID), "purging again is harmless")
	require.NoError(t, p.Purge(ctx, live.ID))
	require.Equal(t, []string{"files/b"}, blobs.deleted, "a live file's bytes are never deleted")
	_, err = f.store.Get(ctx, scope, live.ID)
	require.NoError(t, err)
}

// TestCreateAndDeleteRecordEvents: file.created and file.deleted are recorded with the change that makes
// them happen, each once, carrying the file as the API shows it.
func TestCreateAndDeleteRecordEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	scope := tenant.Scope{AccountID: f.account}
	row := f.upload(t, scope, file.NewFile{ID: "file_ev", Scope: scope, Name: "e.txt", MediaType: "text/plain", Bytes: 3, SHA256: sum("e"), BlobKey: "files/e"})
	_, err := f.store.Delete(ctx, scope, row.ID)
	require.NoError(t, err)

	events, err := outbox.List(ctx, f.db, f.account)
	require.NoError(t, err)
	require.Len(t, events, 2)
	require.Equal(t, []string{outbox.FileCreated, outbox.FileDeleted}, []string{events[0].Type, events[1].Type})
	for _, ev := range events {
		var data map[string]any
		require.NoError(t, json.Unmarshal(ev.Data, &data))
		require.Equal(t, "file_ev", data["id"])
		require.Equal(t, "e.txt", data["name"])
		require.EqualValues(t, 3, data["bytes"])
	}
}
