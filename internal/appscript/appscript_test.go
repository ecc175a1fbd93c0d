package appscript

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hostCall is one call the recording host received.
type hostCall struct {
	Method string
	Args   []string
}

// recordingHost is a Host that records its calls and answers {"method": name, "args": [...]}, or the
// error or answer set for a method.
type recordingHost struct {
	mu      sync.Mutex
	calls   []hostCall
	errs    map[string]error
	answers map[string]string
	onCall  func(method string)
}

// Call records the call and answers it.
func (h *recordingHost) Call(_ context.Context, method string, args []json.RawMessage) (json.RawMessage, error) {
	h.mu.Lock()
	c := hostCall{Method: method}
	for _, a := range args {
		c.Args = append(c.Args, string(a))
	}
	h.calls = append(h.calls, c)
	h.mu.Unlock()
	if h.onCall != nil {
		h.onCall(method)
	}
	if err := h.errs[method]; err != nil {
		return nil, err
	}
	if a, ok := h.answers[method]; ok {
		return json.RawMessage(a), nil
	}
	out, err := json.Marshal(map[string]any{"method": method, "args": args})
	return out, err
}

// allPermissions lists every permission of the method table.
func allPermissions() []string {
	var out []string
	for _, m := range Methods() {
		out = append(out, m.Permission)
	}
	return out
}

// runScript runs src as scripts/test.ts with the given permissions and host.
func runScript(t *testing.T, e *Engine, src string, perms []string, h Host) Result {
	t.Helper()
	if h == nil {
		h = &recordingHost{}
	}
	res, err := e.Run(context.Background(), Script{Name: "scripts/test.ts", Source: src}, Env{Permissions: perms, Host: h})
	require.NoError(t, err)
	return res
}

func TestRunReturnsValuesThroughAwait(t *testing.T) {
	e := New(DefaultLimits())
	res := runScript(t, e, "const a: number = await Promise.resolve(2);\nconst b = await (async () => [1, 'x'])();\nreturn { a, b };", nil, nil)
	require.Empty(t, res.Error)
	require.JSONEq(t, `{"a":2,"b":[1,"x"]}`, string(res.Value))

	res = runScript(t, e, "const x = 1;", nil, nil)
	require.Empty(t, res.Error)
	require.Equal(t, "null", string(res.Value))
}

func TestArgsAndCtxGlobals(t *testing.T) {
	e := New(DefaultLimits())
	src := "return { n: args.n * 2, slug: ctx.slug, empty: Object.keys(globalThis.noArgs ?? {}).length };"
	res, err := e.Run(context.Background(), Script{Name: "scripts/a.ts", Source: src}, Env{
		Args: json.RawMessage(`{"n":21}`), Ctx: json.RawMessage(`{"slug":"demo"}`), Host: &recordingHost{},
	})
	require.NoError(t, err)
	require.Empty(t, res.Error)
	require.JSONEq(t, `{"n":42,"slug":"demo","empty":0}`, string(res.Value))

	res, err = e.Run(context.Background(), Script{Name: "scripts/a.ts", Source: "return [typeof args, Object.keys(args).length, typeof ctx];"},
		Env{Args: json.RawMessage("null"), Host: &recordingHost{}})
	require.NoError(t, err)
	require.JSONEq(t, `["object",0,"object"]`, string(res.Value))
}

// callExpr is a call of the method's global with three arguments of different JSON kinds.
func callExpr(m MethodInfo) string {
	return m.Global + `(1, "a", { k: [true, null] })`
}

func TestEachPermissionRefusedWhenUndeclared(t *testing.T) {
	e := New(DefaultLimits())
	for _, m := range Methods() {
		t.Run(m.Global, func(t *testing.T) {
			h := &recordingHost{}
			var others []string
			for _, p := range allPermissions() {
				if p != m.Permission {
					others = append(others, p)
				}
			}
			res := runScript(t, e, "const r = await "+callExpr(m)+";\nreturn r;", others, h)
			require.Contains(t, res.Error, fmt.Sprintf("permission %q is not declared in the manifest", m.Permission))
			require.Contains(t, res.Error, m.Global)
			require.Contains(t, res.Error, "scripts/test.ts:1:")
			require.Empty(t, h.calls, "no platform call without the permission")
			require.Zero(t, res.HostCalls)
		})
	}
}

func TestEveryMethodRoutesToHost(t *testing.T) {
	e := New(DefaultLimits())
	for _, m := range Methods() {
		if m.Method == methodX402Fetch {
			continue
		}
		t.Run(m.Global, func(t *testing.T) {
			h := &recordingHost{}
			res := runScript(t, e, "return await "+callExpr(m)+";", []string{m.Permission}, h)
			require.Empty(t, res.Error)
			require.Equal(t, []hostCall{{Method: m.Method, Args: []string{"1", `"a"`, `{"k":[true,null]}`}}}, h.calls)
			require.JSONEq(t, fmt.Sprintf(`{"method":%q,"args":[1,"a",{"k":[true,null]}]}`, m.Method), string(res.Value))
			require.Equal(t, 1, res.HostCalls)
			perm, ok := Method(m.Method)
			require.True(t, ok)
			require.Equal(t, m.Permission, perm)
		})
	}
}

func TestBankrAliasAndPlainValues(t *testing.T) {
	e := New(DefaultLimits())
	h := &recordingHost{answers: map[string]string{"wallet.identity": `{"address":"0xabc"}`}}
	res := runScript(t, e, "const id = bankr.wallet.identity();\nreturn id.address;", []string{"read:wallet"}, h)
	require.Empty(t, res.Error)
	require.Equal(t, `"0xabc"`, string(res.Value))
	require.Equal(t, "wallet.identity", h.calls[0].Method)
}

func TestX402FetchIsReserved(t *testing.T) {
	e := New(DefaultLimits())
	h := &recordingHost{}
	res := runScript(t, e, "return await svc.x402.fetch('https://example.com');", []string{"fetch:x402"}, h)
	require.Contains(t, res.Error, "fetch:x402 is not available")
	require.Empty(t, h.calls)
	res = runScript(t, e, "return await svc.x402.fetch('https://example.com');", nil, h)
	require.Contains(t, res.Error, `permission "fetch:x402" is not declared`)
}

func TestHostErrorIsAnException(t *testing.T) {
	e := New(DefaultLimits())
	h := &recordingHost{errs: map[string]error{"appKV.get": errors.New("key \"k\" not found")}}
	src := "try { appKV.get('k'); } catch (e) { return 'caught: ' + e.message; }\nreturn 'no';"
	res := runScript(t, e, src, []string{"read:appdata"}, h)
	require.Empty(t, res.Error)
	require.Equal(t, `"caught: appKV.get: key \"k\" not found"`, string(res.Value))

	res = runScript(t, e, "\nawait appKV.get('k');\nreturn 1;", []string{"read:appdata"}, h)
	require.Contains(t, res.Error, `appKV.get: key "k" not found at scripts/test.ts:2:`)
}

func TestCPUCapStopsInfiniteLoop(t *testing.T) {
	e := New(Limits{CPUTime: 200 * time.Millisecond})
	res := runScript(t, e, "let i = 0;\ntry { while (true) { i++; } } catch (e) { return 'swallowed'; }", nil, nil)
	require.Contains(t, res.Error, "CPU cap reached")
	require.Equal(t, "null", string(res.Value))
	require.Less(t, res.Duration, 10*time.Second)
}

func TestContextCancellationStopsScript(t *testing.T) {
	e := New(Limits{CPUTime: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := &recordingHost{onCall: func(string) { cancel() }}
	res, err := e.Run(ctx, Script{Name: "scripts/c.ts", Source: "appKV.get('x');\nwhile (true) {}"}, Env{Permissions: []string{"read:appdata"}, Host: h})
	require.NoError(t, err)
	require.Contains(t, res.Error, "cancelled: context canceled")
}

func TestLogCapture(t *testing.T) {
	e := New(DefaultLimits())
	res := runScript(t, e, "log('a', 1, { x: [1] });\nconsole.log('b');\nconsole.error('c');\nreturn 0;", nil, nil)
	require.Empty(t, res.Error)
	require.Equal(t, []string{`a 1 {"x":[1]}`, "b", "error: c"}, res.Log)
}

func TestLogCap(t *testing.T) {
	e := New(Limits{MaxLogBytes: 100})
	res := runScript(t, e, "for (let i = 0; i < 100; i++) { try { log('0123456789'); } catch (e) {} }\nreturn 1;", nil, nil)
	require.Contains(t, res.Error, "log cap reached")
	require.Len(t, res.Log, 10)
}

func TestImportRefused(t *testing.T) {
	for _, src := range []string{
		"import fs from 'fs';\nreturn 1;",
		"const x = 1;\n  import { a } from './a';\nreturn x;",
		"const m = await import('x');\nreturn m;",
		"export const a = 1;\nreturn a;",
		"const fs = require('fs');\nreturn 1;",
		"export { a };",
	} {
		err := Check(Script{Name: "scripts/i.ts", Source: src})
		require.ErrorContains(t, err, "app scripts cannot import modules", src)
		require.ErrorContains(t, err, "scripts/i.ts:", src)
	}
	err := Check(Script{Name: "scripts/i.ts", Source: "const x = 1;\n  import { a } from './a';"})
	require.EqualError(t, err, "scripts/i.ts:2:3: app scripts cannot import modules (import, export and require are not available): use the globals svc, appKV, http, secrets, args, ctx and log")

	e := New(DefaultLimits())
	res := runScript(t, e, "import fs from 'fs';\nreturn 1;", nil, nil)
	require.Contains(t, res.Error, "cannot import modules")
	res = runScript(t, e, "const f = 'fs';\nconst m = globalThis['req' + 'uire'](f);\nreturn 1;", nil, nil)
	require.Contains(t, res.Error, "require is not available")
	require.Contains(t, res.Error, "scripts/test.ts:2:")
}

func TestModuleWordsThatAreNotImportsPass(t *testing.T) {
	src := "const o = {\n  import: 1,\n  export: 2,\n  require: (x: number) => x,\n};\n// import nothing here\nreturn o.import + o.export + o.require(3);"
	require.NoError(t, Check(Script{Name: "scripts/w.ts", Source: src}))
	res := runScript(t, New(DefaultLimits()), src, nil, nil)
	require.Empty(t, res.Error)
	require.Equal(t, "6", string(res.Value))
}

func TestTypeScriptTypesStripped(t *testing.T) {
	src := `interface Point { x: number; y: number }
type Pair<T> = [T, T];
enum Color { Red = 1, Blue }
function add<T extends number>(a: T, b: T): number { return a + b; }
const p: Point = { x: 1, y: 2 } as Point;
const pair: Pair<string> = ["a", "b"];
class Box { constructor(private readonly v: number) {} get(): number { return this.v; } }
return { sum: add(p.x, p.y), pair, blue: Color.Blue, box: new Box(7).get(), opt: (p as any)?.z ?? "none" };`
	require.NoError(t, Check(Script{Name: "scripts/t.ts", Source: src}))
	res := runScript(t, New(DefaultLimits()), src, nil, nil)
	require.Empty(t, res.Error)
	require.JSONEq(t, `{"sum":3,"pair":["a","b"],"blue":2,"box":7,"opt":"none"}`, string(res.Value))
}

func TestSyntaxErrorLineAndColumn(t *testing.T) {
	err := Check(Script{Name: "scripts/bad.ts", Source: "const a = 1;\nconst b = 2;\nreturn a +;"})
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	require.Equal(t, SyntaxError{Script: "scripts/bad.ts", Line: 3, Column: 11, Msg: `Unexpected ";"`}, *se)
	require.EqualError(t, err, `scripts/bad.ts:3:11: Unexpected ";"`)

	err = Check(Script{Name: "scripts/bad.ts", Source: "return )"})
	require.ErrorAs(t, err, &se)
	require.Equal(t, 1, se.Line)
	require.Equal(t, 8, se.Column, "line 1 columns do not count the wrapper")

	res := runScript(t, New(DefaultLimits()), "const a = 1;\nreturn a +;", nil, nil)
	require.Equal(t, `scripts/test.ts:2:11: Unexpected ";"`, res.Error)
}

func TestRuntimeErrorNamesScriptLine(t *testing.T) {
	src := "const a: number = 1;\n\nconst o: any = null;\nreturn o.field;"
	res := runScript(t, New(DefaultLimits()), src, nil, nil)
	require.Contains(t, res.Error, "TypeError")
	require.Contains(t, res.Error, "scripts/test.ts:4:")
}

func TestOutputCap(t *testing.T) {
	e := New(Limits{MaxOutputBytes: 1000})
	res := runScript(t, e, "return 'x'.repeat(2000);", nil, nil)
	require.Contains(t, res.Error, "output cap reached")
	require.Equal(t, "null", string(res.Value))
	res = runScript(t, e, "return 'x'.repeat(500);", nil, nil)
	require.Empty(t, res.Error)
}

func TestHostCallCap(t *testing.T) {
	e := New(Limits{MaxHostCalls: 3})
	h := &recordingHost{}
	src := "for (let i = 0; i < 10; i++) { try { await appKV.get('k' + i); } catch (e) {} }\nreturn 'done';"
	res := runScript(t, e, src, []string{"read:appdata"}, h)
	require.Contains(t, res.Error, "host-call cap reached: more than 3 platform calls")
	require.Equal(t, 3, res.HostCalls)
	require.Len(t, h.calls, 3)
}

func TestCallStackCap(t *testing.T) {
	res := runScript(t, New(Limits{MaxCallStackSize: 100}), "function f(n: number): number { return f(n + 1); }\nreturn f(0);", nil, nil)
	require.Contains(t, res.Error, "call-stack cap reached")
}

func TestMemoryCap(t *testing.T) {
	e := New(Limits{MaxMemoryBytes: 16 << 20, CPUTime: 30 * time.Second})
	src := "const keep: string[] = [];\nwhile (true) { keep.push('x'.repeat(1024) + keep.length); }"
	res := runScript(t, e, src, nil, nil)
	require.Contains(t, res.Error, "memory cap reached")
}

func TestCompiledProgramsAreCached(t *testing.T) {
	e := New(DefaultLimits())
	for range 3 {
		res := runScript(t, e, "return 1;", nil, nil)
		require.Equal(t, "1", string(res.Value))
	}
	runScript(t, e, "return 2;", nil, nil)
	require.Len(t, e.cache.programs, 2)
}

func TestMethodTable(t *testing.T) {
	perm, ok := Method("appKV.set")
	require.True(t, ok)
	require.Equal(t, "write:appdata", perm)
	_, ok = Method("wallet.drain")
	require.False(t, ok)
	require.True(t, strings.HasPrefix(Methods()[0].Global, "svc."))
}

func TestLazyGlobalsBehaveAsDataProperties(t *testing.T) {
	e := New(DefaultLimits())
	src := `const names = ["svc", "bankr", "appKV", "http", "secrets", "console", "log", "require", "args", "ctx"];
const listed = names.filter((n) => Object.keys(globalThis).includes(n)).length;
const types = names.map((n) => typeof (globalThis as any)[n]).join(",");
const same = svc === bankr && svc.wallet === bankr.wallet && appKV === globalThis.appKV;
const d = Object.getOwnPropertyDescriptor(globalThis, "svc")!;
const keys = Object.keys(svc).join(",");
const { get } = appKV;
(globalThis as any).http = 5;
delete (globalThis as any).secrets;
return { listed, types, same, d: [typeof d.value, d.writable, d.enumerable, d.configurable], keys,
  get: typeof get, http, secrets: typeof (globalThis as any).secrets, console: Object.keys(console).join(",") };`
	res := runScript(t, e, src, nil, nil)
	require.Empty(t, res.Error)
	require.JSONEq(t, `{"listed":10,"types":"object,object,object,object,object,object,function,function,object,object",
		"same":true,"d":["object",true,true,true],"keys":"wallet,portfolio,positions,tokens,files,chain,tx,swap,transfer,sign,askAgent,x402",
		"get":"function","http":5,"secrets":"undefined","console":"log,info,debug,warn,error"}`, string(res.Value))

	// Each run has its own globals: an assignment in one run is not seen by the next.
	res = runScript(t, e, "(globalThis as any).svc.mark = 1;\nreturn 0;", nil, nil)
	require.Empty(t, res.Error)
	res = runScript(t, e, "svc = 3;\nreturn [svc, typeof bankr.mark];", nil, nil)
	require.Empty(t, res.Error)
	require.JSONEq(t, `[3,"undefined"]`, string(res.Value))
}

func TestWatchdogsReleasedAfterConcurrentRuns(t *testing.T) {
	e := New(DefaultLimits())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 20 {
				res, err := e.Run(ctx, Script{Name: "scripts/c.ts", Source: fmt.Sprintf("return %d;", i)}, Env{Host: &recordingHost{}})
				if err != nil || res.Error != "" || string(res.Value) != fmt.Sprint(i) {
					t.Errorf("run %d: %v %q %s", i, err, res.Error, res.Value)
				}
			}
		})
	}
	wg.Wait()
	sampler.mu.Lock()
	defer sampler.mu.Unlock()
	require.Empty(t, sampler.runs)
}
