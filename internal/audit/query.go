package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/schema"
)

// Filter selects audit events. Project, when set, limits them to one project (a project-bound key, or
// an account-level key that selected one); otherwise every event of the account is visible.
type Filter struct {
	AccountID string
	Project   *string
	Operation string
	KeyID     string
	Status    int
	From, To  *time.Time
}

func (f Filter) where(q *bun.SelectQuery) *bun.SelectQuery {
	q = q.Where("account_id = ?", f.AccountID)
	if f.Project != nil {
		q = q.Where("project_id = ?", *f.Project)
	}
	if f.Operation != "" {
		q = q.Where("operation = ?", f.Operation)
	}
	if f.KeyID != "" {
		q = q.Where("key_id = ?", f.KeyID)
	}
	if f.Status != 0 {
		q = q.Where("status = ?", f.Status)
	}
	if f.From != nil {
		q = q.Where("created_at >= ?", *f.From)
	}
	if f.To != nil {
		q = q.Where("created_at < ?", *f.To)
	}
	return q
}

// List returns matching events, newest first.
func List(ctx context.Context, db bun.IDB, f Filter, p page.Params) ([]schema.AuditEvent, *string, error) {
	var out []schema.AuditEvent
	q := f.where(db.NewSelect().Model(&out)).OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1))
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list audit events: %w", err)
	}
	out, next := page.Next(p, out, func(e schema.AuditEvent) page.Cursor { return page.Cursor{CreatedAt: e.CreatedAt, ID: e.ID} })
	return out, next, nil
}

// EventToWire converts an event to the API's shape.
func EventToWire(e *schema.AuditEvent) client.AuditEvent {
	return client.AuditEvent{ID: e.ID, KeyID: e.KeyID, ProjectID: e.ProjectID,
		Operation: e.Operation, Method: e.Method, Path: e.Path, Status: e.Status, RequestID: e.RequestID,
		ClientIP: e.ClientIP, ChargedCredits: catalog.Credits(e.ChargedMillicredits), CreatedAt: e.CreatedAt.UTC(), Sanitized: e.Sanitized,
		SessionAddress: e.SessionAddress, PartnerID: e.PartnerID}
}

// UsageRow is one project's requests and charges for one operation on one UTC day.
type UsageRow struct {
	ProjectID           *string   `bun:"project_id"`
	Day                 time.Time `bun:"day"`
	Operation           string    `bun:"operation"`
	Requests            int64     `bun:"requests"`
	ChargedMillicredits int64     `bun:"charged"`
}

// UsageToWire converts a usage row to the API's shape.
func UsageToWire(r UsageRow) client.UsageEntry {
	return client.UsageEntry{Date: r.Day.Format(time.DateOnly), ProjectID: r.ProjectID,
		Operation: r.Operation, Requests: r.Requests, ChargedCredits: catalog.Credits(r.ChargedMillicredits)}
}

// Usage sums the matching events by project, UTC day and operation (Operation, KeyID and Status of the
// filter apply too), ordered by day, project and operation.
func Usage(ctx context.Context, db bun.IDB, f Filter) ([]UsageRow, error) {
	var rows []UsageRow
	q := f.where(db.NewSelect().Table("audit_events")).
		ColumnExpr("project_id").
		ColumnExpr("date_trunc('day', created_at AT TIME ZONE 'UTC') AS day").
		ColumnExpr("operation").
		ColumnExpr("count(*) AS requests").
		ColumnExpr("coalesce(sum(charged_millicredits), 0) AS charged").
		GroupExpr("1, 2, 3").OrderExpr("2, 1 NULLS FIRST, 3")
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("sum usage: %w", err)
	}
	return rows, nil
}
