package bench

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/appscript"
)

const (
	// appScriptRuns is how many runs each side makes per iteration.
	appScriptRuns = 2000
	// appScriptBlock is how many runs one side makes before the other side's turn.
	appScriptBlock = 100
	// appScriptSource is the trivial app script: a typed constant, an await and a return.
	appScriptSource = "const n: number = args.n;\nconst m = await Promise.resolve(1);\nreturn n + m;"
	// appScriptDirectJS is the same JavaScript as goja evaluates it without the engine.
	appScriptDirectJS = "(async function () { const n = args.n; const m = await Promise.resolve(1); return n + m; })()"
)

// noHost is the Host of the benchmark's script, which makes no platform calls.
type noHost struct{}

// Call is never reached: the trivial script calls no platform method.
func (noHost) Call(context.Context, string, []json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage("null"), nil
}

// BenchmarkAppScriptEngine runs a trivial script 2,000 times through appscript.Engine.Run (a cold goja
// runtime per run, globals, caps and watchdog; the transpiled program cached) against goja evaluating
// the same JavaScript directly in a fresh runtime each time (goja.New, args set, RunString), and reports
// both rates, their ratio and the engine's p50 run time. The two sides take turns in blocks of
// appScriptBlock runs (the side going first alternating), so a change of the machine's load or a GC
// cycle started by one side's garbage falls on both alike. Since the engine caches its compiled
// program and RunString compiles every time, a third side runs the direct JavaScript compiled once
// (goja.Compile, then RunProgram in a fresh runtime each time): engine-precompiled-ratio is the
// stricter comparison.
func BenchmarkAppScriptEngine(b *testing.B) {
	eng := appscript.New(appscript.DefaultLimits())
	script := appscript.Script{Name: "scripts/bench.ts", Source: appScriptSource}
	env := appscript.Env{Args: json.RawMessage(`{"n":41}`), Host: noHost{}}
	ctx := context.Background()
	for b.Loop() {
		durations := make([]time.Duration, 0, appScriptRuns)
		engineBlock := func() time.Duration {
			start := time.Now()
			for range appScriptBlock {
				res, err := eng.Run(ctx, script, env)
				require.NoError(b, err)
				require.Equal(b, "42", string(res.Value), res.Error)
				durations = append(durations, res.Duration)
			}
			return time.Since(start)
		}
		directBlock := func() time.Duration {
			start := time.Now()
			for range appScriptBlock {
				require.Equal(b, int64(42), evalDirect(b))
			}
			return time.Since(start)
		}
		compiled := goja.MustCompile("direct.js", appScriptDirectJS, false)
		compiledBlock := func() time.Duration {
			start := time.Now()
			for range appScriptBlock {
				require.Equal(b, int64(42), evalCompiled(b, compiled))
			}
			return time.Since(start)
		}
		var engineTime, directTime, compiledTime time.Duration
		for block := range appScriptRuns / appScriptBlock {
			if block%2 == 0 {
				engineTime += engineBlock()
				directTime += directBlock()
				compiledTime += compiledBlock()
			} else {
				compiledTime += compiledBlock()
				directTime += directBlock()
				engineTime += engineBlock()
			}
		}
		engineRate := appScriptRuns / engineTime.Seconds()
		directRate := appScriptRuns / directTime.Seconds()
		compiledRate := appScriptRuns / compiledTime.Seconds()
		sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
		p50 := durations[len(durations)/2]
		b.ReportMetric(engineRate, "engine-runs/s")
		b.ReportMetric(directRate, "direct-evals/s")
		b.ReportMetric(engineRate/directRate, "engine-direct-ratio")
		b.ReportMetric(compiledRate, "precompiled-evals/s")
		b.ReportMetric(engineRate/compiledRate, "engine-precompiled-ratio")
		b.ReportMetric(float64(p50.Microseconds()), "run-p50-µs")
		b.Logf("trivial script: engine %.0f runs/s, direct goja %.0f evals/s, ratio %.2f; precompiled direct %.0f evals/s, ratio %.2f; run p50 %v",
			engineRate, directRate, engineRate/directRate, compiledRate, engineRate/compiledRate, p50)
	}
}

// evalCompiled runs the compiled appScriptDirectJS in a fresh goja runtime and returns its settled value.
func evalCompiled(b *testing.B, prg *goja.Program) int64 {
	return evalFresh(b, func(vm *goja.Runtime) (goja.Value, error) { return vm.RunProgram(prg) })
}

// evalDirect evaluates appScriptDirectJS in a fresh goja runtime and returns its settled value.
func evalDirect(b *testing.B) int64 {
	return evalFresh(b, func(vm *goja.Runtime) (goja.Value, error) { return vm.RunString(appScriptDirectJS) })
}

// evalFresh sets args in a fresh goja runtime, runs eval in it and returns the settled value of the
// promise it answers.
func evalFresh(b *testing.B, eval func(*goja.Runtime) (goja.Value, error)) int64 {
	vm := goja.New()
	require.NoError(b, vm.Set("args", map[string]any{"n": 41}))
	v, err := eval(vm)
	require.NoError(b, err)
	p, ok := v.Export().(*goja.Promise)
	require.True(b, ok)
	return p.Result().ToInteger()
}
