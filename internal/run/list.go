package run

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// ListFilter selects the runs List returns. Empty fields match every run.
type ListFilter struct {
	// Scope is the caller's account and project; runs of other scopes are never listed.
	Scope       tenant.Scope
	Status      string
	ServiceID   string
	OperationID string
	// AutomationID keeps the runs an automation started.
	AutomationID string
	// From (inclusive) and To (exclusive) bound the creation time.
	From, To *time.Time
	// Services, when not nil, keeps only runs of these services (the services a key may use); an empty
	// non-nil list matches no run.
	Services []string
}

// List returns the runs matching f, newest first, one page at a time, and the cursor of the next page
// (nil on the last page). It reads the database directly, never the finished-run cache.
func (s *Store) List(ctx context.Context, f ListFilter, p page.Params) ([]schema.Run, *string, error) {
	if f.Services != nil && len(f.Services) == 0 {
		return []schema.Run{}, nil, nil
	}
	out := []schema.Run{}
	q := f.Scope.Where(s.db.NewSelect().Model(&out))
	for _, eq := range []struct{ col, val string }{
		{"status", f.Status}, {"service_id", f.ServiceID}, {"operation_id", f.OperationID}, {"automation_id", f.AutomationID},
	} {
		if eq.val != "" {
			q = q.Where("? = ?", bun.Ident(eq.col), eq.val)
		}
	}
	if f.Services != nil {
		q = q.Where("service_id IN (?)", bun.List(f.Services))
	}
	if f.From != nil {
		q = q.Where("created_at >= ?", *f.From)
	}
	if f.To != nil {
		q = q.Where("created_at < ?", *f.To)
	}
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	q = q.OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1))
	if err := q.Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list runs: %w", err)
	}
	out, next := page.Next(p, out, func(r schema.Run) page.Cursor { return page.Cursor{CreatedAt: r.CreatedAt, ID: r.ID} })
	return out, next, nil
}
