package bench

import (
	"context"
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
	// FirstError describes the first failed request, when one failed (readPaced only).
	FirstError string
	// latencies of every successful request, sorted.
	latencies []time.Duration
}

// Merge adds another run's measurements (alternating short runs spreads machine noise over both sides).
func (r LoadResult) Merge(o LoadResult) LoadResult {
	out := LoadResult{Requests: r.Requests + o.Requests, Errors: r.Errors + o.Errors, Duration: r.Duration + o.Duration,
		latencies: append(append([]time.Duration(nil), r.latencies...), o.latencies...)}
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
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var total, errs atomic.Int64
	lat := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				t0 := time.Now()
				resp, err := hc.Do(newReq().WithContext(ctx))
				if err != nil {
					if ctx.Err() == nil {
						errs.Add(1)
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs.Add(1)
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
	return LoadResult{Requests: total.Load(), Errors: errs.Load(), Duration: elapsed, latencies: all}.withPercentiles()
}
