package blob_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/blob"
)

// runSuite checks the behaviour every Store promises, on a fresh, empty store from newStore per subtest.
func runSuite(t *testing.T, newStore func(t *testing.T) blob.Store) {
	t.Helper()
	for _, c := range []struct {
		name string
		test func(t *testing.T, s blob.Store)
	}{
		{"PutOpenStat", testPutOpenStat},
		{"Range", testRange},
		{"List", testList},
		{"Delete", testDelete},
		{"NotFound", testNotFound},
		{"PutIsAtomic", testPutIsAtomic},
		{"InvalidKeys", testInvalidKeys},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, newStore(t)) })
		t.Run("Prefixed/"+c.name, func(t *testing.T) { c.test(t, blob.WithPrefix(newStore(t), "view/")) })
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// read reads a whole reader and closes it.
func read(t *testing.T, r blob.Reader, err error) string {
	t.Helper()
	require.NoError(t, err)
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	return string(b)
}

// readKey reads the whole blob under key.
func readKey(t *testing.T, s blob.Store, key string) string {
	t.Helper()
	r, err := s.Open(context.Background(), key)
	return read(t, r, err)
}

func put(t *testing.T, s blob.Store, key, body string) {
	t.Helper()
	size, sum, err := s.Put(context.Background(), key, strings.NewReader(body))
	require.NoError(t, err)
	require.Equal(t, int64(len(body)), size)
	require.Equal(t, sha([]byte(body)), sum)
}

func testPutOpenStat(t *testing.T, s blob.Store) {
	ctx := context.Background()
	before := time.Now().Add(-time.Minute) // servers keep second-granular times
	put(t, s, "acct_1/a.txt", "hello world")
	r, err := s.Open(ctx, "acct_1/a.txt")
	require.NoError(t, err)
	require.Equal(t, int64(11), r.Size())
	require.Equal(t, "hello world", read(t, r, nil))

	info, err := s.Stat(ctx, "acct_1/a.txt")
	require.NoError(t, err)
	require.Equal(t, "acct_1/a.txt", info.Key)
	require.Equal(t, int64(11), info.Size)
	require.WithinRange(t, info.ModTime, before, time.Now().Add(time.Minute))

	put(t, s, "acct_1/a.txt", "replaced")
	require.Equal(t, "replaced", readKey(t, s, "acct_1/a.txt"))
	put(t, s, "empty", "")
	require.Equal(t, "", readKey(t, s, "empty"))
}

func testRange(t *testing.T, s blob.Store) {
	ctx := context.Background()
	put(t, s, "r/blob", "0123456789")
	for _, c := range []struct {
		off, n int64
		want   string
	}{{0, 10, "0123456789"}, {3, 4, "3456"}, {6, -1, "6789"}, {6, 100, "6789"}, {9, 1, "9"}, {4, 0, ""}} {
		r, err := s.OpenRange(ctx, "r/blob", c.off, c.n)
		require.NoError(t, err, "range %d+%d", c.off, c.n)
		require.Equal(t, int64(10), r.Size(), "Size is the whole blob's")
		require.Equal(t, c.want, read(t, r, nil), "range %d+%d", c.off, c.n)
	}
	_, err := s.OpenRange(ctx, "r/blob", 11, 1)
	require.Error(t, err, "an offset past the end is refused")
	require.NotErrorIs(t, err, blob.ErrNotFound)
}

func testList(t *testing.T, s blob.Store) {
	ctx := context.Background()
	for _, k := range []string{"p/x/1", "p/x/2", "p/y", "px", "q"} {
		put(t, s, k, "data-"+k)
	}
	list := func(prefix string) []string {
		var keys []string
		require.NoError(t, s.List(ctx, prefix, func(i blob.Info) error {
			require.Equal(t, int64(len("data-"+i.Key)), i.Size, i.Key)
			require.False(t, i.ModTime.IsZero(), i.Key)
			keys = append(keys, i.Key)
			return nil
		}))
		sort.Strings(keys)
		return keys
	}
	require.Equal(t, []string{"p/x/1", "p/x/2", "p/y", "px", "q"}, list(""))
	require.Equal(t, []string{"p/x/1", "p/x/2", "p/y"}, list("p/"))
	require.Equal(t, []string{"p/x/1", "p/x/2", "p/y", "px"}, list("p"))
	require.Equal(t, []string{"p/x/1", "p/x/2"}, list("p/x/"))
	require.Empty(t, list("nothing/"))

	stop := errors.New("stop")
	calls := 0
	err := s.List(ctx, "", func(blob.Info) error { calls++; return stop })
	require.ErrorIs(t, err, stop)
	require.Equal(t, 1, calls, "List stops at fn's first error")
}

func testDelete(t *testing.T, s blob.Store) {
	ctx := context.Background()
	put(t, s, "d/gone", "x")
	require.NoError(t, s.Delete(ctx, "d/gone"))
	_, err := s.Open(ctx, "d/gone")
	require.ErrorIs(t, err, blob.ErrNotFound)
	require.NoError(t, s.Delete(ctx, "d/gone"), "deleting nothing is fine")
	require.NoError(t, s.List(ctx, "d/", func(i blob.Info) error { return errors.New("listed " + i.Key) }))
}

func testNotFound(t *testing.T, s blob.Store) {
	ctx := context.Background()
	put(t, s, "n/file", "x")
	for _, key := range []string{"n/missing", "missing", "n/file/below", "n"} {
		_, err := s.Open(ctx, key)
		require.ErrorIs(t, err, blob.ErrNotFound, "open %q", key)
		_, err = s.OpenRange(ctx, key, 0, 1)
		require.ErrorIs(t, err, blob.ErrNotFound, "open range %q", key)
		_, err = s.Stat(ctx, key)
		require.ErrorIs(t, err, blob.ErrNotFound, "stat %q", key)
	}
}

// failingReader yields some bytes, then fails, like a connection cut mid-upload.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// testPutIsAtomic: a write whose reader fails or whose context ends leaves the key as it was (absent, or
// holding the previous blob), whether it failed in its first bytes or after several upload parts.
func testPutIsAtomic(t *testing.T, s blob.Store) {
	ctx := context.Background()
	boom := errors.New("connection cut")
	for _, n := range []int{1000, 12 << 20} { // the second passes S3's 5 MiB part size twice
		_, _, err := s.Put(ctx, "a/new", &failingReader{data: bytes.Repeat([]byte("y"), n), err: boom})
		require.ErrorIs(t, err, boom)
		_, err = s.Open(ctx, "a/new")
		require.ErrorIs(t, err, blob.ErrNotFound, "no half blob under the key after %d bytes", n)
	}
	put(t, s, "a/old", "complete")
	_, _, err := s.Put(ctx, "a/old", &failingReader{data: []byte("partial"), err: boom})
	require.ErrorIs(t, err, boom)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = s.Put(cctx, "a/old", strings.NewReader("cancelled"))
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, "complete", readKey(t, s, "a/old"), "a failed write keeps the previous blob")

	var keys []string
	require.NoError(t, s.List(ctx, "", func(i blob.Info) error { keys = append(keys, i.Key); return nil }))
	require.Equal(t, []string{"a/old"}, keys, "failed writes leave nothing listed")
}

func testInvalidKeys(t *testing.T, s blob.Store) {
	ctx := context.Background()
	for _, key := range []string{"../escape", "a/../../escape", "/etc/passwd", "a//b", "a/", ".tmp-1", "a/.hidden",
		`a\..\..\escape`, "..", ".", "", "a/b c", "a\nb", strings.Repeat("k", 513)} {
		require.False(t, blob.ValidKey(key), "key %q", key)
		_, _, err := s.Put(ctx, key, strings.NewReader("x"))
		require.Error(t, err, "put %q", key)
		_, err = s.Open(ctx, key)
		require.Error(t, err, "open %q", key)
		_, err = s.OpenRange(ctx, key, 0, 1)
		require.Error(t, err, "open range %q", key)
		_, err = s.Stat(ctx, key)
		require.Error(t, err, "stat %q", key)
		require.Error(t, s.Delete(ctx, key), "delete %q", key)
	}
	for _, key := range []string{"acct_1/art_2.abc", "a-b_c.d/e"} {
		require.True(t, blob.ValidKey(key), "key %q", key)
	}
	require.NoError(t, s.List(ctx, "", func(i blob.Info) error { return errors.New("listed " + i.Key) }), "nothing was written")
}
