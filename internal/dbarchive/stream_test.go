package dbarchive_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/dbarchive"
)

// heapSampler samples the heap's growth over a base every sampleEvery bytes.
type heapSampler struct {
	n, next  int64
	base     uint64
	peakGrow uint64
}

const sampleEvery = 2 << 20

func newHeapSampler() *heapSampler {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return &heapSampler{base: ms.HeapAlloc}
}

func (h *heapSampler) add(n int) {
	h.n += int64(n)
	if h.n >= h.next {
		h.next = h.n + sampleEvery
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > h.base {
			h.peakGrow = max(h.peakGrow, ms.HeapAlloc-h.base)
		}
	}
}

// heapWriter writes to w, sampling the heap.
type heapWriter struct {
	*heapSampler
	w io.Writer
}

func (h heapWriter) Write(p []byte) (int, error) {
	h.add(len(p))
	return h.w.Write(p)
}

// heapReaderAt reads from r, sampling the heap.
type heapReaderAt struct {
	*heapSampler
	r io.ReaderAt
}

func (h heapReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := h.r.ReadAt(p, off)
	h.add(n)
	return n, err
}

// TestExportAndImportStream is not parallel: it measures the process's heap, which other tests would
// disturb (parallel tests wait until it is done).
func TestExportAndImportStream(t *testing.T) {
	ctx := context.Background()
	a, b := newScratch(t), newScratch(t)
	a.exec(t, `CREATE TABLE big (id bigint PRIMARY KEY, s text, at timestamptz)`,
		`INSERT INTO big SELECT g, md5(g::text) || repeat(' x', 50), '2026-01-01'::timestamptz + g * interval '1 s'
			FROM generate_series(1, 200000) g`)
	f, err := os.Create(filepath.Join(t.TempDir(), "archive.zip"))
	require.NoError(t, err)
	defer f.Close()

	w := heapWriter{heapSampler: newHeapSampler(), w: f}
	m, err := dbarchive.Export(ctx, a.reader, w, testKey, nil)
	require.NoError(t, err)
	require.Len(t, m.Tables, 1)
	assert.EqualValues(t, 200_000, m.Tables[0].Rows)
	csv := m.Tables[0].Bytes
	require.Greater(t, csv, int64(25<<20), "the table's CSV is larger than the heap bound")
	t.Logf("export: CSV %d bytes, archive %d bytes, peak heap growth %d bytes", csv, w.n, w.peakGrow)
	// The bound leaves room for garbage the collector has not yet reclaimed (HeapAlloc counts it); holding
	// the table would take all of it.
	assert.Less(t, w.peakGrow, uint64(csv/4), "the export holds no table in memory")

	r := heapReaderAt{heapSampler: newHeapSampler(), r: f}
	arc, err := dbarchive.Open(r, w.n, dbarchive.VerifyOptions{PublicKey: testPub()})
	require.NoError(t, err)
	require.NoError(t, arc.Import(ctx, b.owner))
	t.Logf("open and import: read %d bytes, peak heap growth %d bytes", r.n, r.peakGrow)
	assert.Less(t, r.peakGrow, uint64(csv/4), "the import holds no table in memory")
	var n int
	require.NoError(t, b.owner.QueryRowContext(ctx, `SELECT count(*) FROM big`).Scan(&n))
	assert.Equal(t, 200_000, n)
}
