package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/uptrace/bun"
)

type usageInput struct {
	From      string `query:"from" doc:"First UTC day, YYYY-MM-DD (default: 29 days before to)."`
	To        string `query:"to" doc:"Last UTC day, YYYY-MM-DD (default: today)."`
	Operation string `query:"operation" doc:"Only this limit operation id."`
}

// maxUsageDays bounds one usage query.
const maxUsageDays = 366

func (u *usageAPI) usage(ctx context.Context, in *usageInput) (*Out[client.Usage], error) {
	from, to, err := usageRange(in.From, in.To, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	end := to.AddDate(0, 0, 1)
	rows, err := audit.Usage(ctx, u.db, audit.Filter{AccountID: p.Scope.AccountID, Project: p.Scope.ProjectID,
		Operation: in.Operation, From: &from, To: &end})
	if err != nil {
		return nil, err
	}
	out := client.Usage{OK: true, From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), Usage: make([]client.UsageEntry, 0, len(rows))}
	for _, r := range rows {
		out.Usage = append(out.Usage, audit.UsageToWire(r))
	}
	return reply(out)
}

// usageAPI serves usage reports.
type usageAPI struct {
	db *bun.DB
}

// routes are the usage routes.
func (u *usageAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpUsageRead, Method: http.MethodGet, Path: "/v1/usage", Summary: "Requests and charged credits by project, day and operation", Tag: "Projects",
			Auth: authKey, Scope: client.ScopeUsageRead}, u.usage),
	}
}

func usageRange(fromS, toS string, now time.Time) (time.Time, time.Time, error) {
	to := now.Truncate(24 * time.Hour)
	if toS != "" {
		t, err := time.Parse(time.DateOnly, toS)
		if err != nil {
			return to, to, svcerr.Invalid("to", "to must be a day such as 2026-01-31")
		}
		to = t
	}
	from := to.AddDate(0, 0, -29)
	if fromS != "" {
		f, err := time.Parse(time.DateOnly, fromS)
		if err != nil {
			return from, to, svcerr.Invalid("from", "from must be a day such as 2026-01-01")
		}
		from = f
	}
	switch {
	case from.After(to):
		return from, to, svcerr.Invalid("from", "from is after to")
	case to.Sub(from) >= maxUsageDays*24*time.Hour:
		return from, to, svcerr.Invalid("from", "one query covers at most %d days", maxUsageDays)
	}
	return from, to, nil
}
