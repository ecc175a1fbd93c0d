package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/schema"
)

const (
	// fileSize is the benchmark's file: 50 MB, under the club tier's 50 MiB cap.
	fileSize = 50_000_000
	// fileRounds is how many alternating transfers of each kind one iteration makes per side.
	fileRounds = 3
	// heapSampleEvery is how often the heap is sampled during a transfer.
	heapSampleEvery = 2 * time.Millisecond
)

// BenchmarkFilesUploadDownloadVersusBlobDir uploads a 50 MB file through POST /v1/files (streamed from a
// reader, with Content-Length and X-Content-Sha256) and downloads it through GET /v1/files/{id}/content
// into io.Discard, against blob.Local.Put of the same bytes into the API's own blob directory and a read
// of that blob into io.Discard, in three alternating rounds of each; it reports the four throughputs, the
// two api/direct ratios, and the peak heap growth of this process (which serves the API) over its
// baseline after a GC, sampled during every transfer.
func BenchmarkFilesUploadDownloadVersusBlobDir(b *testing.B) {
	app.TuneGC(os.Getenv) // as svcd does
	env := apptest.New(b)
	key := clubKey(b, env)
	sum := patternSHA256(fileSize)
	hc := &http.Client{Transport: &http.Transport{}}
	ctx := context.Background()
	plain := plainBlobServer(b, env.Blobs)
	iter := 0
	for b.Loop() {
		iter++
		var upAPI, upDirect, downAPI, downDirect, downPlain time.Duration
		var heap heapPeaks
		for round := range fileRounds {
			var id string
			d, g := withHeapSampler(func() { id = uploadViaAPI(b, hc, env.URL, key, sum, fmt.Sprintf("bench-%d-%d", iter, round)) })
			upAPI, heap.upAPI = upAPI+d, max(heap.upAPI, g)
			directKey := fmt.Sprintf("bench-direct/%d-%d/blob", iter, round)
			d, g = withHeapSampler(func() { putDirect(ctx, b, env.Blobs, directKey, sum) })
			upDirect, heap.upDirect = upDirect+d, max(heap.upDirect, g)
			d, g = withHeapSampler(func() { downloadViaAPI(b, hc, env.URL, key, id) })
			downAPI, heap.downAPI = downAPI+d, max(heap.downAPI, g)
			d, g = withHeapSampler(func() { readDirect(ctx, b, env.Blobs, directKey) })
			downDirect, heap.downDirect = downDirect+d, max(heap.downDirect, g)
			d, _ = withHeapSampler(func() { downloadPlain(b, hc, plain, directKey) })
			downPlain += d
			require.NoError(b, env.Blobs.Delete(ctx, directKey))
		}
		reportFiles(b, upAPI, upDirect, downAPI, downDirect, heap)
		rate := func(d time.Duration) float64 { return fileRounds * fileSize / 1e6 / d.Seconds() }
		b.ReportMetric(rate(downPlain), "down-plain-MB/s")
		b.ReportMetric(rate(downAPI)/rate(downPlain), "down-vs-plain-ratio")
		b.Logf("download through a plain net/http server of the same blob: %.0f MB/s (the API: %.2f of it)",
			rate(downPlain), rate(downAPI)/rate(downPlain))
	}
}

// heapPeaks are the largest heap growths (bytes) seen during each kind of transfer.
type heapPeaks struct{ upAPI, upDirect, downAPI, downDirect uint64 }

func reportFiles(b *testing.B, upAPI, upDirect, downAPI, downDirect time.Duration, heap heapPeaks) {
	rate := func(d time.Duration) float64 { return fileRounds * fileSize / 1e6 / d.Seconds() }
	mb := func(n uint64) float64 { return float64(n) / (1 << 20) }
	b.ReportMetric(rate(upAPI), "up-api-MB/s")
	b.ReportMetric(rate(upDirect), "up-direct-MB/s")
	b.ReportMetric(rate(upAPI)/rate(upDirect), "up-ratio")
	b.ReportMetric(rate(downAPI), "down-api-MB/s")
	b.ReportMetric(rate(downDirect), "down-direct-MB/s")
	b.ReportMetric(rate(downAPI)/rate(downDirect), "down-ratio")
	b.ReportMetric(mb(heap.upAPI), "up-api-heap-MiB")
	b.ReportMetric(mb(heap.downAPI), "down-api-heap-MiB")
	b.Logf("upload: api %.0f MB/s, direct %.0f MB/s, ratio %.2f; download: api %.0f MB/s, direct %.0f MB/s, ratio %.2f",
		rate(upAPI), rate(upDirect), rate(upAPI)/rate(upDirect), rate(downAPI), rate(downDirect), rate(downAPI)/rate(downDirect))
	b.Logf("peak heap growth (HeapAlloc or HeapInuse, whichever grew more): upload api %.1f MiB, direct %.1f MiB; download api %.1f MiB, direct %.1f MiB",
		mb(heap.upAPI), mb(heap.upDirect), mb(heap.downAPI), mb(heap.downDirect))
}

// clubKey creates an account on the club tier (whose 50 MiB file cap admits the file) and its first key.
func clubKey(b *testing.B, env *apptest.Env) string {
	accountID, token := env.NewAccount(b, "files-bench")
	require.NoError(b, file.SetTier(context.Background(), env.DB, accountID, schema.TierClub))
	resp := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first-key"}})
	require.Equal(b, http.StatusCreated, resp.Status, "%s", resp.Raw)
	return resp.Body["apiKey"].(map[string]any)["secret"].(string)
}

// uploadViaAPI streams the pattern's first fileSize bytes to POST /v1/files and returns the file's id.
func uploadViaAPI(b *testing.B, hc *http.Client, base, key, sum, idem string) string {
	req, err := http.NewRequest(http.MethodPost, base+"/v1/files", newPattern(fileSize))
	require.NoError(b, err)
	req.ContentLength = fileSize
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("X-File-Name", "bench.bin")
	req.Header.Set("X-Content-Sha256", sum)
	req.Header.Set("Idempotency-Key", idem)
	resp, err := hc.Do(req)
	require.NoError(b, err)
	defer resp.Body.Close()
	var out struct {
		File struct {
			ID    string `json:"id"`
			Bytes int64  `json:"bytes"`
		} `json:"file"`
	}
	require.Equal(b, http.StatusCreated, resp.StatusCode)
	require.NoError(b, json.NewDecoder(resp.Body).Decode(&out))
	require.EqualValues(b, fileSize, out.File.Bytes)
	return out.File.ID
}

// putDirect writes the same bytes with the Put the API's uploads use (hashing, fsync, rename, directory
// sync), into the API's blob directory.
func putDirect(ctx context.Context, b *testing.B, blobs blob.Store, key, sum string) {
	n, got, err := blobs.Put(ctx, key, newPattern(fileSize))
	require.NoError(b, err)
	require.EqualValues(b, fileSize, n)
	require.Equal(b, sum, got)
}

// downloadViaAPI reads GET /v1/files/{id}/content into io.Discard.
func downloadViaAPI(b *testing.B, hc *http.Client, base, key, id string) {
	req, err := http.NewRequest(http.MethodGet, base+"/v1/files/"+id+"/content", nil)
	require.NoError(b, err)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := hc.Do(req)
	require.NoError(b, err)
	defer resp.Body.Close()
	require.Equal(b, http.StatusOK, resp.StatusCode)
	n, err := io.Copy(io.Discard, resp.Body)
	require.NoError(b, err)
	require.EqualValues(b, fileSize, n)
}

// plainBlobServer is the transport's ceiling for downloads: a bare net/http server in this process that
// copies a blob of the store to its answer, with no key, limits, accounting or audit.
func plainBlobServer(b *testing.B, blobs blob.Store) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc, err := blobs.Open(r.Context(), strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		defer rc.Close()
		w.Header().Set("Content-Length", strconv.FormatInt(rc.Size(), 10))
		_, _ = io.Copy(w, rc)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// downloadPlain reads a blob from the plain server into io.Discard.
func downloadPlain(b *testing.B, hc *http.Client, base, key string) {
	resp, err := hc.Get(base + "/" + key)
	require.NoError(b, err)
	defer resp.Body.Close()
	require.Equal(b, http.StatusOK, resp.StatusCode)
	n, err := io.Copy(io.Discard, resp.Body)
	require.NoError(b, err)
	require.EqualValues(b, fileSize, n)
}

// readDirect opens the blob in the store and copies it into io.Discard.
func readDirect(ctx context.Context, b *testing.B, blobs blob.Store, key string) {
	rc, err := blobs.Open(ctx, key)
	require.NoError(b, err)
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	require.NoError(b, err)
	require.EqualValues(b, fileSize, n)
}

// withHeapSampler runs f after a GC and returns how long it took and the peak growth of HeapAlloc or
// HeapInuse (whichever grew more) over the values before it, sampled every heapSampleEvery and once at
// the end.
func withHeapSampler(f func()) (time.Duration, uint64) {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak uint64
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, growth(m.HeapAlloc, base.HeapAlloc), growth(m.HeapInuse, base.HeapInuse))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(heapSampleEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				sample()
			}
		}
	}()
	t0 := time.Now()
	f()
	d := time.Since(t0)
	close(stop)
	wg.Wait()
	sample()
	return d, peak
}

func growth(now, base uint64) uint64 {
	if now < base {
		return 0
	}
	return now - base
}

// patternBlock is the benchmark file's repeating block: 1 MiB of pseudo-random bytes.
var patternBlock = func() []byte {
	r := rand.New(rand.NewPCG(16, 50))
	p := make([]byte, 1<<20)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}()

// pattern yields the first n bytes of patternBlock repeated, without holding them.
type pattern struct{ off, n int64 }

func newPattern(n int64) *pattern { return &pattern{n: n} }

func (p *pattern) Read(buf []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	buf = buf[:min(int64(len(buf)), p.n-p.off)]
	total := 0
	for total < len(buf) {
		k := copy(buf[total:], patternBlock[(p.off+int64(total))%int64(len(patternBlock)):])
		total += k
	}
	p.off += int64(total)
	return total, nil
}

// patternSHA256 is the hex SHA-256 of the pattern's first n bytes.
func patternSHA256(n int64) string {
	h := sha256.New()
	_, _ = io.Copy(h, newPattern(n))
	return hex.EncodeToString(h.Sum(nil))
}
