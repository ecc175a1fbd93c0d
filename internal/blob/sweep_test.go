package blob_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/blob/blobtest"
)

// TestSweepUnreferenced: blobs written before the cutoff that inUse does not claim are deleted, in
// batches of at most SweepBatch keys; claimed ones and those written after the cutoff are kept.
func TestSweepUnreferenced(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := blobtest.S3(t)
	total := blob.SweepBatch + 3 // two batches
	for i := range total {
		_, _, err := s.Put(ctx, fmt.Sprintf("a/%04d", i), strings.NewReader("x"))
		require.NoError(t, err)
	}
	var calls []int
	keepEven := func(_ context.Context, keys []string) (map[string]bool, error) {
		calls = append(calls, len(keys))
		keep := map[string]bool{}
		for _, k := range keys {
			if k[len(k)-1]%2 == 0 {
				keep[k] = true
			}
		}
		return keep, nil
	}

	n, err := blob.SweepUnreferenced(ctx, s, time.Now().Add(-time.Hour), keepEven)
	require.NoError(t, err)
	require.Zero(t, n, "blobs newer than the cutoff are kept")
	require.Empty(t, calls, "and nobody is asked about them")

	n, err = blob.SweepUnreferenced(ctx, s, time.Now().Add(time.Hour), keepEven)
	require.NoError(t, err)
	require.Equal(t, total/2, n)
	require.Equal(t, []int{blob.SweepBatch, total - blob.SweepBatch}, calls)
	left := 0
	require.NoError(t, s.List(ctx, "", func(info blob.Info) error {
		left++
		require.Zero(t, (info.Key[len(info.Key)-1]-'0')%2, "odd key %s survived", info.Key)
		return nil
	}))
	require.Equal(t, total-n, left)
}

// TestSweepUnreferencedStopsOnError: a failing inUse deletes nothing and fails the sweep.
func TestSweepUnreferencedStopsOnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := blob.NewLocal(t.TempDir())
	_, _, err := s.Put(ctx, "a/b", strings.NewReader("x"))
	require.NoError(t, err)
	failing := func(context.Context, []string) (map[string]bool, error) { return nil, fmt.Errorf("database away") }
	_, err = blob.SweepUnreferenced(ctx, s, time.Now().Add(time.Hour), failing)
	require.ErrorContains(t, err, "database away")
	_, err = s.Stat(ctx, "a/b")
	require.NoError(t, err, "nothing is deleted when the rows cannot be checked")
}

// TestLocalRemoveStaleTemp: temporary files older than the cutoff are removed, wherever they are;
// fresh ones (a write in flight) and blobs are kept.
func TestLocalRemoveStaleTemp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := blob.NewLocal(dir)
	n, err := s.RemoveStaleTemp(ctx, time.Now())
	require.NoError(t, err)
	require.Zero(t, n, "an empty store has nothing to remove")

	_, _, err = s.Put(ctx, "files/a/b", strings.NewReader("blob"))
	require.NoError(t, err)
	stale := filepath.Join(dir, "files", "a", ".tmp-123")
	fresh := filepath.Join(dir, "files", "a", ".tmp-456")
	staleTop := filepath.Join(dir, ".tmp-789")
	for _, p := range []string{stale, fresh, staleTop} {
		require.NoError(t, os.WriteFile(p, []byte("partial"), 0o600))
	}
	now := time.Now()
	old := now.Add(-48 * time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))
	require.NoError(t, os.Chtimes(staleTop, old, old))
	// Blobs are never temporary files, however old.
	require.NoError(t, os.Chtimes(filepath.Join(dir, "files", "a", "b"), old, old))

	n, err = s.RemoveStaleTemp(ctx, now.Add(-24*time.Hour))
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.NoFileExists(t, stale)
	require.NoFileExists(t, staleTop)
	require.FileExists(t, fresh)
	_, err = s.Stat(ctx, "files/a/b")
	require.NoError(t, err)
}
