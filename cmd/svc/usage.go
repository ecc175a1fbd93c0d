package main

import (
	"fmt"
	"math"

	"github.com/svcplatform/svc/client"
)

// maxUsageDays is the longest span one usage query may cover, as the API documents it.
const maxUsageDays = 366

// usageCommands are the usage report, "svc usage".
func usageCommands() []command {
	return []command{
		{name: "usage", run: (*app).usageReport, help: usageHelp,
			brief: "show requests and charged credits by day, project and operation"},
	}
}

// usageHelp is the help of "svc usage".
const usageHelp = `Usage: svc usage [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--operation OP]

Shows requests and charged credits by UTC day, project and operation, with totals (scope usage:read).
With a project selected (--project, ` + envProject + `, or a key bound to a project) only that project
counts. PROJECT "-" is requests made outside any project. The counts come from audit events, which are
written in batches, so the latest requests may count only after a moment.

  --from DAY       first UTC day included (default: 29 days before --to)
  --to DAY         last UTC day included (default: today)
  --operation OP   only this operation id, e.g. runs.create

One query covers at most 366 days.

` + globalFlagsHelp

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
