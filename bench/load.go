package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// LoadResult is what one or more load runs measured.
type LoadResult struct {
	Requests int64
	Errors   int64
	Duration time.Duration
	P50, P99 time.Duration
	// FirstErr is the first error counted in Errors (nil when there were none).
	FirstErr error
	// latencies of every successful request, sorted.
	latencies []time.Duration
}

// Merge adds another run's measurements (alternating short runs spreads machine noise over both sides).
func (r LoadResult) Merge(o LoadResult) LoadResult {
	out := LoadResult{Requests: r.Requests + o.Requests, Errors: r.Errors + o.Errors, Duration: r.Duration + o.Duration,
		FirstErr: cmp.Or(r.FirstErr, o.FirstErr), latencies: append(append([]time.Duration(nil), r.latencies...), o.latencies...)}
	return out.withPercentiles()
}

func (r LoadResult) withPercentiles() LoadResult {
	sort.Slice(r.latencies, func(a, b int) bool { return r.latencies[a] < r.latencies[b] })
	if n := len(r.latencies); n > 0 {
		r.P50, r.P99 = r.latencies[n/2], r.latencies[n*99/100]
	}
	return r
}

// max is the slowest request's latency.
func (r LoadResult) max() time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[len(r.latencies)-1]
}

// RPS is completed requests per second.
func (r LoadResult) RPS() float64 { return float64(r.Requests) / r.Duration.Seconds() }

// Load sends newReq requests from conns keep-alive connections for d and measures throughput and latency.
// A request counts as an error unless it answers 200.
func Load(ctx context.Context, conns int, d time.Duration, newReq func() *http.Request) LoadResult {
	transport := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	return LoadFunc(ctx, conns, d, func(ctx context.Context) error {
		resp, err := hc.Do(newReq().WithContext(ctx))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			return fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	})
}

// LoadFunc calls op from conns goroutines, each one call after another, for d and measures throughput
// and latency. A call that fails before d has passed counts as an error.
func LoadFunc(ctx context.Context, conns int, d time.Duration, op func(ctx context.Context) error) LoadResult {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	end, _ := ctx.Deadline()
	var total, errs atomic.Int64
	var firstErr atomic.Pointer[error]
	lat := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				t0 := time.Now()
				if err := op(ctx); err != nil {
					// A call cut by the end of the run is no error; a socket deadline set from ctx may
					// expire a moment before ctx reports it, so the clock decides.
					if ctx.Err() == nil && time.Now().Before(end) {
						errs.Add(1)
						firstErr.CompareAndSwap(nil, &err)
					}
					continue
				}
				lat[i] = append(lat[i], time.Since(t0))
				total.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	out := LoadResult{Requests: total.Load(), Errors: errs.Load(), Duration: elapsed, latencies: all}
	if e := firstErr.Load(); e != nil {
		out.FirstErr = *e
	}
	return out.withPercentiles()
}
