package limit

import (
	"context"
	"errors"
	"time"
)

// lease refills c (locked, empty) from the database. When the database has nothing left, c stays empty and
// is marked exhausted for RecheckExhausted.
func (l *Limiter) lease(ctx context.Context, c *counter, limit int64, now time.Time) error {
	chunk := c.chunk(limit, now, &l.opts)
	used, granted, err := leaseRow(ctx, l.db, c.id, c.window, limit, chunk)
	if err != nil {
		return err
	}
	c.lastLease = now
	c.dbUsed = used
	if granted == 0 {
		c.exhaustedUntil = now.Add(l.opts.RecheckExhausted)
		return nil
	}
	c.local += granted
	c.lastGrant = granted
	return nil
}

// Run sweeps every SweepInterval until ctx ends: it gives back leases idle for IdleReturn, retires the
// counters of ended windows, and prunes rows Retention after their window ended. Run it in a goroutine;
// without it limits stay exact, but idle leases are only given back by Close.
func (l *Limiter) Run(ctx context.Context) {
	t := time.NewTicker(l.opts.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := l.sweep(ctx); err != nil && ctx.Err() == nil {
				l.opts.Log.Warn("limit: sweep failed", "err", err)
			}
		}
	}
}

// sweep runs one pass of Run.
func (l *Limiter) sweep(ctx context.Context) error {
	now := l.opts.Now()
	var errs []error
	for _, c := range l.snapshot() {
		errs = append(errs, l.sweepCounter(ctx, c, now))
	}
	if now.Sub(l.lastPrune) >= l.opts.Retention/4 {
		l.lastPrune = now
		errs = append(errs, pruneRows(ctx, l.db, now.Add(-l.opts.Retention)))
	}
	return errors.Join(errs...)
}

func (l *Limiter) snapshot() []*counter {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]*counter, 0, len(l.counters))
	for _, c := range l.counters {
		out = append(out, c)
	}
	return out
}

// sweepCounter retires c if its window has ended, and gives back its lease if nobody drew from it for
// IdleReturn.
func (l *Limiter) sweepCounter(ctx context.Context, c *counter, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return nil
	}
	if !now.Before(c.window.Add(c.id.unit.window())) {
		l.retire(c)
		return nil
	}
	if c.local == 0 || now.Sub(c.lastUse) < l.opts.IdleReturn || now.Sub(c.lastLease) < l.opts.IdleReturn {
		return nil
	}
	return l.giveBack(ctx, c)
}

// giveBack returns c's (locked) unused lease to the database.
func (l *Limiter) giveBack(ctx context.Context, c *counter) error {
	if err := giveBackRow(ctx, l.db, c.id, c.window, c.local); err != nil {
		return err
	}
	c.dbUsed -= c.local
	c.local = 0
	c.exhaustedUntil = time.Time{}
	return nil
}

// retire removes c (locked) from the map; a request holding it looks it up again.
func (l *Limiter) retire(c *counter) {
	c.dead = true
	l.mu.Lock()
	if l.counters[c.id] == c {
		delete(l.counters, c.id)
	}
	l.mu.Unlock()
}

// Close stops the Limiter and gives every unused lease of a current window back to the database, so the
// other processes can use it. Later calls of Allow and ReserveCredits fail with ErrClosed.
func (l *Limiter) Close(ctx context.Context) error {
	l.closed.Store(true)
	now := l.opts.Now()
	var errs []error
	for _, c := range l.snapshot() {
		errs = append(errs, l.closeCounter(ctx, c, now))
	}
	return errors.Join(errs...)
}

func (l *Limiter) closeCounter(ctx context.Context, c *counter, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	if !c.dead && c.local > 0 && now.Before(c.window.Add(c.id.unit.window())) {
		err = l.giveBack(ctx, c)
	}
	l.retire(c)
	return err
}
