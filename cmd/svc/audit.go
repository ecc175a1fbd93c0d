package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/svcplatform/svc/client"
)

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
