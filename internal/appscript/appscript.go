// Package appscript runs an app's backend scripts (issue 26, seed 002 "App surfaces"): TypeScript whose
// types esbuild strips, executed in a fresh goja runtime per run with the globals svc (alias bankr),
// appKV, http, secrets, args, ctx, log and console. Every platform call goes through one method table
// (see Methods), is checked against the manifest's permissions and only then handed to the Host, which
// the caller implements. Runs are capped in CPU time, memory, output, log, host calls and call-stack
// depth; a reached cap ends the run with Result.Error naming it.
package appscript

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Limits are the caps of one run. A zero or negative field takes its DefaultLimits value.
type Limits struct {
	// CPUTime is the time the script may spend executing JavaScript; time inside Host calls is not
	// counted (the caller's ctx bounds those).
	CPUTime time.Duration
	// MaxMemoryBytes is how far the process's live heap may grow during the run (a sampled,
	// process-wide measure: see docs/ARCHITECTURE.md "App scripts").
	MaxMemoryBytes int64
	// MaxOutputBytes caps the JSON of the return value.
	MaxOutputBytes int
	// MaxLogBytes caps the total bytes of log lines.
	MaxLogBytes int
	// MaxHostCalls caps the platform calls of one run.
	MaxHostCalls int
	// MaxCallStackSize caps the JavaScript call depth (deep recursion).
	MaxCallStackSize int
}

// The documented default caps.
const (
	DefaultCPUTime          = 2 * time.Second
	DefaultMaxMemoryBytes   = 64 << 20
	DefaultMaxOutputBytes   = 256 << 10
	DefaultMaxLogBytes      = 64 << 10
	DefaultMaxHostCalls     = 100
	DefaultMaxCallStackSize = 1024
)

// DefaultLimits returns the documented caps: 2 s of CPU, 64 MiB of heap growth, 256 KiB of output,
// 64 KiB of log, 100 host calls and 1,024 nested calls.
func DefaultLimits() Limits {
	return Limits{
		CPUTime:          DefaultCPUTime,
		MaxMemoryBytes:   DefaultMaxMemoryBytes,
		MaxOutputBytes:   DefaultMaxOutputBytes,
		MaxLogBytes:      DefaultMaxLogBytes,
		MaxHostCalls:     DefaultMaxHostCalls,
		MaxCallStackSize: DefaultMaxCallStackSize,
	}
}

// withDefaults fills every unset field of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.CPUTime <= 0 {
		l.CPUTime = d.CPUTime
	}
	if l.MaxMemoryBytes <= 0 {
		l.MaxMemoryBytes = d.MaxMemoryBytes
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = d.MaxOutputBytes
	}
	if l.MaxLogBytes <= 0 {
		l.MaxLogBytes = d.MaxLogBytes
	}
	if l.MaxHostCalls <= 0 {
		l.MaxHostCalls = d.MaxHostCalls
	}
	if l.MaxCallStackSize <= 0 {
		l.MaxCallStackSize = d.MaxCallStackSize
	}
	return l
}

// Engine runs scripts under fixed Limits. It is safe for concurrent use: each Run gets a fresh
// runtime, and only compiled programs (immutable) are shared, cached by source hash.
type Engine struct {
	limits Limits
	cache  programCache
}

// New returns an engine with the caps l (unset fields take their defaults).
func New(l Limits) *Engine {
	return &Engine{limits: l.withDefaults()}
}

// Limits returns the engine's effective caps.
func (e *Engine) Limits() Limits { return e.limits }

// Script is one app script: its name (e.g. "scripts/report.ts") and its TypeScript source.
type Script struct {
	Name   string
	Source string
}

// Env is what one run sees: the manifest's permissions, the args and ctx globals and the Host.
type Env struct {
	// Permissions are the manifest's declared permissions.
	Permissions []string
	// Args is the args global (null or empty → {}).
	Args json.RawMessage
	// Ctx is the ctx global, an object (null or empty → {}).
	Ctx json.RawMessage
	// Host performs the platform calls.
	Host Host
}

// Host performs the platform calls of a run.
type Host interface {
	// Call performs platform call method (e.g. "appKV.get") with its JSON arguments; the engine has
	// already checked the permission. Its error becomes a JS exception in the script.
	Call(ctx context.Context, method string, args []json.RawMessage) (json.RawMessage, error)
}

// Result is the outcome of one run.
type Result struct {
	// Value is the script's return value as JSON ("null" when none or on error).
	Value json.RawMessage
	// Log holds the log(...) / console.* lines, capped at MaxLogBytes.
	Log []string
	// Error is "" on success, else the script's error (with its position) or the cap that stopped it.
	Error string
	// HostCalls counts the calls handed to the Host.
	HostCalls int
	// Duration is the run's wall time.
	Duration time.Duration
}

// jsonNull is the Value of a run without a value.
var jsonNull = json.RawMessage("null")

// Run executes s with env. A script that does not compile, throws or reaches a cap is a Result with
// Error set; the returned error is only for faults of the engine itself.
func (e *Engine) Run(ctx context.Context, s Script, env Env) (Result, error) {
	start := time.Now()
	prg, err := e.cache.get(s)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return Result{Value: jsonNull, Error: se.Error(), Duration: time.Since(start)}, nil
		}
		return Result{}, fmt.Errorf("compile script %q: %w", s.Name, err)
	}
	if env.Host == nil {
		return Result{}, fmt.Errorf("run script %q: env.Host is nil", s.Name)
	}
	r, err := newRun(ctx, e.limits, env)
	if err != nil {
		return Result{}, fmt.Errorf("run script %q: %w", s.Name, err)
	}
	res := r.execute(prg)
	res.Duration = time.Since(start)
	return res, nil
}
