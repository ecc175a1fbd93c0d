package file_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/blob/blobtest"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/tenant"
)

// TestSweepOrphans: on a local directory and on a bucket, the sweep deletes only the blob of an upload
// that crashed before its row, once it is past the grace period; the bytes of live and deleted files,
// of uploads still holding their reservation, of young orphans and of keys no upload writes are kept.
func TestSweepOrphans(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]func(t *testing.T) blob.Store{
		"local": func(t *testing.T) blob.Store { return blob.NewLocal(t.TempDir()) },
		"s3":    func(t *testing.T) blob.Store { return blobtest.S3(t) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testSweepOrphans(t, blob.WithPrefix(open(t), "files"))
		})
	}
}

func testSweepOrphans(t *testing.T, blobs blob.Store) {
	f := newFixture(t)
	ctx := context.Background()
	start := f.clock.Now()
	scope := tenant.Scope{AccountID: f.account}
	put := func(key string) string {
		_, _, err := blobs.Put(ctx, key, strings.NewReader("bytes"))
		require.NoError(t, err)
		return key
	}
	// upload stores a file as the route does: reserve, write the blob, settle.
	upload := func(name string) (string, string) {
		r, err := f.store.Reserve(ctx, f.account, 5)
		require.NoError(t, err)
		n := newFile(scope, name, 5)
		n.BlobKey = put(f.account + "/" + n.ID + "/" + r.ID)
		_, _, err = f.store.Create(ctx, r, n)
		require.NoError(t, err)
		return n.ID, n.BlobKey
	}
	_, live := upload("live.txt")
	deletedID, deleted := upload("deleted.txt")
	_, err := f.store.Delete(ctx, scope, deletedID)
	require.NoError(t, err)
	orphan := put(f.account + "/" + ids.New(ids.File) + "/" + ids.New(ids.FileReservation))
	held, err := f.store.Reserve(ctx, f.account, 5) // an upload still streaming, or about to settle
	require.NoError(t, err)
	inFlight := put(f.account + "/" + ids.New(ids.File) + "/" + held.ID)
	stray := put("not/an-upload")
	all := []string{live, deleted, orphan, inFlight, stray}

	n, err := f.store.SweepOrphans(ctx, blobs, 24*time.Hour)
	require.NoError(t, err)
	require.Zero(t, n, "young blobs are kept")
	f.clock.Set(start.Add(30 * time.Minute))
	n, err = f.store.SweepOrphans(ctx, blobs, 0)
	require.NoError(t, err)
	require.Zero(t, n, "the grace is never shorter than the reservation lifetime")
	requireBlobs(t, blobs, all...)

	f.clock.Set(start.Add(25 * time.Hour))
	n, err = f.store.SweepOrphans(ctx, blobs, 24*time.Hour)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	requireBlobs(t, blobs, live, deleted, inFlight, stray)

	n, err = f.store.SweepOrphans(ctx, blobs, 24*time.Hour)
	require.NoError(t, err)
	require.Zero(t, n, "sweeping again finds nothing")
}

// requireBlobs checks that the store holds exactly keys.
func requireBlobs(t *testing.T, s blob.Store, keys ...string) {
	t.Helper()
	var got []string
	require.NoError(t, s.List(context.Background(), "", func(info blob.Info) error {
		got = append(got, info.Key)
		return nil
	}))
	require.ElementsMatch(t, keys, got)
}
