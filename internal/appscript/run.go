package appscript

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dop251/goja"
)

// capError is the reason a cap stopped a run; it is the value handed to goja's Interrupt.
type capError struct{ msg string }

// Error returns the message naming the cap.
func (c *capError) Error() string { return c.msg }

// run is the state of one execution: a fresh goja runtime and its counters. Only the run's own
// goroutine touches it, except the watchdog, which only calls vm.Interrupt.
type run struct {
	ctx       context.Context
	limits    Limits
	env       Env
	vm        *goja.Runtime
	roots     map[string]*goja.Object // the method-table roots built so far (see buildGlobal)
	stringify goja.Callable
	parse     goja.Callable
	log       []string
	logBytes  int
	hostCalls int
	budget    *cpuBudget
	stopped   *capError // a cap reached from inside the run (log, host calls)
}

// newRun builds a fresh runtime with the globals of env installed.
func newRun(ctx context.Context, l Limits, env Env) (*run, error) {
	r := &run{ctx: ctx, limits: l, env: env, vm: goja.New()}
	r.vm.SetMaxCallStackSize(l.MaxCallStackSize)
	jsonObj := r.vm.Get("JSON").ToObject(r.vm)
	var ok1, ok2 bool
	r.stringify, ok1 = goja.AssertFunction(jsonObj.Get("stringify"))
	r.parse, ok2 = goja.AssertFunction(jsonObj.Get("parse"))
	if !ok1 || !ok2 {
		return nil, errors.New("the runtime has no JSON.stringify/JSON.parse")
	}
	if err := r.installGlobals(); err != nil {
		return nil, fmt.Errorf("install globals: %w", err)
	}
	return r, nil
}

// execute runs the compiled program (which evaluates to the script's async function), calls it and
// settles its promise, all under the watchdog.
func (r *run) execute(prg *goja.Program) Result {
	wd := startWatchdog(r.ctx, r.vm, r.limits)
	r.budget = wd.budget
	v, err := r.vm.RunProgram(prg)
	var ret goja.Value
	if err == nil {
		fn, ok := goja.AssertFunction(v)
		if !ok {
			err = errors.New("the compiled script is not a function")
		} else {
			ret, err = fn(goja.Undefined())
		}
	}
	wd.stop()
	res := Result{Value: jsonNull, Log: r.log, HostCalls: r.hostCalls}
	if err != nil {
		res.Error = r.failure(err, wd)
		return res
	}
	res.Value, res.Error = r.settle(ret)
	return res
}

// settle turns the script's promise into the JSON result, enforcing the output cap.
func (r *run) settle(ret goja.Value) (json.RawMessage, string) {
	p, ok := ret.Export().(*goja.Promise)
	if !ok {
		return jsonNull, "the script did not return a promise"
	}
	switch p.State() {
	case goja.PromiseStateRejected:
		return jsonNull, errorText(p.Result())
	case goja.PromiseStatePending:
		return jsonNull, "the script awaited a promise that never settles"
	}
	out, err := r.toJSON(p.Result())
	if err != nil {
		return jsonNull, "the return value is not JSON: " + errorText(err.Value())
	}
	if len(out) > r.limits.MaxOutputBytes {
		return jsonNull, fmt.Sprintf("output cap reached: the return value is %d bytes of JSON, more than %d", len(out), r.limits.MaxOutputBytes)
	}
	return json.RawMessage(out), ""
}

// failure names why the run stopped abruptly: a cap, cancellation, a stack overflow or an exception.
func (r *run) failure(err error, wd *watchdog) string {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if c, ok := ie.Value().(*capError); ok {
			return c.msg
		}
		if e, ok := ie.Value().(error); ok {
			return "cancelled: " + e.Error()
		}
		return fmt.Sprint("interrupted: ", ie.Value())
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return fmt.Sprintf("call-stack cap reached: more than %d nested calls", r.limits.MaxCallStackSize)
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return errorText(ex.Value())
	}
	return err.Error()
}

// stop ends the run at its next JavaScript instruction with a cap error (uncatchable by the script).
func (r *run) stop(msg string) {
	if r.stopped == nil {
		r.stopped = &capError{msg: msg}
	}
	r.vm.Interrupt(r.stopped)
}

// throw raises a catchable JavaScript Error with msg from inside a Go function called by the script.
func (r *run) throw(msg string) {
	obj, err := r.vm.New(r.vm.Get("Error"), r.vm.ToValue(msg))
	if err != nil {
		panic(r.vm.NewGoError(errors.New(msg)))
	}
	panic(obj)
}

// toJSON is JSON.stringify(v) in the runtime; undefined (and functions) become "null".
func (r *run) toJSON(v goja.Value) (string, *goja.Exception) {
	out, err := r.stringify(goja.Undefined(), v)
	if err != nil {
		var ex *goja.Exception
		if errors.As(err, &ex) {
			return "", ex
		}
		panic(err) // an interrupt: let it end the run
	}
	if goja.IsUndefined(out) {
		return "null", nil
	}
	return out.String(), nil
}

// fromJSON is JSON.parse(raw) in the runtime; empty raw is undefined.
func (r *run) fromJSON(raw json.RawMessage) (goja.Value, error) {
	if len(raw) == 0 {
		return goja.Undefined(), nil
	}
	return r.parse(goja.Undefined(), r.vm.ToValue(string(raw)))
}

// framePos finds a stack frame's source position, e.g. "scripts/x.ts:3:7" in
// "at __script (scripts/x.ts:3:7(15))".
var framePos = regexp.MustCompile(`([^\s()]+:\d+:\d+)\(\d+\)`)

// errorText renders a thrown value: an Error as "Error: msg at scripts/x.ts:3:7" (its innermost
// position in the script), anything else as its string.
func errorText(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return fmt.Sprint("uncaught ", v)
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return "uncaught " + v.String()
	}
	text := v.String()
	stack := obj.Get("stack")
	if stack == nil || goja.IsUndefined(stack) {
		return text
	}
	_, frames, _ := strings.Cut(stack.String(), "\n")
	if m := framePos.FindStringSubmatch(frames); m != nil {
		return text + " at " + m[1]
	}
	return text
}
