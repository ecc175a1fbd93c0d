package main

import (
	"flag"
	"strings"
	"text/tabwriter"

	"github.com/svcplatform/svc/client"
)

// commandFlags returns the FlagSet of cmd with the global flags (but the except ones) and, when idemKey is
// not nil, --idempotency-key bound to *idemKey.
func (a *app) commandFlags(cmd string, idemKey *string, except ...string) *flag.FlagSet {
	fs := a.flagSet(cmd)
	a.g.register(fs, except...)
	if idemKey != nil {
		fs.StringVar(idemKey, "idempotency-key", "", "Idempotency-Key to send (default: random)")
	}
	return fs
}

// parseNone parses the flags of a command that takes no positional argument; one is a usage error. It
// returns the exit code to return at once with ok false.
func (a *app) parseNone(cmd string, fs *flag.FlagSet, args []string) (code int, ok bool) {
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code, false
	}
	if len(pos) > 0 {
		return a.usageError(cmd, "unexpected argument %q", pos[0]), false
	}
	return 0, true
}

// idSpec describes a command that takes exactly one id as its positional argument.
type idSpec struct {
	cmd   string // the command, e.g. "projects get"
	what  string // what the id names, e.g. "project"
	idem  bool   // the command takes --idempotency-key
	blank bool   // an id of only spaces goes to the API; only an empty one is refused
}

// parseID parses the flags of a command that takes exactly one id and returns the id; another count, an
// empty id or (unless spec.blank) an id of only spaces is a usage error. It returns the exit code to
// return at once with ok false.
func (a *app) parseID(spec idSpec, fs *flag.FlagSet, args []string) (id string, code int, ok bool) {
	pos, code, ok := a.parse(spec.cmd, fs, args)
	if !ok {
		return "", code, false
	}
	if len(pos) != 1 || pos[0] == "" || !spec.blank && strings.TrimSpace(pos[0]) == "" {
		return "", a.usageError(spec.cmd, "%s takes exactly one %s id", spec.cmd, spec.what), false
	}
	return pos[0], 0, true
}

// answer finishes a command with one API call: a failure is reported, in --json mode the raw envelope
// is printed, and otherwise show presents the answer.
func answer[T any](a *app, resp client.Response[T], show func(resp client.Response[T])) int {
	if !resp.OK {
		return apiFailure(a, resp)
	}
	if a.g.json {
		a.printRaw(resp.Raw)
		return exitOK
	}
	show(resp)
	return exitOK
}

// oneID runs a command that takes only the global flags (and --idempotency-key with spec.idem) and one
// id, and makes one API call with it: call sends it, show presents a successful answer outside --json
// mode.
func oneID[T any](a *app, spec idSpec, args []string,
	call func(c *client.Client, id string, opts []client.CallOption) client.Response[T],
	show func(resp client.Response[T])) int {
	var idemKey string
	idemPtr := &idemKey
	if !spec.idem {
		idemPtr = nil
	}
	fs := a.commandFlags(spec.cmd, idemPtr)
	id, code, ok := a.parseID(spec, fs, args)
	if !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, call(c, id, idemOpts(idemKey)), show)
}

// flagsGiven returns the names of the flags given on the command line.
func flagsGiven(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// table returns a writer of aligned columns on stdout; the caller flushes it.
func (a *app) table() *tabwriter.Writer {
	return tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
}

// idemOpts sends key as the Idempotency-Key when given (the SDK otherwise makes a random one).
func idemOpts(key string) []client.CallOption {
	if key == "" {
		return nil
	}
	return []client.CallOption{client.WithIdempotencyKey(key)}
}
