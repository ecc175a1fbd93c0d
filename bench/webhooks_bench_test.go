package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/workflows"
)

const (
	// webhookEvents is how many events BenchmarkWebhookDeliveriesVersusPlainPosts emits: 2,000, not the
	// issue's 10,000, which take ~7 minutes at the ~24 deliveries/s of this 2-core machine (see
	// docs/BENCHMARKS.md); SVC_BENCH_WEBHOOK_EVENTS overrides it (10000 for the number).
	webhookEvents = 2_000
	// plainPostClients is the baseline's concurrency: the Sender keeps up to 64 idle connections per host.
	plainPostClients = 64
	// apiClients sample the API's latency while deliveries flow, each one request per apiPace (paced, so
	// the sampling does not take the CPU the deliveries need).
	apiClients = 4
	apiPace    = 10 * time.Millisecond
	// failingEvents is how many deliveries BenchmarkWebhookMemoryWithFailingEndpoint leaves waiting;
	// SVC_BENCH_WEBHOOK_FAILING overrides it (100000 for the number).
	failingEvents = 1_000
)

// receiver is a local webhook endpoint that answers status at once and counts the requests per path.
type receiver struct {
	*httptest.Server
	hooks, plain atomic.Int64
	inFlight     atomic.Int64
	peak         atomic.Int64
	bodyLen      atomic.Int64
	// want closes done when hooks reaches it.
	want int64
	once sync.Once
	done chan struct{}
}

func newReceiver(status int, want int64) *receiver {
	rc := &receiver{want: want, done: make(chan struct{})}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := rc.inFlight.Add(1)
		defer rc.inFlight.Add(-1)
		for p := rc.peak.Load(); cur > p && !rc.peak.CompareAndSwap(p, cur); p = rc.peak.Load() {
		}
		n, _ := io.Copy(io.Discard, r.Body)
		w.WriteHeader(status)
		if r.URL.Path == "/plain" {
			rc.plain.Add(1)
			return
		}
		rc.bodyLen.Store(n)
		if rc.hooks.Add(1) == rc.want {
			rc.once.Do(func() { close(rc.done) })
		}
	}))
	return rc
}

// registerHook registers an endpoint for every event type through the API and returns the account and
// project of its scope, for emitting events into the outbox directly.
func registerHook(b *testing.B, env *apptest.Env, key, url string) (string, *string) {
	r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/webhooks", Key: key,
		Body: map[string]any{"url": url, "events": []string{"*"}}, Headers: map[string]string{"Idempotency-Key": "hook"}})
	require.Equal(b, http.StatusCreated, r.Status, "%s", r.Raw)
	id := r.Body["webhook"].(map[string]any)["id"].(string)
	var scope struct {
		AccountID string  `bun:"account_id"`
		ProjectID *string `bun:"project_id"`
	}
	require.NoError(b, env.DB.NewRaw("SELECT account_id, project_id FROM webhooks WHERE id = ?", id).Scan(context.Background(), &scope))
	return scope.AccountID, scope.ProjectID
}

// emit records n run.succeeded events of the account in the outbox, 1,000 per statement.
func emit(b *testing.B, env *apptest.Env, account string, project *string, tag string, n int) {
	ctx := context.Background()
	for lo := 0; lo < n; lo += 1000 {
		evs := make([]outbox.Event, 0, 1000)
		for i := lo; i < min(lo+1000, n); i++ {
			subject := fmt.Sprintf("run_bench_%s_%06d", tag, i)
			evs = append(evs, outbox.Event{AccountID: account, ProjectID: project, Type: outbox.RunSucceeded, Subject: subject,
				Data: map[string]any{"id": subject, "serviceId": "managed-workflows", "operationId": "echo", "status": "succeeded",
					"output": map[string]any{"n": i}}})
		}
		require.NoError(b, outbox.Emit(ctx, env.DB, evs...))
	}
}

// plainPosts sends n POSTs of size bytes to url from clients keep-alive connections and returns how
// long they took; every one must answer 2xx.
func plainPosts(b *testing.B, url string, n, clients, size int) time.Duration {
	transport := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: 15 * time.Second}
	body := `{"pad":"` + strings.Repeat("x", max(size-10, 0)) + `"}`
	var next, errs atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				resp, err := hc.Post(url, "application/json", strings.NewReader(body))
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode/100 != 2 {
					errs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	require.Zero(b, errs.Load(), "plain posts failed")
	return elapsed
}

// pacedLoad sends a request every pace from each of clients keep-alive connections (the next one at
// once if a request took longer) until ctx ends; a request counts as an error unless it answers 200.
func pacedLoad(ctx context.Context, clients int, pace time.Duration, newReq func() *http.Request) LoadResult {
	transport := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	var mu sync.Mutex
	var all []time.Duration
	var errs atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(pace)
			defer tick.Stop()
			var lat []time.Duration
			for ctx.Err() == nil {
				t0 := time.Now()
				resp, err := hc.Do(newReq().WithContext(ctx))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				switch {
				case err != nil && ctx.Err() != nil:
				case err != nil || resp.StatusCode != http.StatusOK:
					errs.Add(1)
				default:
					lat = append(lat, time.Since(t0))
				}
				select {
				case <-ctx.Done():
				case <-tick.C:
				}
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return LoadResult{Requests: int64(len(all)), Errors: errs.Load(), Duration: time.Since(start), latencies: all}.withPercentiles()
}

// BenchmarkWebhookDeliveriesVersusPlainPosts emits 10,000 events into the outbox for an account with one
// endpoint (for "*") on a local receiver that answers 204 at once, and measures the time from the first
// insert until the receiver has had every delivery, while four clients send the authenticated
// GET /v1/webhooks every 10 ms each (p50/p99, also measured for 3 s before). The baseline sends as many plain POSTs of
// the same body size to the same receiver from 64 keep-alive connections. Reports both rates and
// deliveries/s ÷ posts/s.
func BenchmarkWebhookDeliveriesVersusPlainPosts(b *testing.B) {
	app.TuneGC(os.Getenv) // as svcd does
	benchDeliveries(b, apptest.New(b))
}

// BenchmarkWebhookDeliveriesWorkerProcess is BenchmarkWebhookDeliveriesVersusPlainPosts with the platform
// deployed as the README's split deployment runs it: the worker (its Temporal worker and webhook
// dispatcher) in a process of its own beside the API's, started at the priority of the API
// (`nice-0`) and below it (`nice-10`, as an operator sharing one host between them would run it). The
// benchmark's process keeps the API, the Temporal server, the receiver and the load generators.
func BenchmarkWebhookDeliveriesWorkerProcess(b *testing.B) {
	for _, nice := range []int{0, 10} {
		b.Run(fmt.Sprintf("nice-%d", nice), func(b *testing.B) {
			app.TuneGC(os.Getenv)
			env := apptest.NewWith(b, apptest.Options{NoWorker: true})
			startWorkerProcess(b, env, nice, "SVC_WEBHOOKS_ALLOW_LOOPBACK=1")
			benchDeliveries(b, env)
		})
	}
}

// benchDeliveries is the body of the delivery benchmarks: n events to one healthy receiver against as
// many plain POSTs, with the API's latency sampled before and while they are delivered.
func benchDeliveries(b *testing.B, env *apptest.Env) {
	n := webhookEvents
	if v, err := strconv.Atoi(os.Getenv("SVC_BENCH_WEBHOOK_EVENTS")); err == nil && v > 0 {
		n = v
	}
	key := env.FirstKey(b)
	ctx := context.Background()
	iter := 0
	for b.Loop() {
		iter++
		rc := newReceiver(http.StatusNoContent, int64(n))
		account, project := registerHook(b, env, key, rc.URL+"/hook")
		if iter > 1 { // a second iteration would register a second endpoint of the same account
			b.Fatal("run with -benchtime 1x")
		}
		apiURL := env.URL + "/v1/webhooks"
		quietCtx, stopQuiet := context.WithTimeout(ctx, 3*time.Second)
		quiet := pacedLoad(quietCtx, apiClients, apiPace, getReq(apiURL, key))
		stopQuiet()

		loadCtx, stopLoad := context.WithCancel(ctx)
		busyCh := make(chan LoadResult, 1)
		go func() { busyCh <- pacedLoad(loadCtx, apiClients, apiPace, getReq(apiURL, key)) }()
		before := sampleProc(env)
		start := time.Now()
		emit(b, env, account, project, strconv.Itoa(iter), n)
		emitted := time.Since(start)
		select {
		case <-rc.done:
		case <-time.After(8 * time.Minute):
			stopLoad()
			b.Fatalf("only %d of %d deliveries arrived in 8 minutes", rc.hooks.Load(), n)
		}
		delivered := time.Since(start)
		stopLoad()
		busy := <-busyCh
		during := sampleProc(env).since(before)
		deliveryPeak := rc.peak.Load()
		require.Zero(b, quiet.Errors+busy.Errors, "API requests failed")

		rc.peak.Store(0)
		size := int(rc.bodyLen.Load())
		posted := plainPosts(b, rc.URL+"/plain", n, plainPostClients, size)
		rc.Close()

		dps, pps := float64(n)/delivered.Seconds(), float64(n)/posted.Seconds()
		b.ReportMetric(dps, "deliveries/s")
		b.ReportMetric(pps, "posts/s")
		b.ReportMetric(dps/pps, "ratio")
		b.ReportMetric(float64(busy.P50.Microseconds())/1000, "api-busy-p50-ms")
		b.ReportMetric(float64(busy.P99.Microseconds())/1000, "api-busy-p99-ms")
		b.ReportMetric(float64(quiet.P50.Microseconds())/1000, "api-quiet-p50-ms")
		b.ReportMetric(float64(quiet.P99.Microseconds())/1000, "api-quiet-p99-ms")
		logDispatch(b, env)
		b.Logf("%d events emitted in %v; all delivered after %v (%.0f/s, peak %d in flight at the receiver, %d-byte bodies)",
			n, emitted.Round(time.Millisecond), delivered.Round(time.Millisecond), dps, deliveryPeak, size)
		b.Logf("plain posts: %d in %v (%.0f/s, peak %d in flight); ratio %.4f", n, posted.Round(time.Millisecond), pps, rc.peak.Load(), dps/pps)
		b.Logf("GET /v1/webhooks from %d clients: quiet p50 %v p99 %v (%.0f req/s); while delivering p50 %v p99 %v (%.0f req/s, %d requests)",
			apiClients, quiet.P50, quiet.P99, quiet.RPS(), busy.P50, busy.P99, busy.RPS(), busy.Requests)
		b.Logf("while delivering: %s", during)
	}
}

// logDispatch logs how the deliveries were dispatched: how many dispatcher transactions recorded them
// (one now() each) over how long, and how long their first attempts spread over.
func logDispatch(b *testing.B, env *apptest.Env) {
	var d struct {
		Txs      int     `bun:"txs"`
		Spread   float64 `bun:"spread"`
		Attempts float64 `bun:"attempts"`
	}
	require.NoError(b, env.DB.NewRaw(`SELECT (SELECT count(DISTINCT created_at) FROM webhook_deliveries) AS txs,
		(SELECT extract(epoch FROM max(created_at) - min(created_at)) FROM webhook_deliveries) AS spread,
		(SELECT extract(epoch FROM max(started_at) - min(started_at)) FROM webhook_attempts WHERE number = 1) AS attempts`).
		Scan(context.Background(), &d))
	b.Logf("deliveries recorded by %d dispatcher transactions over %.1f s; first attempts spread over %.1f s", d.Txs, d.Spread, d.Attempts)
}

// procSample is what the process's connection pool and garbage collector had done by a moment.
type procSample struct {
	poolWaits  int64
	poolWaited time.Duration
	maxOpen    int
	gcs        uint32
	gcPause    time.Duration
	at         time.Time
}

func sampleProc(env *apptest.Env) procSample {
	st := env.DB.Stats()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return procSample{poolWaits: st.WaitCount, poolWaited: st.WaitDuration, maxOpen: st.MaxOpenConnections,
		gcs: ms.NumGC, gcPause: time.Duration(ms.PauseTotalNs), at: time.Now()}
}

// procDelta is what happened between two samples.
type procDelta struct {
	poolWaits  int64
	poolWaited time.Duration
	maxOpen    int
	gcs        uint32
	gcPause    time.Duration
	elapsed    time.Duration
}

func (s procSample) since(b procSample) procDelta {
	return procDelta{poolWaits: s.poolWaits - b.poolWaits, poolWaited: s.poolWaited - b.poolWaited, maxOpen: s.maxOpen,
		gcs: s.gcs - b.gcs, gcPause: s.gcPause - b.gcPause, elapsed: s.at.Sub(b.at)}
}

func (d procDelta) String() string {
	return fmt.Sprintf("%d waits for one of the pool's %d connections (%v in all); %d GC cycles, %v of stop-the-world pauses in %v",
		d.poolWaits, d.maxOpen, d.poolWaited.Round(time.Microsecond), d.gcs, d.gcPause.Round(time.Microsecond), d.elapsed.Round(time.Millisecond))
}

// heapSample is the Go heap in use after a collection, and the goroutines alive.
type heapSample struct {
	label      string
	heapInuse  uint64
	heapAlloc  uint64
	goroutines int
	attempts   int
}

func sampleHeap(b *testing.B, env *apptest.Env, label string) heapSample {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := heapSample{label: label, heapInuse: ms.HeapInuse, heapAlloc: ms.HeapAlloc, goroutines: runtime.NumGoroutine()}
	require.NoError(b, env.DB.NewRaw("SELECT count(*) FROM webhook_attempts").Scan(context.Background(), &s.attempts))
	return s
}

func mib(v uint64) float64 { return float64(v) / (1 << 20) }

// waitRecorded polls until the endpoint on url has count deliveries recorded and at least attempts
// attempts made.
func waitRecorded(b *testing.B, env *apptest.Env, url string, count, attempts int, within time.Duration) {
	ctx := context.Background()
	deadline := time.Now().Add(within)
	for {
		var got struct {
			Deliveries int `bun:"deliveries"`
			Attempts   int `bun:"attempts"`
		}
		require.NoError(b, env.DB.NewRaw(`SELECT count(*) AS deliveries,
				(SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
					WHERE d.webhook_id = w.id) AS attempts
			FROM webhooks w JOIN webhook_deliveries d ON d.webhook_id = w.id WHERE w.url = ? GROUP BY w.id`, url).Scan(ctx, &got))
		if got.Deliveries >= count && got.Attempts >= attempts {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d deliveries recorded and %d of %d attempts made within %v", got.Deliveries, count, got.Attempts, attempts, within)
		}
		time.Sleep(100 * time.Millisecond) // polling for a count, not synchronisation
	}
}

// BenchmarkWebhookMemoryWithFailingEndpoint registers an endpoint on a receiver that always answers 500,
// emits 1,000 events (SVC_BENCH_WEBHOOK_FAILING: 100,000 for the issue), and samples the Go heap (after
// GC) before emitting; when every delivery is recorded and the endpoint's loop, having seen a full batch
// fail, probes it (LoopProbes deliveries a back-off apart), so that the deliveries wait: pending rows,
// most of them due and not yet attempted; and 5 s, 10 s and 30 s after that. It fails if more than a
// few probes are made while they wait. The in-process Temporal server (and its store) shares the heap.
func BenchmarkWebhookMemoryWithFailingEndpoint(b *testing.B) {
	env := apptest.New(b)
	key := env.FirstKey(b)
	iter := 0
	for b.Loop() {
		iter++
		if iter > 1 {
			b.Fatal("run with -benchtime 1x")
		}
		waiting := envInt("SVC_BENCH_WEBHOOK_FAILING", failingEvents)
		rc := newReceiver(http.StatusInternalServerError, -1)
		account, project := registerHook(b, env, key, rc.URL+"/hook")
		samples := []heapSample{sampleHeap(b, env, "before emitting")}
		start := time.Now()
		emit(b, env, account, project, "failing", waiting)
		waitRecorded(b, env, rc.URL+"/hook", waiting, min(waiting, workflows.LoopProbeAfter), 20*time.Minute)
		recorded := time.Since(start)
		samples = append(samples, sampleHeap(b, env, "all recorded, probing"))
		for _, wait := range []time.Duration{5 * time.Second, 5 * time.Second, 20 * time.Second} {
			time.Sleep(wait) // spacing of the samples, not synchronisation
			samples = append(samples, sampleHeap(b, env, fmt.Sprintf("waiting +%v", (time.Since(start)-recorded).Round(time.Second))))
		}
		rc.Close()
		logDispatch(b, env)
		for _, s := range samples {
			b.Logf("%-28s HeapInuse %7.1f MiB  HeapAlloc %7.1f MiB  goroutines %5d  attempts %6d",
				s.label, mib(s.heapInuse), mib(s.heapAlloc), s.goroutines, s.attempts)
		}
		reportWaiting(b, samples, waiting, recorded)
	}
}

// reportWaiting checks that the failing endpoint was only probed while its deliveries waited (at most
// LoopProbes attempts per back-off; the first back-off is LoopProbeBackoff, then it doubles) and reports
// the samples.
func reportWaiting(b *testing.B, samples []heapSample, waiting int, recorded time.Duration) {
	base, held, last := samples[0], samples[1], samples[len(samples)-1]
	probes := last.attempts - held.attempts
	require.LessOrEqual(b, probes, 8*workflows.LoopProbes, "more than probes were sent while the deliveries waited")
	b.ReportMetric(recorded.Seconds(), "recorded-s")
	b.ReportMetric(mib(base.heapInuse), "base-MiB")
	b.ReportMetric(mib(held.heapInuse), "waiting-MiB")
	b.ReportMetric(mib(last.heapInuse), "waiting+30s-MiB")
	b.ReportMetric(mib(held.heapAlloc)-mib(base.heapAlloc), "alloc-growth-MiB")
	b.ReportMetric((float64(held.heapInuse)-float64(base.heapInuse))/float64(waiting)/1024, "KiB/delivery")
	b.ReportMetric(mib(last.heapInuse)-mib(held.heapInuse), "growth-while-waiting-MiB")
	b.ReportMetric(float64(held.goroutines-base.goroutines), "extra-goroutines")
	b.ReportMetric(float64(probes), "probes-while-waiting")
}
