package appscript

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"
)

// wrapperHead and wrapperTail turn a script's top-level statements into an async function, so that
// top-level return and await work. The head shares line 1 with the script, so every line keeps its
// number; columns on line 1 are corrected by len(wrapperHead).
const (
	wrapperHead = "(async function __script() {"
	wrapperTail = "\n})"
)

// programName is the name goja compiles under; the inline source map resolves positions to the
// script's own name relative to it.
const programName = "app"

// maxCachedPrograms bounds the compiled-program cache; beyond it an arbitrary entry is dropped.
const maxCachedPrograms = 512

// moduleSyntax finds module syntax a script may not use: static import/export statements (not an
// object key "import:"), dynamic import() and require() (not a method obj.require()). It is a lexical
// check of each source line without its // comment; group 2 is the keyword.
var moduleSyntax = regexp.MustCompile(`(^\s*|[^.\w$])(import\s*[\w{*'"(]|export\s+[\w{*]|require\s*\()`)

// SyntaxError is a script that does not transpile or compile: it names the script, line and column.
type SyntaxError struct {
	Script string
	Line   int // 1-based
	Column int // 1-based
	Msg    string
}

// Error formats the error as "scripts/x.ts:3:7: message".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Script, e.Line, e.Column, e.Msg)
}

// Check transpiles and compiles s without running it, as an upload does. Its error is a *SyntaxError
// naming the script, line and column.
func Check(s Script) error {
	_, err := compile(s)
	return err
}

// compile refuses module syntax, strips the TypeScript types with esbuild and compiles the result
// with goja, keeping an inline source map so runtime positions point into the script.
func compile(s Script) (*goja.Program, error) {
	if err := refuseModules(s); err != nil {
		return nil, err
	}
	res := api.Transform(wrapperHead+s.Source+wrapperTail, api.TransformOptions{
		Loader:     api.LoaderTS,
		Sourcefile: s.Name,
		Sourcemap:  api.SourceMapInline,
		Target:     api.ES2020,
		LogLevel:   api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		return nil, esbuildError(s.Name, res.Errors[0])
	}
	prg, err := goja.Compile(programName, string(res.Code), false)
	if err != nil {
		return nil, compileError(s.Name, err)
	}
	return prg, nil
}

// refuseModules names the first line using import, export or require.
func refuseModules(s Script) error {
	for i, line := range strings.Split(s.Source, "\n") {
		code, _, _ := strings.Cut(line, "//")
		loc := moduleSyntax.FindStringSubmatchIndex(code)
		if loc == nil {
			continue
		}
		return &SyntaxError{Script: s.Name, Line: i + 1, Column: loc[4] + 1,
			Msg: "app scripts cannot import modules (import, export and require are not available): use the globals svc, appKV, http, secrets, args, ctx and log"}
	}
	return nil
}

// esbuildError turns esbuild's message into a SyntaxError in the script's own coordinates.
func esbuildError(name string, m api.Message) error {
	e := &SyntaxError{Script: name, Line: 1, Column: 1, Msg: m.Text}
	if loc := m.Location; loc != nil {
		e.Line, e.Column = loc.Line, loc.Column+1
		if loc.Line == 1 {
			e.Column = max(1, loc.Column-len(wrapperHead)+1)
		}
	}
	return e
}

// compileError reports a goja compile error (rare after esbuild) against the script's name.
func compileError(name string, err error) error {
	return &SyntaxError{Script: name, Line: 1, Column: 1, Msg: err.Error()}
}

// programCache holds compiled programs by the hash of the script's name and source; a goja.Program
// is immutable and may run in many runtimes at once.
type programCache struct {
	mu       sync.Mutex
	programs map[[32]byte]*goja.Program
}

// get returns s's compiled program, compiling and caching it on a miss. Failures are not cached.
func (c *programCache) get(s Script) (*goja.Program, error) {
	key := sha256.Sum256([]byte(s.Name + "\x00" + s.Source))
	c.mu.Lock()
	prg, ok := c.programs[key]
	c.mu.Unlock()
	if ok {
		return prg, nil
	}
	prg, err := compile(s)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.programs == nil {
		c.programs = make(map[[32]byte]*goja.Program)
	}
	if len(c.programs) >= maxCachedPrograms {
		for k := range c.programs {
			delete(c.programs, k)
			break
		}
	}
	c.programs[key] = prg
	return prg, nil
}
