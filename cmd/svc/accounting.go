package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/svcplatform/svc/client"
)

// maxUsageDays is the longest span one usage query may cover, as the API documents it.
const maxUsageDays = 366

// usageReport shows requests and charged credits by day, project and operation.
func (a *app) usageReport(args []string) int {
	const cmd = "usage"
	fs := a.commandFlags(cmd, nil)
	var fromS, toS, operation string
	fs.StringVar(&fromS, "from", "", "first UTC day, YYYY-MM-DD")
	fs.StringVar(&toS, "to", "", "last UTC day, YYYY-MM-DD")
	fs.StringVar(&operation, "operation", "", "only this operation id")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	from, err := parseDay("from", fromS)
	if err != nil {
		return a.usageError(cmd, "%v", err)
	}
	to, err := parseDay("to", toS)
	if err != nil {
		return a.usageError(cmd, "%v", err)
	}
	if !from.IsZero() && !to.IsZero() {
		if from.After(to) {
			return a.usageError(cmd, "--from %s is after --to %s", fromS, toS)
		}
		if days := int(to.Sub(from).Hours()/24) + 1; days > maxUsageDays {
			return a.usageError(cmd, "--from..--to covers %d days; one query covers at most %d", days, maxUsageDays)
		}
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.Usage(a.ctx, client.UsageParams{From: from, To: to, Operation: operation}),
		func(r client.Response[client.Usage]) {
			u := r.Body
			if len(u.Usage) == 0 {
				fmt.Fprintf(a.stdout, "No usage from %s to %s (UTC days).\n", u.From, u.To)
				return
			}
			fmt.Fprintf(a.stdout, "Usage from %s to %s (UTC days)\n", u.From, u.To)
			tw := a.table()
			fmt.Fprintln(tw, "DATE\tPROJECT\tOPERATION\tREQUESTS\tCREDITS")
			var requests, millicredits int64
			for _, e := range u.Usage {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", e.Date, orDash(deref(e.ProjectID)), e.Operation, e.Requests,
					formatCredits(e.ChargedCredits))
				requests += e.Requests
				millicredits += int64(math.Round(e.ChargedCredits * 1000))
			}
			fmt.Fprintf(tw, "TOTAL\t\t\t%d\t%s\n", requests, formatCredits(float64(millicredits)/1000))
			_ = tw.Flush()
		})
}

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

// creditsBalance shows the account's available and held credits.
func (a *app) creditsBalance(args []string) int {
	const cmd = "credits balance"
	fs := a.commandFlags(cmd, nil)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.Balance(a.ctx), func(r client.Response[client.BalanceEnvelope]) {
		b := r.Body.Balance
		tw := a.table()
		fmt.Fprintf(tw, "Available:\t%s credits\n", formatCredits(b.Credits))
		fmt.Fprintf(tw, "Held:\t%s credits\n", formatCredits(b.HeldCredits))
		if !b.UpdatedAt.IsZero() {
			fmt.Fprintf(tw, "Updated:\t%s\n", b.UpdatedAt.UTC().Format(time.RFC3339))
		}
		_ = tw.Flush()
	})
}

// parseDay parses the value of --name as a UTC day, YYYY-MM-DD; "" is the zero time.
func parseDay(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s %q is not a day in the form YYYY-MM-DD, such as 2026-01-31", name, v)
	}
	return t, nil
}

// parseRange parses --from and --to (see parseInstant) and checks that from is before to (to is
// exclusive); either may be empty.
func parseRange(fromS, toS string) (from, to time.Time, err error) {
	if from, err = parseInstant("from", fromS); err != nil {
		return from, to, err
	}
	if to, err = parseInstant("to", toS); err != nil {
		return from, to, err
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return from, to, errors.New("--from must be before --to (--to is exclusive)")
	}
	return from, to, nil
}

// parseInstant parses the value of --name as an RFC 3339 time in whole seconds, or a day YYYY-MM-DD
// (midnight UTC); "" is the zero time. Fractions of a second are refused because the SDK sends whole
// seconds, which would silently move the bound.
func parseInstant(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z (or a day such as 2026-01-02)", name, v)
	}
	if t.Nanosecond() != 0 {
		return time.Time{}, fmt.Errorf("--%s %q: give whole seconds (fractions are not sent)", name, v)
	}
	return t, nil
}

// formatCredits shows a credit amount in plain decimal notation, without trailing zeros.
func formatCredits(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
