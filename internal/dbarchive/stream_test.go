package dbarchive_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/dbarchive"
)

// heapWriter discards what it is given, sampling the heap every sampleEvery bytes.
type heapWriter struct {
	n, next  int64
	base     uint64
	peakGrow uint64
}

const sampleEvery = 2 << 20

func (h *heapWriter) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	if h.n >= h.next {
		h.next = h.n + sampleEvery
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > h.base {
			h.peakGrow = max(h.peakGrow, ms.HeapAlloc-h.base)
		}
	}
	return len(p), nil
}

// TestExportStreams is not parallel: it measures the process's heap, which other tests would disturb
// (parallel tests wait until it is done).
func TestExportStreams(t *testing.T) {
	a := newScratch(t)
	a.exec(t, `CREATE TABLE big (id bigint PRIMARY KEY, s text, at timestamptz)`,
		`INSERT INTO big SELECT g, md5(g::text) || repeat(' x', 50), '2026-01-01'::timestamptz + g * interval '1 s'
			FROM generate_series(1, 200000) g`)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w := &heapWriter{base: ms.HeapAlloc}
	m, err := dbarchive.Export(context.Background(), a.reader, w, testKey, nil)
	require.NoError(t, err)
	require.Len(t, m.Tables, 1)
	assert.EqualValues(t, 200_000, m.Tables[0].Rows)
	csv := m.Tables[0].Bytes
	require.Greater(t, csv, int64(25<<20), "the table's CSV is larger than the heap bound")
	t.Logf("CSV %d bytes, archive %d bytes, peak heap growth %d bytes", csv, w.n, w.peakGrow)
	// The bound leaves room for garbage the collector has not yet reclaimed (HeapAlloc counts it); holding
	// the table would take all of it.
	assert.Less(t, w.peakGrow, uint64(csv/4), "the export holds no table in memory")
}
