// Package sweep hands on resources whose request died between recording them and starting their
// workflow: a worker's periodic job lists those still in a running status after a settling time and
// starts their workflow (a start of one that runs or ran is refused as a duplicate, so a sweep never
// runs anything twice).
package sweep

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Window is how far back a sweep looks: older records are left alone.
const Window = 24 * time.Hour

// Query says which rows a sweep looks at.
type Query struct {
	// What names the rows in errors ("launches").
	What string
	// Statuses are the running statuses a row may still be in.
	Statuses []string
	// Where is an extra SQL condition of the rows (optional, constant: no caller input).
	Where string
	// Settle is how long a row is left to its own request first; Limit caps the rows of one sweep.
	Settle time.Duration
	Limit  int
}

// Stale lists the rows of T's table that q selects — status one of q.Statuses, recorded more than
// q.Settle and less than q.Settle+Window ago, oldest first, at most q.Limit — and calls start on each in
// turn; it answers how many it started. start answers false for a row it leaves (one whose request never
// finished recording it: a retry of the request does).
func Stale[T any](ctx context.Context, db bun.IDB, q Query, start func(context.Context, *T) (bool, error)) (int, error) {
	var stale []T
	before := time.Now().Add(-q.Settle)
	sel := db.NewSelect().Model(&stale).Where("status IN (?) AND created_at < ? AND created_at > ?", bun.List(q.Statuses), before, before.Add(-Window))
	if q.Where != "" {
		sel = sel.Where(q.Where)
	}
	if err := sel.OrderExpr("created_at").Limit(int64(q.Limit)).Scan(ctx); err != nil {
		return 0, fmt.Errorf("list stale %s: %w", q.What, err)
	}
	n := 0
	for i := range stale {
		started, err := start(ctx, &stale[i])
		if err != nil {
			return n, fmt.Errorf("start a stale %s: %w", q.What, err)
		}
		if started {
			n++
		}
	}
	return n, nil
}

// Recorded says whether the row of model's table with primary key id exists (a resource's wallet
// transaction, say); a failed read says no, and the next sweep looks again.
func Recorded(ctx context.Context, db bun.IDB, model any, id string) bool {
	ok, err := db.NewSelect().Model(model).Where("id = ?", id).Exists(ctx)
	return err == nil && ok
}
