package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/svcplatform/svc/client"
)

// auditCommands are the audit event list, "svc audit".
func auditCommands() []command {
	return []command{
		{name: "audit", run: (*app).auditList, help: auditHelp,
			brief: "list audit events (one per authenticated request), newest first"},
	}
}

// auditHelp is the help of "svc audit".
const auditHelp = `Usage: svc audit [--operation OP] [--key KEY_ID] [--status N] [--from TIME] [--to TIME]
                 [--limit N] [--cursor C] [--all]

Lists audit events, newest first (scope audit:read): one per authenticated request, denials included,
never a secret or a body. With a project selected only that project's events are shown. Events are
written in batches, so the latest requests may appear after a moment. KEY "-" is a first-key credit
token.

  --operation OP   only this operation id, e.g. runs.create
  --key KEY_ID     only requests made with this key
  --status N       only answers with this HTTP status (100..599)
  --from TIME      events at or after TIME: RFC 3339 in whole seconds (2026-01-02T15:04:05Z), or a
                   day (2026-01-02, midnight UTC)
  --to TIME        events before TIME (exclusive), same forms as --from
  --limit N        page size 1..200 (default 50)
  --cursor C       the nextCursor of the previous page (repeat the same filters)
  --all            follow nextCursor through every page

` + globalFlagsHelp

// auditList lists audit events, newest first.
func (a *app) auditList(args []string) int {
	const cmd = "audit"
	fs := a.commandFlags(cmd, nil)
	var (
		pf               pageFlags
		operation, keyID string
		fromS, toS       string
		status           int
	)
	fs.StringVar(&operation, "operation", "", "only this operation id")
	fs.StringVar(&keyID, "key", "", "only requests of this key id")
	fs.IntVar(&status, "status", 0, "only answers with this HTTP status")
	fs.StringVar(&fromS, "from", "", "events at or after this RFC 3339 time")
	fs.StringVar(&toS, "to", "", "events before this RFC 3339 time")
	if code, ok := a.parsePaged(cmd, fs, &pf, args); !ok {
		return code
	}
	if flagsGiven(fs)["status"] && (status < 100 || status > 599) {
		return a.usageError(cmd, "--status must be an HTTP status between 100 and 599, not %d", status)
	}
	from, to, err := parseRange(fromS, toS)
	if err != nil {
		return a.usageError(cmd, "%v", err)
	}
	events, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.AuditEventList] {
			return c.ListAuditEvents(a.ctx, client.AuditEventParams{ListParams: p, Operation: operation, KeyID: keyID,
				Status: status, From: from, To: to})
		},
		func(l client.AuditEventList) ([]client.AuditEvent, *string) { return l.AuditEvents, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.AuditEventList{OK: true, AuditEvents: orEmpty(events), NextCursor: next}, len(events), "No audit events.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "TIME\tSTATUS\tMETHOD\tPATH\tOPERATION\tKEY\tREQUEST_ID")
	for _, e := range events {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", e.CreatedAt.UTC().Format(time.RFC3339), e.Status, e.Method,
			e.Path, orDash(e.Operation), orDash(deref(e.KeyID)), orDash(e.RequestID))
	}
	_ = tw.Flush()
	var filters []string
	for _, f := range []struct{ flag, val string }{{"--operation", operation}, {"--key", keyID}, {"--from", fromS}, {"--to", toS}} {
		if f.val != "" {
			filters = append(filters, f.flag, shellQuote(f.val))
		}
	}
	if status != 0 {
		filters = append(filters, "--status", strconv.Itoa(status))
	}
	if pf.limit != 0 {
		filters = append(filters, "--limit", strconv.Itoa(pf.limit))
	}
	a.moreHint("events", cmd, filters, next)
	return exitOK
}
