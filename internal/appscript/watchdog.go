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
// live heap grew more than MaxMemoryBytes since the run started. It costs a run no goroutine of its
// own: ctx is watched with context.AfterFunc, the CPU budget is a timer and the heap is sampled by
// the process's one heapSampler for every run in progress.
type watchdog struct {
	vm        *goja.Runtime
	budget    *cpuBudget
	base      int64 // the live heap when the run started
	maxGrowth int64
	stopCtx   func() bool // disarms the ctx watch (nil for a ctx that is never cancelled)

	mu      sync.Mutex
	stopped bool // set by stop: no interrupt reaches the runtime after it
}

// startWatchdog arms the CPU budget, the ctx watch and the heap sampling of one run.
func startWatchdog(ctx context.Context, vm *goja.Runtime, l Limits) *watchdog {
	w := &watchdog{vm: vm, maxGrowth: l.MaxMemoryBytes}
	cpu := l.CPUTime
	w.budget = newCPUBudget(cpu, func() {
		w.interrupt(&capError{msg: fmt.Sprintf("CPU cap reached: the script ran for more than %s", cpu)})
	})
	if ctx.Done() != nil {
		w.stopCtx = context.AfterFunc(ctx, func() { w.interrupt(ctx.Err()) })
	}
	sampler.add(w)
	return w
}

// interrupt stops the runtime with v unless the run already ended.
func (w *watchdog) interrupt(v any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.vm.Interrupt(v)
	}
}

// stop disarms the watchdog: once it returns, nothing interrupts the runtime any more, and an
// interrupt that arrived after the script's last instruction is cleared (the run is settled with its
// own runtime afterwards).
func (w *watchdog) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.budget.stopTimer()
	if w.stopCtx != nil {
		w.stopCtx()
	}
	sampler.remove(w)
	w.vm.ClearInterrupt()
}

// heapSampler samples the live heap every memSampleEvery while runs are in progress and interrupts
// each run whose heap growth passed its cap. Its goroutine starts with the first run and ends at the
// first tick without one.
type heapSampler struct {
	mu      sync.Mutex
	runs    map[*watchdog]struct{}
	running bool
	sample  []metrics.Sample
}

// sampler is the process's heap sampler (the live heap is a process-wide measure).
var sampler = heapSampler{runs: map[*watchdog]struct{}{}, sample: []metrics.Sample{{Name: liveHeapMetric}}}

// add records the run's base heap and watches it, starting the sampling goroutine if none runs.
func (s *heapSampler) add(w *watchdog) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.base = liveHeap(s.sample)
	s.runs[w] = struct{}{}
	if !s.running {
		s.running = true
		go s.loop()
	}
}

// remove stops watching the run.
func (s *heapSampler) remove(w *watchdog) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.runs, w)
}

// loop samples on every tick until a tick finds no run.
func (s *heapSampler) loop() {
	tick := time.NewTicker(memSampleEvery)
	defer tick.Stop()
	for range tick.C {
		if !s.check() {
			return
		}
	}
}

// check samples the heap once and interrupts (and stops watching) every run past its cap; it
// reports false, marking the goroutine ended, when no run is in progress.
func (s *heapSampler) check() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.runs) == 0 {
		s.running = false
		return false
	}
	heap := liveHeap(s.sample)
	for w := range s.runs {
		if grown := heap - w.base; grown > w.maxGrowth {
			delete(s.runs, w)
			w.interrupt(&capError{msg: fmt.Sprintf("memory cap reached: the heap grew by %d MiB, more than %d MiB", grown>>20, w.maxGrowth>>20)})
		}
	}
	return true
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
