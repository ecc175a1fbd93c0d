package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/svcplatform/svc/client"
)

// keysCreate creates an API key: a child of the current key, or with --credit-token the account's first
// key. It prints the secret once, prominently.
func (a *app) keysCreate(args []string) int {
	const cmd = "keys create"
	fs := a.flagSet(cmd)
	a.g.register(fs, "project") // --project here binds the new key instead of selecting a project
	var (
		name, project, creditToken, idemKey string
		scopes, services, limits            stringList
		saveLogin                           bool
	)
	fs.StringVar(&name, "name", "", "a label for people")
	fs.Var(&scopes, "scope", "a scope of the new key (repeatable)")
	fs.Var(&services, "service", "a service id the new key may use (repeatable)")
	fs.Var(&limits, "limit", "OP=N/min or OP=N/day (repeatable)")
	fs.StringVar(&project, "project", "", "bind the new key to this project")
	fs.StringVar(&creditToken, "credit-token", "", "first-key credit token")
	fs.StringVar(&idemKey, "idempotency-key", "", "Idempotency-Key to send (default: random)")
	fs.BoolVar(&saveLogin, "login", false, "store the new key as the CLI's credentials")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return a.usageError(cmd, "unexpected argument %q", pos[0])
	}
	req := client.CreateAPIKeyRequest{Name: name, Scopes: scopes, Services: services, ProjectID: project}
	for _, l := range limits {
		lim, err := parseLimit(l)
		if err != nil {
			return a.usageError(cmd, "--limit %q: %v", l, err)
		}
		req.Limits = append(req.Limits, lim)
	}

	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	s.project = "" // the body's projectId binds the key; no project selection on this route
	var c *client.Client
	if token := first(creditToken, a.getenv(envCreditToken)); token != "" {
		// Bootstrapping the first key: the credit token is the only credential sent.
		s.apiKey = ""
		c = a.newClient(s, client.WithCreditToken(token))
	} else {
		if s.apiKey == "" {
			return a.localError(client.CodeUnauthenticated, "no API key or credit token: run \"svc login\", set "+
				envAPIKey+", or pass --credit-token for the first key")
		}
		c = a.newClient(s)
	}
	var opts []client.CallOption
	if idemKey != "" {
		opts = append(opts, client.WithIdempotencyKey(idemKey))
	}
	resp := c.CreateAPIKey(a.ctx, req, opts...)
	if !resp.OK {
		return apiFailure(a, resp)
	}
	k := resp.Body.APIKey
	if a.g.json {
		a.printRaw(resp.Raw)
	} else {
		a.printKeyCreated(k, resp.Replayed)
	}
	if saveLogin && k.Secret != "" {
		path, err := configPath(a.getenv)
		if err == nil {
			err = saveConfig(path, config{BaseURL: s.baseURL, APIKey: k.Secret})
		}
		if err != nil {
			return a.localError("config_error", "the key was created but not stored: "+err.Error())
		}
		fmt.Fprintf(a.stderr, "Stored the new key as the CLI's credentials in %s (mode 0600).\n", path)
	}
	return exitOK
}

// printKeyCreated shows a new key and its secret, with the warning that it is shown only once.
func (a *app) printKeyCreated(k client.APIKey, replayed bool) {
	title := "Created API key " + k.ID
	if k.Name != "" {
		title += " (" + k.Name + ")"
	}
	if replayed {
		title += " [replayed answer]"
	}
	fmt.Fprintln(a.stdout, title)
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  Scopes:\t%s\n", scopeList(k.Scopes))
	fmt.Fprintf(tw, "  Services:\t%s\n", strings.Join(k.Services, ", "))
	if len(k.Limits) > 0 {
		fmt.Fprintf(tw, "  Limits:\t%s\n", limitList(k.Limits))
	}
	if k.ProjectID != nil {
		fmt.Fprintf(tw, "  Project:\t%s\n", *k.ProjectID)
	}
	if k.ParentID != nil {
		fmt.Fprintf(tw, "  Parent:\t%s\n", *k.ParentID)
	}
	_ = tw.Flush()
	if k.Secret == "" {
		return
	}
	bar := strings.Repeat("=", 72)
	fmt.Fprintf(a.stdout, "\n%s\n  SECRET:  %s\n%s\n", bar, k.Secret, bar)
	fmt.Fprintln(a.stdout, "WARNING: this secret is shown only once and cannot be retrieved again. Store it now.")
}

// keysList lists the current key and its descendants.
func (a *app) keysList(args []string) int {
	const cmd = "keys list"
	fs := a.flagSet(cmd)
	a.g.register(fs)
	var (
		limit  int
		cursor string
		all    bool
	)
	fs.IntVar(&limit, "limit", 0, "page size 1..200 (default 50)")
	fs.StringVar(&cursor, "cursor", "", "nextCursor of the previous page")
	fs.BoolVar(&all, "all", false, "follow nextCursor through every page")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return a.usageError(cmd, "unexpected argument %q", pos[0])
	}
	if limit < 0 || limit > 200 {
		return a.usageError(cmd, "--limit must be between 1 and 200")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	p := client.ListParams{Limit: limit, Cursor: cursor}
	var keys []client.APIKey
	var next *string
	for {
		resp := c.ListAPIKeys(a.ctx, p)
		if !resp.OK {
			return apiFailure(a, resp)
		}
		if a.g.json && !all {
			a.printRaw(resp.Raw)
			return exitOK
		}
		keys = append(keys, resp.Body.APIKeys...)
		next = resp.Body.NextCursor
		if !all || next == nil || *next == "" {
			break
		}
		p.Cursor = *next
	}
	if a.g.json {
		a.printJSON(client.APIKeyList{OK: true, APIKeys: keys, NextCursor: next})
		return exitOK
	}
	if len(keys) == 0 {
		fmt.Fprintln(a.stdout, "No API keys.")
		return exitOK
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tSTATUS\tSCOPES\tSERVICES\tPARENT\tPROJECT\tCREATED")
	for _, k := range keys {
		status := "active"
		if k.RevokedAt != nil {
			status = "revoked"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, orDash(k.Name), orDash(k.Prefix), status,
			scopeList(k.Scopes), strings.Join(k.Services, ","), orDash(deref(k.ParentID)), orDash(deref(k.ProjectID)),
			k.CreatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
	if next != nil && *next != "" {
		fmt.Fprintf(a.stdout, "More keys: svc keys list --cursor %s\n", *next)
	}
	return exitOK
}

// keysRevoke revokes a key and its descendants.
func (a *app) keysRevoke(args []string) int {
	const cmd = "keys revoke"
	fs := a.flagSet(cmd)
	a.g.register(fs)
	var idemKey string
	fs.StringVar(&idemKey, "idempotency-key", "", "Idempotency-Key to send (default: random)")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || pos[0] == "" {
		return a.usageError(cmd, "keys revoke takes exactly one key id")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	var opts []client.CallOption
	if idemKey != "" {
		opts = append(opts, client.WithIdempotencyKey(idemKey))
	}
	resp := c.RevokeAPIKey(a.ctx, pos[0], opts...)
	if !resp.OK {
		return apiFailure(a, resp)
	}
	if a.g.json {
		a.printRaw(resp.Raw)
		return exitOK
	}
	k := resp.Body.APIKey
	name := ""
	if k.Name != "" {
		name = " (" + k.Name + ")"
	}
	fmt.Fprintf(a.stdout, "Revoked API key %s%s and all its descendants.\n", k.ID, name)
	return exitOK
}

// parseLimit parses OP=N/min (requests per minute) or OP=N/day (credits per day).
func parseLimit(s string) (client.Limit, error) {
	i := strings.LastIndex(s, "=")
	if i <= 0 {
		return client.Limit{}, fmt.Errorf("want OP=N/min or OP=N/day")
	}
	op, rate := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
	num, unit, ok := strings.Cut(rate, "/")
	if !ok {
		return client.Limit{}, fmt.Errorf("want OP=N/min or OP=N/day")
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 1 {
		return client.Limit{}, fmt.Errorf("%q is not a positive whole number", num)
	}
	switch strings.TrimSpace(unit) {
	case "min", "minute", "m":
		return client.Limit{Operation: op, RequestsPerMinute: n}, nil
	case "day", "d":
		return client.Limit{Operation: op, CreditsPerDay: n}, nil
	}
	return client.Limit{}, fmt.Errorf("unit %q: use /min (requests per minute) or /day (credits per day)", unit)
}

// formatLimit is the inverse of parseLimit.
func formatLimit(l client.Limit) string {
	if l.CreditsPerDay > 0 {
		return fmt.Sprintf("%s=%d/day", l.Operation, l.CreditsPerDay)
	}
	return fmt.Sprintf("%s=%d/min", l.Operation, l.RequestsPerMinute)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
