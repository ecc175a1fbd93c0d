package blob_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/blob"
)

func TestLocal(t *testing.T) {
	t.Parallel()
	runSuite(t, func(t *testing.T) blob.Store { return blob.NewLocal(t.TempDir()) })
}

// TestLocalKeysCannotEscapeTheDirectory: invalid keys write nothing anywhere, not even the store's root.
func TestLocalKeysCannotEscapeTheDirectory(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	s := blob.NewLocal(filepath.Join(parent, "blobs"))
	for _, key := range []string{"../escape", "a/../../escape", "/etc/passwd", `a\..\..\escape`, ".."} {
		_, _, err := s.Put(context.Background(), key, strings.NewReader("x"))
		require.Error(t, err, "put %q", key)
	}
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing was written anywhere")
}

// TestLocalTemporaryFiles: a failed write leaves no temporary file, and one a crash left behind is
// invisible to every key and to List.
func TestLocalTemporaryFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := blob.NewLocal(dir)
	ctx := context.Background()
	put(t, s, "acct/old", "complete")
	_, _, err := s.Put(ctx, "acct/old", &failingReader{data: []byte("partial"), err: os.ErrClosed})
	require.ErrorIs(t, err, os.ErrClosed)
	entries, err := os.ReadDir(filepath.Join(dir, "acct"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
	require.Equal(t, "old", entries[0].Name())

	// What a crash between create and rename leaves: a temporary file no key can name.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "acct", ".tmp-123"), []byte("half"), 0o600))
	_, err = s.Open(ctx, "acct/.tmp-123")
	require.Error(t, err)
	var keys []string
	require.NoError(t, s.List(ctx, "", func(i blob.Info) error { keys = append(keys, i.Key); return nil }))
	require.Equal(t, []string{"acct/old"}, keys)
}

// TestOpenURL: file URLs open a local store; unknown schemes and malformed file URLs are refused.
func TestOpenURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := blob.Open(context.Background(), "file://"+dir)
	require.NoError(t, err)
	require.Equal(t, dir, s.(*blob.Local).Dir())
	s, err = blob.Open(context.Background(), "file:rel/blobs")
	require.NoError(t, err)
	require.Equal(t, "rel/blobs", s.(*blob.Local).Dir())
	for _, bad := range []string{"ftp://host/x", "file://otherhost/x", "file://", "/plain/path", "%zz"} {
		_, err := blob.Open(context.Background(), bad)
		require.Error(t, err, bad)
	}
}
