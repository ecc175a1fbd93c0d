package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/svcplatform/svc/client"
)

// Exit codes of the CLI.
const (
	exitOK    = 0
	exitAPI   = 1 // the API (or the transport, or a run) failed
	exitUsage = 2 // the command line was wrong
)

// Environment variables the CLI reads.
const (
	envAPIKey         = "SVC_API_KEY"
	envBaseURL        = "SVC_BASE_URL"
	envProject        = "SVC_PROJECT"
	envCreditToken    = "SVC_CREDIT_TOKEN"
	envNotInteractive = "SVC_NOT_INTERACTIVE"
	envLLMKey         = "SVC_LLM_KEY"
)

// requestTimeout bounds every HTTP request the CLI makes.
const requestTimeout = 30 * time.Second

// userAgent identifies the CLI to the server.
const userAgent = "svc-cli/" + client.SDKVersion

// globals are the flags every command accepts, before or after its name.
type globals struct {
	json           bool
	baseURL        string
	apiKey         string
	project        string
	notInteractive bool
}

// register adds the global flags to fs, except the named ones (a command may define its own meaning).
func (g *globals) register(fs *flag.FlagSet, except ...string) {
	skip := map[string]bool{}
	for _, e := range except {
		skip[e] = true
	}
	if !skip["json"] {
		fs.BoolVar(&g.json, "json", g.json, "print the API's JSON envelope")
	}
	if !skip["base-url"] {
		fs.StringVar(&g.baseURL, "base-url", g.baseURL, "API address")
	}
	if !skip["api-key"] {
		fs.StringVar(&g.apiKey, "api-key", g.apiKey, "API key")
	}
	if !skip["project"] {
		fs.StringVar(&g.project, "project", g.project, "active project (X-Svc-Project)")
	}
	if !skip["not-interactive"] {
		fs.BoolVar(&g.notInteractive, "not-interactive", g.notInteractive, "never prompt: skip confirmations, fail fast on required input")
		fs.BoolVar(&g.notInteractive, "ni", g.notInteractive, "alias of --not-interactive")
	}
}

// app is one invocation of the CLI: its streams, environment and global flags.
type app struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	g      globals
	llm    bool // an llm command: the LLM gateway's key (SVC_LLM_KEY, config llmKey) comes before the API key
}

// run executes the CLI with args (without the program name) and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return runContext(ctx, args, stdin, stdout, stderr, getenv)
}

// runContext is run with the context commands use: long-running ones (webhooks listen, runs watch)
// stop when it ends.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}

	fs := a.flagSet("svc")
	a.g.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			a.printUsage(a.stdout, "")
			return exitOK
		}
		return a.usageError("", "%s", flagError(fs, args, err))
	}
	rest := fs.Args()
	if len(rest) == 0 {
		a.printUsage(a.stderr, "")
		return exitUsage
	}
	return a.dispatch(rest)
}

// flagSet returns a FlagSet that reports errors to the caller instead of printing or exiting.
func (a *app) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses a command's flags, accepting flags and positional arguments in any order (a "--" ends
// the flags). It returns the positional arguments, or the exit code to return at once (help or a
// usage error) with ok false.
func (a *app) parse(cmd string, fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				a.printUsage(a.stdout, cmd)
				return nil, exitOK, false
			}
			return nil, a.usageError(cmd, "%s", flagError(fs, args, err)), false
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), 0, true
		}
		if len(rest) == 0 {
			return pos, 0, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usageError prints a usage error and returns exitUsage.
func (a *app) usageError(cmd, format string, args ...any) int {
	fmt.Fprintf(a.stderr, "error: %s\n", fmt.Sprintf(format, args...))
	if cmd == "" {
		fmt.Fprintln(a.stderr, `Run "svc help" for usage.`)
	} else {
		fmt.Fprintf(a.stderr, "Run \"svc %s --help\" for usage.\n", cmd)
	}
	return exitUsage
}

// settings are the resolved connection settings of a command.
type settings struct {
	baseURL   string
	apiKey    string
	keySource string // where apiKey came from: flag, environment or the config file path
	llmKey    string // the LLM gateway's key: SVC_LLM_KEY, else the config file's llmKey; "" when neither
	llmSource string // where llmKey came from
	project   string
	cfgPath   string
}

// settings resolves base URL, API key and project: flags, then environment, then config file, then
// defaults. In an llm command the LLM gateway's key, when set, comes right after --api-key. A missing config file is fine; an unreadable one is an error.
func (a *app) settings() (settings, error) {
	s := settings{}
	path, pathErr := configPath(a.getenv)
	var cfg config
	if pathErr == nil {
		s.cfgPath = path
		c, err := loadConfig(path)
		if err != nil {
			return s, err
		}
		cfg = c
	}
	s.baseURL = client.NormalizeBaseURL(first(a.g.baseURL, a.getenv(envBaseURL), cfg.BaseURL))
	s.project = first(a.g.project, a.getenv(envProject), cfg.Project)
	switch {
	case a.getenv(envLLMKey) != "":
		s.llmKey, s.llmSource = strings.TrimSpace(a.getenv(envLLMKey)), envLLMKey+" environment variable"
	case cfg.LLMKey != "":
		s.llmKey, s.llmSource = cfg.LLMKey, path
	}
	switch {
	case a.g.apiKey != "":
		s.apiKey, s.keySource = a.g.apiKey, "--api-key flag"
	case a.llm && s.llmKey != "":
		s.apiKey, s.keySource = s.llmKey, "the LLM key of "+s.llmSource
	case a.getenv(envAPIKey) != "":
		s.apiKey, s.keySource = a.getenv(envAPIKey), envAPIKey+" environment variable"
	case cfg.APIKey != "":
		s.apiKey, s.keySource = cfg.APIKey, path
	}
	return s, nil
}

// first returns the first non-empty (after trimming) value.
func first(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// newClient builds the SDK client for the settings; apiKey overrides the settings' key when not "".
func (a *app) newClient(s settings, opts ...client.Option) *client.Client {
	base := []client.Option{
		client.WithBaseURL(s.baseURL), client.WithAPIKey(s.apiKey), client.WithProject(s.project),
		client.WithUserAgent(userAgent), client.WithHTTPClient(&http.Client{Timeout: requestTimeout}),
	}
	return client.New(append(base, opts...)...)
}

// authedClient resolves settings and builds a client that has an API key, or prints why not and returns
// the exit code with ok false.
func (a *app) authedClient() (*client.Client, settings, int, bool) {
	s, err := a.settings()
	if err != nil {
		return nil, s, a.localError("config_error", err.Error()), false
	}
	if s.apiKey == "" {
		return nil, s, a.localError(client.CodeUnauthenticated,
			`no API key: run "svc login", set `+envAPIKey+" or pass --api-key"), false
	}
	return a.newClient(s), s, 0, true
}

// interactive reports whether the CLI may prompt: stdin is a terminal and no --not-interactive asks
// otherwise.
func (a *app) interactive() bool {
	return !a.notInteractive() && isTerminal(a.stdin)
}

// notInteractive reports whether --not-interactive (--ni) or SVC_NOT_INTERACTIVE=1 asks never to prompt.
func (a *app) notInteractive() bool {
	if a.g.notInteractive {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(a.getenv(envNotInteractive))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// mayProceed decides, before anything is sent, how a command that confirms an action goes on. --yes
// proceeds without asking. --not-interactive (seed 002) skips the confirmation too and proceeds as if it
// were confirmed: *yes becomes true and a line on stderr says so. Without a terminal to ask on, it is a
// usage error naming both flags. Otherwise the command asks later (ok true, *yes false). action is the
// verb of the error, e.g. "send".
func (a *app) mayProceed(cmd string, yes *bool, action string) (code int, ok bool) {
	switch {
	case *yes:
		return 0, true
	case a.notInteractive():
		*yes = true
		fmt.Fprintf(a.stderr, "--not-interactive: the confirmation is skipped, going on to %s.\n", action)
		return 0, true
	case !isTerminal(a.stdin):
		return a.usageError(cmd, "no terminal to confirm on: add --yes (or --not-interactive) to %s without asking", action), false
	}
	return 0, true
}

// localError reports a failure found before or without an API answer, in the API's error format, and
// returns exitAPI. In --json mode the error envelope also goes to stdout.
func (a *app) localError(code, msg string) int {
	e := &client.Error{Code: code, Message: msg}
	if a.g.json {
		a.printJSON(client.ErrorEnvelope{OK: false, Error: *e})
	}
	a.printErrorLine(e)
	return exitAPI
}

// printErrorLine prints "error: <code>: <message> (param) [requestId]" to stderr, the param only when
// the message does not already name it (client.Error's Error).
func (a *app) printErrorLine(e *client.Error) {
	line := "error: " + e.Error()
	if e.RequestID != "" {
		line += " [" + e.RequestID + "]"
	}
	fmt.Fprintln(a.stderr, line)
}

// apiFailure reports a failed Response and returns exitAPI: the error line on stderr and, in --json mode,
// the error envelope (as received, or synthesised for SDK-side failures) on stdout.
func apiFailure[T any](a *app, r client.Response[T]) int {
	e := r.Error
	if e == nil {
		e = &client.Error{Code: client.CodeInvalidResponse, Message: "the request failed"}
	}
	if a.g.json {
		if r.Error != nil && r.Error.Code != client.CodeInvalidResponse && json.Valid(r.Raw) && len(r.Raw) > 0 {
			a.printRaw(r.Raw)
		} else {
			a.printJSON(client.ErrorEnvelope{OK: false, Error: *e})
		}
	}
	a.printErrorLine(e)
	// The server's message usually says when to retry; otherwise Retry-After does.
	if r.Error != nil && r.Error.Code == client.CodeLimitExceeded && !strings.Contains(strings.ToLower(r.Error.Message), "retry") {
		if ra := r.RetryAfter(); ra > 0 {
			fmt.Fprintf(a.stderr, "retry after %s (limit %s)\n", ra, r.Header.Get(client.HeaderLimitOperation))
		}
	}
	return exitAPI
}

// printRaw prints a JSON body indented, keeping its fields and numbers exactly.
func (a *app) printRaw(raw []byte) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(raw), "", "  "); err != nil {
		_, _ = a.stdout.Write(raw)
		fmt.Fprintln(a.stdout)
		return
	}
	buf.WriteByte('\n')
	_, _ = a.stdout.Write(buf.Bytes())
}

// printJSON prints v as indented JSON.
func (a *app) printJSON(v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintf(a.stderr, "error: encode JSON: %v\n", err)
		return
	}
	_, _ = a.stdout.Write(append(b, '\n'))
}

// isTerminal reports whether r is a terminal (not merely a character device: /dev/null is one).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) // a character device such as /dev/null is no terminal
}
