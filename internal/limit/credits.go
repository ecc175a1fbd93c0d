package limit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// errRefused rolls back a reservation that does not fit.
var errRefused = errors.New("limit: reservation refused")

// Reservation is what one ReserveCredits took from the creditsPerDay limits of a request. Keep it if the
// charge happens; give it back with ReleaseCredits if it does not. A nil Reservation holds nothing.
type Reservation struct {
	window time.Time
	ids    []counterID

	mu   sync.Mutex
	left int64 // millicredits not released yet
}

// Millicredits is what the reservation still holds.
func (r *Reservation) Millicredits() int64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.left
}

// ReserveCredits takes millicredits from every creditsPerDay limit of the owners that matches operations
// if, and only if, all of them can afford it; call it before the charge. The Reservation is nil when
// nothing was taken (refused, or no limit applies).
func (l *Limiter) ReserveCredits(ctx context.Context, owners []Owner, operations []string, millicredits int64) (Decision, *Reservation, error) {
	var buf [inline]applied
	apps := collect(buf[:0], owners, operations, unitMillicredits)
	if len(apps) == 0 || millicredits <= 0 {
		return Decision{Allowed: true}, nil, nil
	}
	if l.closed.Load() {
		return Decision{}, nil, ErrClosed
	}
	now := l.opts.Now()
	for _, a := range apps { // more than a whole day's budget never fits
		if millicredits > a.cap {
			return creditRefusal(a, now), nil, nil
		}
	}
	start := unitMillicredits.windowStart(now)
	order := canonicalOrder(apps)
	refused, err := l.reserve(ctx, apps, order, start, millicredits)
	if err != nil {
		return Decision{}, nil, err
	}
	if refused >= 0 {
		return creditRefusal(apps[refused], now), nil, nil
	}
	r := &Reservation{window: start, ids: make([]counterID, len(order)), left: millicredits}
	for k, i := range order { // canonical order: a release locks rows in the order a reservation does
		r.ids[k] = apps[i].id
	}
	return Decision{Allowed: true}, r, nil
}

// reserve adds amount to every applied counter in one transaction, rows in canonical order (order); refused is
// the first applied limit (in apps order) that cannot afford it, or -1.
func (l *Limiter) reserve(ctx context.Context, apps []applied, order []int, start time.Time, amount int64) (refused int, err error) {
	err = l.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		refused = -1
		for _, i := range order {
			ok, err := reserveRow(ctx, tx, apps[i].id, start, apps[i].cap, amount)
			if err != nil {
				return err
			}
			if !ok && (refused < 0 || i < refused) {
				refused = i
			}
		}
		if refused >= 0 {
			return errRefused
		}
		return nil
	})
	if errors.Is(err, errRefused) {
		return refused, nil
	}
	if err != nil {
		return -1, fmt.Errorf("reserve credits: %w", err)
	}
	return -1, nil
}

// canonicalOrder returns the indexes of apps sorted by counter id, the order rows are locked in.
func canonicalOrder(apps []applied) []int {
	order := make([]int, len(apps))
	for i := range order {
		order[i] = i
		for j := i; j > 0 && apps[order[j]].id.compare(apps[order[j-1]].id) < 0; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	return order
}

func creditRefusal(a applied, now time.Time) Decision {
	return Decision{Operation: a.id.selector, RetryAfter: unitMillicredits.reset(now)}
}

// ReleaseCredits gives back up to millicredits of r, when its charge did not happen or charged less. What
// was already released is never given back twice.
func (l *Limiter) ReleaseCredits(ctx context.Context, r *Reservation, millicredits int64) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	amount := min(millicredits, r.left)
	if amount <= 0 {
		return nil
	}
	err := l.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, id := range r.ids {
			if err := giveBackRow(ctx, tx, id, r.window, amount); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("release credits: %w", err)
	}
	r.left -= amount
	return nil
}
