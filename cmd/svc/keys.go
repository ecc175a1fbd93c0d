package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// keysHelp is the help of "svc keys".
const keysHelp = `Usage: svc keys <create|list|revoke> [flags]

  keys create    create an API key (a child key, or the first key with --credit-token)
  keys list      list the current key and its descendants
  keys revoke    revoke a key and all its descendants

Run "svc keys <command> --help" for details.`

// keysCommands are the commands of API keys, "svc keys ...".
func keysCommands() []command {
	return []command{
		{name: "keys", help: keysHelp},
		{name: "keys create", run: (*app).keysCreate, help: keysCreateHelp,
			brief: "create an API key (a child key, or the first key with --credit-token)"},
		{name: "keys list", run: (*app).keysList, help: keysListHelp,
			brief: "list the current key and its descendants"},
		{name: "keys revoke", run: (*app).keysRevoke, help: keysRevokeHelp,
			brief: "revoke a key and all its descendants"},
	}
}

// keysCreateHelp is the help of "svc keys create".
const keysCreateHelp = `Usage: svc keys create [--name N] [--scope S]... [--service S]... [--limit OP=N/min|OP=N/day]...
                       [--project P] [--credit-token T] [--idempotency-key K] [--login]
                       [--read-only] [--ip-allow A]... [--recipient-allow A]... [--llm] [--agent-api]

Creates an API key and prints its secret once. With the current API key (scope api_keys:manage) the new
key is a child that may only narrow its parent; with --credit-token (or ` + envCreditToken + `) it is the
account's first key and no API key is sent. Every field is optional.

  --name N              a label for people
  --scope S             a scope of the new key; repeatable or comma-separated (default: the parent's)
  --service S           a service id the new key may use; repeatable or comma-separated (default: the
                        parent's services without managed-agents, seed 002's CLI key defaults)
  --llm                 also grant the LLM gateway (service access managed-agents; needs services:invoke)
  --agent-api           also grant the agent API (service access managed-agents; needs runs:write)
  --limit OP=N/min      at most N requests per minute for operation OP (e.g. runs.create=10/min, *=100/min)
  --limit OP=N/day      at most N credits per day (services.invoke, runs.create, ... only)
  --project P           bind the new key to project P (here --project is not the global flag)
  --credit-token T      first-key credit token from "svcd accounts create"
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely
  --login               also store the new key as the CLI's credentials
  --read-only           the new key answers 403 to every write (seed 002's read-only flag)
  --ip-allow A          an address or CIDR range the key may be used from; repeatable or comma-separated
  --recipient-allow A   a recipient the key's wallet sends may go to (0x… EVM, base58 Solana); repeatable
                        or comma-separated

` + globalFlagsHelp

// keysCreate creates an API key: a child of the current key, or with --credit-token the account's first
// key. It prints the secret once, prominently.
func (a *app) keysCreate(args []string) int {
	const cmd = "keys create"
	var (
		name, project, creditToken, idemKey string
		scopes, services, limits            stringList
		saveLogin, readOnly, llmFlag, agent bool
		ipAllow, recipientAllow             stringList
	)
	fs := a.commandFlags(cmd, &idemKey, "project") // --project here binds the new key instead of selecting a project
	fs.StringVar(&name, "name", "", "a label for people")
	fs.Var(&scopes, "scope", "a scope of the new key (repeatable)")
	fs.Var(&services, "service", "a service id the new key may use (repeatable)")
	fs.Var(&limits, "limit", "OP=N/min or OP=N/day (repeatable)")
	fs.StringVar(&project, "project", "", "bind the new key to this project")
	fs.StringVar(&creditToken, "credit-token", "", "first-key credit token")
	fs.BoolVar(&saveLogin, "login", false, "store the new key as the CLI's credentials")
	fs.BoolVar(&readOnly, "read-only", false, "the new key answers 403 to every write")
	fs.Var(&ipAllow, "ip-allow", "an address or CIDR range the key may be used from (repeatable)")
	fs.Var(&recipientAllow, "recipient-allow", "a recipient the key's wallet sends may go to (repeatable)")
	fs.BoolVar(&llmFlag, "llm", false, "also grant the LLM gateway (service access managed-agents)")
	fs.BoolVar(&agent, "agent-api", false, "also grant the agent API (service access managed-agents)")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	req := client.CreateAPIKeyRequest{Name: name, Scopes: scopes, Services: services, ProjectID: project,
		IPAllowlist: ipAllow, RecipientAllowlist: recipientAllowlist(recipientAllow)}
	if readOnly {
		req.ReadOnly = &readOnly
	}
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
		// Seed 002's CLI key defaults: a child key gets the agent API and the LLM gateway only when asked.
		if req.Services == nil {
			visible := c.ListServices(a.ctx)
			if !visible.OK {
				return apiFailure(a, visible)
			}
			var ids []string
			for _, svc := range visible.Body.Services {
				ids = append(ids, svc.ID)
			}
			req.Services = cliKeyServices(ids, llmFlag || agent)
		}
	}
	if req.Services != nil && (llmFlag || agent) {
		req.Services = cliKeyServices(req.Services, true)
	}
	resp := c.CreateAPIKey(a.ctx, req, idemOpts(idemKey)...)
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

// recipientAllowlist sorts --recipient-allow addresses into their families (0x… is EVM, anything else
// Solana-style); nil when none were given.
func recipientAllowlist(addrs []string) *client.RecipientAllowlist {
	if len(addrs) == 0 {
		return nil
	}
	out := &client.RecipientAllowlist{}
	for _, a := range addrs {
		if strings.HasPrefix(strings.ToLower(a), "0x") {
			out.EVM = append(out.EVM, a)
		} else {
			out.Solana = append(out.Solana, a)
		}
	}
	return out
}

// printKeyCreated shows a new key and its secret, with the warning that it is shown only once.
func (a *app) printKeyCreated(k client.APIKey, replayed bool) {
	fmt.Fprintln(a.stdout, titleLine("Created API key", k.ID, k.Name, replayed))
	tw := a.table()
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
	if k.ReadOnly {
		fmt.Fprintf(tw, "  Read-only:\tyes\n")
	}
	if k.IPAllowlist != nil {
		fmt.Fprintf(tw, "  IP allowlist:\t%s\n", strings.Join(k.IPAllowlist, ", "))
	}
	if r := k.RecipientAllowlist; r != nil {
		fmt.Fprintf(tw, "  Recipient allowlist:\t%s\n", recipientText(r))
	}
	_ = tw.Flush()
	a.printSecretOnce(k.Secret)
}

// recipientText shows a recipient allowlist: each family's addresses, "any" for a null list, "none"
// for an empty one.
func recipientText(r *client.RecipientAllowlist) string {
	family := func(name string, addrs []string) string {
		switch {
		case addrs == nil:
			return name + " any"
		case len(addrs) == 0:
			return name + " none"
		}
		return name + " " + strings.Join(addrs, ",")
	}
	return family("evm", r.EVM) + "; " + family("solana", r.Solana)
}

// keyFlags is the FLAGS column of "svc keys list": seed 002's flags the key carries, "-" for none.
func keyFlags(k client.APIKey) string {
	var out []string
	if k.ReadOnly {
		out = append(out, "read-only")
	}
	if k.IPAllowlist != nil {
		out = append(out, "ip "+strings.Join(k.IPAllowlist, ","))
	}
	if k.RecipientAllowlist != nil {
		out = append(out, "recipients "+recipientText(k.RecipientAllowlist))
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, "; ")
}

// keysListHelp is the help of "svc keys list".
const keysListHelp = `Usage: svc keys list [--limit N] [--cursor C] [--all]

Lists the current key and its descendants, newest first (scope api_keys:manage). FLAGS shows seed
002's key flags: read-only, the IP allowlist (ip ...) and the recipient allowlist (recipients ...).

  --limit N    page size 1..200 (default 50)
  --cursor C   the nextCursor of the previous page
  --all        follow nextCursor through every page

` + globalFlagsHelp

// keysList lists the current key and its descendants.
func (a *app) keysList(args []string) int {
	const cmd = "keys list"
	fs := a.commandFlags(cmd, nil)
	var pf pageFlags
	if code, ok := a.parsePaged(cmd, fs, &pf, args); !ok {
		return code
	}
	keys, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.APIKeyList] {
			return c.ListAPIKeys(a.ctx, p)
		},
		func(l client.APIKeyList) ([]client.APIKey, *string) { return l.APIKeys, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.APIKeyList{OK: true, APIKeys: keys, NextCursor: next}, len(keys), "No API keys.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tSTATUS\tSCOPES\tSERVICES\tPARENT\tPROJECT\tCREATED\tFLAGS")
	for _, k := range keys {
		status := "active"
		if k.RevokedAt != nil {
			status = "revoked"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, orDash(k.Name), orDash(k.Prefix), status,
			scopeList(k.Scopes), strings.Join(k.Services, ","), orDash(deref(k.ParentID)), orDash(deref(k.ProjectID)),
			k.CreatedAt.UTC().Format(time.RFC3339), keyFlags(k))
	}
	_ = tw.Flush()
	if next != nil && *next != "" {
		fmt.Fprintf(a.stdout, "More keys: svc keys list --cursor %s\n", *next)
	}
	return exitOK
}

// keysRevokeHelp is the help of "svc keys revoke".
const keysRevokeHelp = `Usage: svc keys revoke ID [--idempotency-key K]

Revokes the key ID and all its descendants (scope api_keys:manage).

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// keysRevoke revokes a key and its descendants.
func (a *app) keysRevoke(args []string) int {
	return oneID(a, idSpec{cmd: "keys revoke", what: "key", idem: true, blank: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.APIKeyEnvelope] {
			return c.RevokeAPIKey(a.ctx, id, opts...)
		},
		func(r client.Response[client.APIKeyEnvelope]) {
			k := r.Body.APIKey
			name := ""
			if k.Name != "" {
				name = " (" + k.Name + ")"
			}
			fmt.Fprintf(a.stdout, "Revoked API key %s%s and all its descendants.\n", k.ID, name)
		})
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
