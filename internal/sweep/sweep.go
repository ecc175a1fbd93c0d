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

// Stale lists the rows of T's table whose status is one of statuses, recorded more than settle and
// less than settle+Window ago, oldest first, at most limit, and calls start on each in turn; it answers
// how many it started. start answers false for a row it leaves (one whose request never finished
// recording it: a retry of the request does). what names the rows in errors.
func Stale[T any](ctx context.Context, db bun.IDB, what string, statuses []string, settle time.Duration, limit int,
	start func(context.Context, *T) (bool, error)) (int, error) {
	var stale []T
	before := time.Now().Add(-settle)
	err := db.NewSelect().Model(&stale).Where("status IN (?) AND created_at < ? AND created_at > ?", bun.List(statuses), before, before.Add(-Window)).
		OrderExpr("created_at").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return 0, fmt.Errorf("list stale %s: %w", what, err)
	}
	n := 0
	for i := range stale {
		started, err := start(ctx, &stale[i])
		if err != nil {
			return n, fmt.Errorf("start a stale %s: %w", what, err)
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
