package artifact_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/ids"
)

// TestSweepOrphans: a blob no artifact row refers to is deleted once past the grace period; the blob
// of a saved artifact, a young orphan and a key no save writes are kept.
func TestSweepOrphans(t *testing.T) {
	t.Parallel()
	f := newFixture(t, artifact.Options{})
	ctx := context.Background()
	now := time.Now()
	blobs := blob.NewLocal(f.dir)
	store := artifact.NewStore(f.db, blobs, artifact.Options{Now: func() time.Time { return now }})
	saved, err := store.Save(ctx, f.artifact("run_1", "managed-workflows", "result.json", `{"a":1}`))
	require.NoError(t, err)
	// A save that crashed after its blob: the same id as a saved artifact, another suffix, and one
	// that recorded nothing at all.
	retried := saved.AccountID + "/" + saved.ID + ".crashed"
	lost := f.account + "/" + ids.Derive(ids.Artifact, "run_2", "out.txt") + ".abc"
	stray := "elsewhere/file"
	for _, key := range []string{retried, lost, stray} {
		_, _, err := blobs.Put(ctx, key, strings.NewReader("bytes"))
		require.NoError(t, err)
	}

	n, err := store.SweepOrphans(ctx, 0)
	require.NoError(t, err)
	require.Zero(t, n, "young blobs are kept")

	now = now.Add(artifact.DefaultOrphanGrace + time.Minute)
	n, err = store.SweepOrphans(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	var left []string
	require.NoError(t, blobs.List(ctx, "", func(info blob.Info) error {
		left = append(left, info.Key)
		return nil
	}))
	require.ElementsMatch(t, []string{saved.BlobKey, stray}, left)
	require.Equal(t, `{"a":1}`, string(readAll(t, store, saved)), "the saved artifact still reads")
}
