package api

import (
	"context"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
)

type auditListInput struct {
	PageQuery
	Operation string `query:"operation" doc:"Only this limit operation id."`
	KeyID     string `query:"keyId" doc:"Only requests of this key."`
	Status    int    `query:"status" minimum:"100" maximum:"599" doc:"Only answers with this HTTP status."`
	From      string `query:"from" doc:"RFC 3339 time: events at or after it."`
	To        string `query:"to" doc:"RFC 3339 time: events before it."`
}

func (s *Server) listAuditEvents(ctx context.Context, in *auditListInput) (*Out[client.AuditEventList], error) {
	p, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	f, err := auditFilter(ctx, in)
	if err != nil {
		return nil, err
	}
	rows, next, err := audit.List(ctx, s.db, f, p)
	if err != nil {
		return nil, err
	}
	out := client.AuditEventList{OK: true, AuditEvents: make([]client.AuditEvent, 0, len(rows)), NextCursor: next}
	for _, e := range rows {
		out.AuditEvents = append(out.AuditEvents, client.AuditEvent{ID: e.ID, KeyID: e.KeyID, ProjectID: e.ProjectID,
			Operation: e.Operation, Method: e.Method, Path: e.Path, Status: e.Status, RequestID: e.RequestID,
			ClientIP: e.ClientIP, ChargedCredits: credits(e.ChargedMillicredits), CreatedAt: e.CreatedAt.UTC(), Sanitized: e.Sanitized})
	}
	return reply(out)
}

func auditFilter(ctx context.Context, in *auditListInput) (audit.Filter, error) {
	p := principalFrom(ctx)
	f := audit.Filter{AccountID: p.Scope.AccountID, Project: p.Scope.ProjectID, Operation: in.Operation, KeyID: in.KeyID, Status: in.Status}
	var err error
	if f.From, err = parseTime("from", in.From); err != nil {
		return f, err
	}
	if f.To, err = parseTime("to", in.To); err != nil {
		return f, err
	}
	return f, nil
}

type usageInput struct {
	From      string `query:"from" doc:"First UTC day, YYYY-MM-DD (default: 29 days before to)."`
	To        string `query:"to" doc:"Last UTC day, YYYY-MM-DD (default: today)."`
	Operation string `query:"operation" doc:"Only this limit operation id."`
}

// maxUsageDays bounds one usage query.
const maxUsageDays = 366

func (s *Server) usage(ctx context.Context, in *usageInput) (*Out[client.Usage], error) {
	from, to, err := usageRange(in.From, in.To, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	end := to.AddDate(0, 0, 1)
	rows, err := audit.Usage(ctx, s.db, audit.Filter{AccountID: p.Scope.AccountID, Project: p.Scope.ProjectID,
		Operation: in.Operation, From: &from, To: &end})
	if err != nil {
		return nil, err
	}
	out := client.Usage{OK: true, From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), Usage: make([]client.UsageEntry, 0, len(rows))}
	for _, r := range rows {
		out.Usage = append(out.Usage, client.UsageEntry{Date: r.Day.Format(time.DateOnly), ProjectID: r.ProjectID,
			Operation: r.Operation, Requests: r.Requests, ChargedCredits: credits(r.ChargedMillicredits)})
	}
	return reply(out)
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

func (s *Server) balance(ctx context.Context, _ *struct{}) (*Out[client.BalanceEnvelope], error) {
	b, err := s.ledger.Balance(ctx, principalFrom(ctx).Scope.AccountID)
	if err != nil {
		return nil, err
	}
	return reply(client.BalanceEnvelope{OK: true, Balance: client.Balance{
		Credits: credits(b.Available), HeldCredits: credits(b.Held), UpdatedAt: b.UpdatedAt.UTC()}})
}
