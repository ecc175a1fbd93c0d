package limit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// leaseQuery hands out up to ?5 requests of a counter row without ever passing its cap ?6, creating the
// row if needed. It returns no row when the row is at its cap.
const leaseQuery = `INSERT INTO limit_counters AS c
	(key_id, selector, unit, window_start, window_end, used, granted)
VALUES (?0, ?1, ?2, ?3, ?4, LEAST(?5::bigint, ?6::bigint), LEAST(?5::bigint, ?6::bigint))
ON CONFLICT (key_id, selector, unit, window_start) DO UPDATE
SET used = LEAST(c.used + ?5::bigint, ?6::bigint), granted = LEAST(c.used + ?5::bigint, ?6::bigint) - c.used
WHERE c.used < ?6::bigint
RETURNING c.used, c.granted`

// reserveQuery adds ?5 to a counter row if that keeps it within its cap ?6 (?5 <= ?6 is checked by the
// caller, so a new row always fits). It returns no row when it does not fit.
const reserveQuery = `INSERT INTO limit_counters AS c
	(key_id, selector, unit, window_start, window_end, used)
VALUES (?0, ?1, ?2, ?3, ?4, ?5::bigint)
ON CONFLICT (key_id, selector, unit, window_start) DO UPDATE
SET used = c.used + ?5::bigint
WHERE c.used <= ?6::bigint - ?5::bigint
RETURNING c.used`

// giveBackQuery returns ?4 unused units to a counter row.
const giveBackQuery = `UPDATE limit_counters SET used = GREATEST(used - ?4::bigint, 0)
WHERE key_id = ?0 AND selector = ?1 AND unit = ?2 AND window_start = ?3`

// leaseRow asks the database for up to chunk units of the counter's current window; granted is 0 when the
// window is at its cap, and used is the row's new total.
func leaseRow(ctx context.Context, db bun.IDB, id counterID, start time.Time, limit, chunk int64) (used, granted int64, err error) {
	end := start.Add(id.unit.window())
	err = db.NewRaw(leaseQuery, id.owner, id.selector, id.unit.String(), start, end, chunk, limit).
		Scan(ctx, &used, &granted)
	if errors.Is(err, sql.ErrNoRows) {
		return limit, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("lease %s %q of key %s: %w", id.unit, id.selector, id.owner, err)
	}
	return used, granted, nil
}

// reserveRow adds amount to the counter's row of the window starting at start; ok is false when that
// would pass limit.
func reserveRow(ctx context.Context, db bun.IDB, id counterID, start time.Time, limit, amount int64) (ok bool, err error) {
	end := start.Add(id.unit.window())
	var used int64
	err = db.NewRaw(reserveQuery, id.owner, id.selector, id.unit.String(), start, end, amount, limit).
		Scan(ctx, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reserve %s %q of key %s: %w", id.unit, id.selector, id.owner, err)
	}
	return true, nil
}

// giveBackRow returns amount units to the counter's row of the window starting at start.
func giveBackRow(ctx context.Context, db bun.IDB, id counterID, start time.Time, amount int64) error {
	_, err := db.NewRaw(giveBackQuery, id.owner, id.selector, id.unit.String(), start, amount).Exec(ctx)
	if err != nil {
		return fmt.Errorf("give back %d %s of %q of key %s: %w", amount, id.unit, id.selector, id.owner, err)
	}
	return nil
}

// pruneRows deletes the counter rows whose window ended before before.
func pruneRows(ctx context.Context, db bun.IDB, before time.Time) error {
	if _, err := db.NewRaw("DELETE FROM limit_counters WHERE window_end < ?", before).Exec(ctx); err != nil {
		return fmt.Errorf("prune limit counters: %w", err)
	}
	return nil
}
