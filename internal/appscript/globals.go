package appscript

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja"
)

// lazyGlobals are the globals built on first use, in documentation order: each starts as an accessor
// on the global object and becomes a plain data property (writable, enumerable, configurable, as
// Runtime.Set makes it) the first time a script reads or assigns it. A run that never touches svc pays
// for none of its 20 functions. bankr is the same object as svc.
var lazyGlobals = []string{"svc", "bankr", "appKV", "http", "secrets", "console"}

// installGlobals defines the lazy globals svc (alias bankr), appKV, http, secrets and console, and
// eagerly args, ctx, log and a require that refuses.
func (r *run) installGlobals() error {
	global := r.vm.GlobalObject()
	for _, name := range lazyGlobals {
		acc := r.vm.ToValue(r.lazyAccessor(name))
		if err := global.DefineAccessorProperty(name, acc, acc, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			return fmt.Errorf("define global %s: %w", name, err)
		}
	}
	if err := r.setJSONGlobal("args", r.env.Args); err != nil {
		return err
	}
	if err := r.setJSONGlobal("ctx", r.env.Ctx); err != nil {
		return err
	}
	return r.installLog()
}

// lazyAccessor is both the getter and the setter of lazy global name: read (no argument), it builds
// the global's value; assigned (one argument), it takes the assigned value. Either way it then
// replaces itself with a data property holding that value, so later reads are plain property reads.
func (r *run) lazyAccessor(name string) func(goja.FunctionCall) goja.Value {
	return func(c goja.FunctionCall) goja.Value {
		var v goja.Value
		if len(c.Arguments) > 0 {
			v = c.Arguments[0]
		} else {
			built, err := r.buildGlobal(name)
			if err != nil {
				panic(r.vm.NewGoError(fmt.Errorf("build global %s: %w", name, err)))
			}
			v = built
		}
		if err := r.vm.GlobalObject().DefineDataProperty(name, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			panic(r.vm.NewGoError(fmt.Errorf("define global %s: %w", name, err)))
		}
		return v
	}
}

// buildGlobal builds the value of lazy global name: console, or the method-table root (bankr is
// svc's root, built once for both).
func (r *run) buildGlobal(name string) (goja.Value, error) {
	if name == "console" {
		console, err := r.newConsole()
		if err != nil {
			return nil, err
		}
		return console, nil
	}
	if name == "bankr" {
		name = "svc"
	}
	if obj, ok := r.roots[name]; ok {
		return obj, nil
	}
	obj := r.vm.NewObject()
	for _, info := range methodTable {
		root, _, _ := strings.Cut(info.Global, ".")
		if root != name {
			continue
		}
		if err := r.defineMethod(obj, info); err != nil {
			return nil, fmt.Errorf("define %s: %w", info.Global, err)
		}
	}
	if r.roots == nil {
		r.roots = make(map[string]*goja.Object, 4)
	}
	r.roots[name] = obj
	return obj, nil
}

// defineMethod creates the objects along info.Global below root and puts the method's function at
// its end.
func (r *run) defineMethod(root *goja.Object, info MethodInfo) error {
	parts := strings.Split(info.Global, ".")
	obj := root
	for _, p := range parts[1 : len(parts)-1] {
		next, ok := obj.Get(p).(*goja.Object)
		if !ok {
			next = r.vm.NewObject()
			if err := obj.Set(p, next); err != nil {
				return fmt.Errorf("set %s: %w", p, err)
			}
		}
		obj = next
	}
	return obj.Set(parts[len(parts)-1], r.hostFunc(info))
}

// setJSONGlobal defines global name as the parsed raw JSON; null or empty is {}.
func (r *run) setJSONGlobal(name string, raw json.RawMessage) error {
	v := goja.Value(r.vm.NewObject())
	if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
		parsed, err := r.fromJSON(raw)
		if err != nil {
			return fmt.Errorf("parse %s JSON: %w", name, err)
		}
		v = parsed
	}
	if err := r.vm.Set(name, v); err != nil {
		return fmt.Errorf("set global %s: %w", name, err)
	}
	return nil
}

// installLog defines log and the refusing require (console is a lazy global: see newConsole).
func (r *run) installLog() error {
	if err := r.vm.Set("log", r.logFunc("")); err != nil {
		return fmt.Errorf("set global log: %w", err)
	}
	require := func(goja.FunctionCall) goja.Value {
		r.throw("require is not available: app scripts cannot import modules; use the globals svc, appKV, http, secrets, args, ctx and log")
		return nil
	}
	if err := r.vm.Set("require", require); err != nil {
		return fmt.Errorf("set global require: %w", err)
	}
	return nil
}

// newConsole builds the console global: console.{log,info,debug,warn,error}, warn and error lines
// prefixed with their level.
func (r *run) newConsole() (*goja.Object, error) {
	console := r.vm.NewObject()
	for _, level := range []string{"log", "info", "debug", "warn", "error"} {
		prefix := ""
		if level == "warn" || level == "error" {
			prefix = level + ": "
		}
		if err := console.Set(level, r.logFunc(prefix)); err != nil {
			return nil, fmt.Errorf("set console.%s: %w", level, err)
		}
	}
	return console, nil
}

// logFunc returns a log function: its arguments joined by spaces (strings as they are, other values
// as JSON) become one line; passing MaxLogBytes stops the run with the log cap.
func (r *run) logFunc(prefix string) func(goja.FunctionCall) goja.Value {
	return func(c goja.FunctionCall) goja.Value {
		parts := make([]string, len(c.Arguments))
		for i, a := range c.Arguments {
			parts[i] = r.logText(a)
		}
		line := prefix + strings.Join(parts, " ")
		if r.logBytes+len(line) > r.limits.MaxLogBytes {
			r.stop(fmt.Sprintf("log cap reached: more than %d bytes of log", r.limits.MaxLogBytes))
			return goja.Undefined()
		}
		r.logBytes += len(line)
		r.log = append(r.log, line)
		return goja.Undefined()
	}
}

// logText renders one log argument.
func (r *run) logText(v goja.Value) string {
	if s, ok := v.Export().(string); ok {
		return s
	}
	if _, isObj := v.(*goja.Object); !isObj {
		return v.String()
	}
	if _, isFn := goja.AssertFunction(v); isFn {
		return v.String()
	}
	if out, ex := r.toJSON(v); ex == nil {
		return out
	}
	return v.String()
}

// hostFunc is the function behind one method-table entry: it checks the permission, counts the call
// against MaxHostCalls, hands the JSON arguments to the Host (with the CPU budget paused) and returns
// the parsed result. A Host error is thrown as an Error naming the global.
func (r *run) hostFunc(info MethodInfo) func(goja.FunctionCall) goja.Value {
	return func(c goja.FunctionCall) goja.Value {
		if !slices.Contains(r.env.Permissions, info.Permission) {
			r.throw(fmt.Sprintf("%s: permission %q is not declared in the manifest", info.Global, info.Permission))
		}
		if info.Method == methodX402Fetch {
			r.throw(info.Global + ": " + x402Unavailable)
		}
		if r.hostCalls >= r.limits.MaxHostCalls {
			r.stop(fmt.Sprintf("host-call cap reached: more than %d platform calls", r.limits.MaxHostCalls))
			return goja.Undefined()
		}
		args := r.jsonArgs(c.Arguments)
		r.hostCalls++
		r.budget.pause()
		out, err := r.env.Host.Call(r.ctx, info.Method, args)
		r.budget.resume()
		if err != nil {
			r.throw(info.Global + ": " + err.Error())
		}
		v, err := r.fromJSON(out)
		if err != nil {
			r.throw(fmt.Sprintf("%s: the platform answered invalid JSON: %v", info.Global, err))
		}
		return v
	}
}

// jsonArgs stringifies each argument (undefined → null); a value JSON cannot hold is thrown.
func (r *run) jsonArgs(in []goja.Value) []json.RawMessage {
	args := make([]json.RawMessage, len(in))
	for i, a := range in {
		out, ex := r.toJSON(a)
		if ex != nil {
			panic(ex.Value())
		}
		args[i] = json.RawMessage(out)
	}
	return args
}
