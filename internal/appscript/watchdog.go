package appscript

import (
	"context"
	"fmt"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// memSampleEvery is how often the watchdog samples the live heap.
const memSampleEvery = 10 * time.Millisecond

// liveHeapMetric is the heap still in use after the last GC cycle (runtime/metrics).
const liveHeapMetric = "/gc/heap/live:bytes"

// watchdog stops a run from outside: on ctx cancellation, when the CPU budget is spent and when the
// live heap grew more than MaxMemoryBytes since the run started.
type watchdog struct {
	budget *cpuBudget
	done   chan struct{}
	wg     sync.WaitGroup
}

// startWatchdog arms the CPU budget and starts the goroutine watching ctx and memory.
func startWatchdog(ctx context.Context, vm *goja.Runtime, l Limits) *watchdog {
	cpuMsg := fmt.Sprintf("CPU cap reached: the script ran for more than %s", l.CPUTime)
	w := &watchdog{
		budget: newCPUBudget(l.CPUTime, func() { vm.Interrupt(&capError{msg: cpuMsg}) }),
		done:   make(chan struct{}),
	}
	w.wg.Add(1)
	go w.watch(ctx, vm, l.MaxMemoryBytes)
	return w
}

// watch interrupts vm on ctx cancellation or heap growth beyond maxGrowth, until stop.
func (w *watchdog) watch(ctx context.Context, vm *goja.Runtime, maxGrowth int64) {
	defer w.wg.Done()
	sample := []metrics.Sample{{Name: liveHeapMetric}}
	base := liveHeap(sample)
	tick := time.NewTicker(memSampleEvery)
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-ctx.Done():
			vm.Interrupt(ctx.Err())
			return
		case <-tick.C:
			if grown := liveHeap(sample) - base; grown > maxGrowth {
				vm.Interrupt(&capError{msg: fmt.Sprintf("memory cap reached: the heap grew by %d MiB, more than %d MiB", grown>>20, maxGrowth>>20)})
				return
			}
		}
	}
}

// stop disarms the watchdog and waits for its goroutine.
func (w *watchdog) stop() {
	w.budget.stopTimer()
	close(w.done)
	w.wg.Wait()
}

// liveHeap reads the live-heap metric (0 when the runtime does not offer it).
func liveHeap(sample []metrics.Sample) int64 {
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}

// cpuBudget is the CPU-time cap: a timer that fires when the script has executed JavaScript for its
// whole budget; pause and resume take the time spent in Host calls out of the count.
type cpuBudget struct {
	mu        sync.Mutex
	remaining time.Duration
	since     time.Time
	timer     *time.Timer
}

// newCPUBudget starts a budget of d that calls expire when spent.
func newCPUBudget(d time.Duration, expire func()) *cpuBudget {
	return &cpuBudget{remaining: d, since: time.Now(), timer: time.AfterFunc(d, expire)}
}

// pause stops counting (a Host call starts).
func (b *cpuBudget) pause() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.timer.Stop()
	b.remaining -= time.Since(b.since)
}

// resume counts again (a Host call ended); a spent budget expires at once.
func (b *cpuBudget) resume() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.since = time.Now()
	b.timer.Reset(max(b.remaining, 0))
}

// stopTimer disarms the budget at the end of the run.
func (b *cpuBudget) stopTimer() {
	b.timer.Stop()
}
