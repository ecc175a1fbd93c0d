package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/svcplatform/svc/client"
)

// pageFlags are the --limit, --cursor and --all flags of a list command.
type pageFlags struct {
	limit  int
	cursor string
	all    bool
}

// register adds --limit, --cursor and --all to fs.
func (p *pageFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&p.limit, "limit", 0, "page size 1..200 (default 50)")
	fs.StringVar(&p.cursor, "cursor", "", "nextCursor of the previous page")
	fs.BoolVar(&p.all, "all", false, "follow nextCursor through every page")
}

// check validates the flags; it returns a usage message or "".
func (p *pageFlags) check() string {
	if p.limit < 0 || p.limit > 200 {
		return "--limit must be between 1 and 200"
	}
	return ""
}

// params are the list parameters the flags ask for.
func (p *pageFlags) params() client.ListParams {
	return client.ListParams{Limit: p.limit, Cursor: p.cursor}
}

// collectPages builds the authenticated client and fetches one page of a list, or with --all every page
// from --cursor on. In --json mode without --all it prints the page's raw envelope and returns done. A
// missing key or a failed request is reported and its exit code returned with done true.
func collectPages[E, T any](a *app, pf pageFlags, fetch func(*client.Client, client.ListParams) client.Response[E],
	split func(E) ([]T, *string)) (items []T, next *string, code int, done bool) {
	c, _, code, ok := a.authedClient()
	if !ok {
		return nil, nil, code, true
	}
	p := pf.params()
	for {
		resp := fetch(c, p)
		if !resp.OK {
			return nil, nil, apiFailure(a, resp), true
		}
		if a.g.json && !pf.all {
			a.printRaw(resp.Raw)
			return nil, nil, exitOK, true
		}
		page, n := split(resp.Body)
		items, next = append(items, page...), n
		if !pf.all || next == nil || *next == "" {
			return items, next, exitOK, false
		}
		p.Cursor = *next
	}
}

// parsePaged registers pf on fs and parses the flags of a list command, which takes no positional
// argument; it returns the exit code to return at once (help or a usage error) with ok false.
func (a *app) parsePaged(cmd string, fs *flag.FlagSet, pf *pageFlags, args []string) (code int, ok bool) {
	pf.register(fs)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code, false
	}
	if msg := pf.check(); msg != "" {
		return a.usageError(cmd, "%s", msg), false
	}
	return 0, true
}

// listShown prints, in --json mode, the envelope of a collected list or else none when the list has no
// items (n is its length), and reports whether it printed either.
func (a *app) listShown(envelope any, n int, none string) bool {
	if a.g.json {
		a.printJSON(envelope)
		return true
	}
	if n == 0 {
		fmt.Fprintln(a.stdout, none)
		return true
	}
	return false
}

// moreHint prints how to fetch the next page: the command, its filters and --cursor.
func (a *app) moreHint(what, cmd string, filters []string, next *string) {
	if next == nil || *next == "" {
		return
	}
	parts := append([]string{"svc", cmd}, filters...)
	parts = append(parts, "--cursor", shellQuote(*next))
	fmt.Fprintf(a.stdout, "More %s: %s\n", what, strings.Join(parts, " "))
}

// shellQuote quotes s for a POSIX shell when it holds anything beyond plain word characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/=+@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// orEmpty turns a nil slice into an empty one, so JSON shows [] rather than null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
