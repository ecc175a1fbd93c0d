// Package limit enforces per-key limits (requestsPerMinute and creditsPerDay) across every API process.
//
// # Semantics
//
// A request is made by one key. The limits of that key AND of every one of its ancestors apply to it, and
// each limit counts the requests (or credits) of the key that owns it together with all of that key's
// descendants: a child key can never exceed its parent, not even in aggregate with its siblings.
//
// A limit's selector matches a request when it equals one of the request's operation ids. The caller
// passes those ids (see Operations): the route's limit operation (runs.create), and for runs and
// invocations the qualified forms runs.create.<serviceId>, runs.create.<serviceId>.<operationId>,
// services.invoke.<serviceId> and services.invoke.<serviceId>.<operationId>. The selector * matches every
// request; callers need not list it.
//
//   - requestsPerMinute N: at most N requests in each fixed UTC minute (windows aligned to the minute).
//   - creditsPerDay N: at most N credits, counted as N*1000 millicredits, charged in each UTC day.
//
// A request that matches several limits is admitted only if every one of them has budget left; a refused
// request consumes nothing from any of them. The refusal names the exact selector that ran out (nearest
// owner first, then in the order the owner lists its limits) and how long until its window resets.
//
// Windows follow the clock of the process that serves the request (Options.Now); processes are expected
// to keep their clocks in sync. A skewed clock only moves a request into a neighbouring window; it never
// lets a window admit more than its limit. Within a process a counter never moves back to an earlier
// window (a request that read the clock just before the minute turned counts in the new minute).
//
// # Design: leases
//
// Counters live in PostgreSQL (table limit_counters, one row per owner, selector, unit and window), so
// every API process sees the same budget; a process's memory only ever holds budget the database has
// already handed to it. For requestsPerMinute, a database round trip per request would be too slow, so
// each Limiter LEASES part of a window's budget with one atomic upsert
//
//	used = LEAST(used + chunk, limit) WHERE used < limit
//
// and serves requests from that lease in memory. The row's used counts what was handed out, so the sum of
// every process's admissions can never exceed the limit (no over-admission, ever, whatever the timing).
// The chunk adapts: it doubles while the counter's leases run out quickly (under a second) and halves
// otherwise, and it is never more than 1/Options.LeaseDivisor of the budget not yet handed out, so it
// shrinks to 1 as the window nears its limit; demanding processes therefore drain the budget exactly.
// A process refuses only when its own lease is empty AND the database has nothing left; it then trusts
// that answer for Options.RecheckExhausted before asking again, so a key hammering a spent limit costs no
// database work per request.
//
// Unused leases go back to the database (used = used - rest) when they sit idle for Options.IdleReturn
// (Run) and on Close, so a process that stops seeing a key's traffic does not strand that key's budget.
// At a window's end a lease is simply dropped: windows are independent rows.
//
// Each counter has its own mutex. A request locks all the counters it needs in one canonical order (no
// deadlock), checks all of them, and only then takes one token from each, so it is all or nothing. The
// map of counters is read under a read lock; a key without matching limits touches neither the map nor the
// database and allocates nothing.
//
// creditsPerDay is charged far less often than requests are made, so ReserveCredits goes to the database
// every time: one transaction adds the amount to every matching counter (rows locked in canonical order)
// and rolls back if any would exceed its limit. ReleaseCredits gives a reservation back when its charge
// did not happen.
//
// # Failure
//
// If a process dies without Close (SIGKILL), the budget it had leased but not used stays counted as used
// until the window ends: at most one lease per counter, bounded by the chunk rule above, is over-refused
// for the rest of that minute. Reserved credits of a charge that never happened stay counted until the
// end of that UTC day. Over-admission cannot happen. Allow and ReserveCredits return an error when the
// database fails; nothing is consumed then, and the caller decides whether to fail open or closed.
package limit

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/schema"
)

// ErrClosed is returned by a Limiter after Close.
var ErrClosed = errors.New("limit: limiter is closed")

// Owner is a key whose limits apply to a request: the calling key, then its ancestors, nearest first.
type Owner struct {
	KeyID  string
	Limits []schema.Limit
}

// Policy describes one requestsPerMinute limit that applied to a request, for the RateLimit headers.
type Policy struct {
	// Operation is the limit's selector.
	Operation string
	// Limit is the limit's quota per window.
	Limit int64
	// Remaining is this process's best estimate of the quota left in the window after this request.
	Remaining int64
	// Window is the length of the limit's window.
	Window time.Duration
	// Reset is the time until the current window ends.
	Reset time.Duration
}

// Decision is the outcome of one Allow or ReserveCredits.
type Decision struct {
	Allowed bool
	// Operation is, on refusal, the selector of the limit that ran out (X-Svc-Limit-Operation).
	Operation string
	// RetryAfter is, on refusal, the time until that limit's window resets.
	RetryAfter time.Duration
	// Policies lists every requestsPerMinute limit that applied (Allow only), for RateLimit headers.
	Policies []Policy
}

// Options tune a Limiter. Zero values take the defaults named on each field.
type Options struct {
	// Now is the clock (default time.Now). Windows are aligned to it in UTC.
	Now func() time.Time
	// MaxLease caps one lease, in requests (default 4096).
	MaxLease int64
	// LeaseDivisor bounds a lease to 1/LeaseDivisor of the budget the database has not handed out yet
	// (default 8).
	LeaseDivisor int64
	// RecheckExhausted is how long a process trusts "the database has no budget left" for a counter
	// before asking again (default 1s).
	RecheckExhausted time.Duration
	// IdleReturn: Run gives back a lease nobody drew from for this long (default 2s).
	IdleReturn time.Duration
	// SweepInterval is how often Run sweeps (default 1s).
	SweepInterval time.Duration
	// Retention is how long after its window ended a counter row is kept before Run prunes it
	// (default 1h).
	Retention time.Duration
	// Log receives sweep failures (default slog.Default()).
	Log *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	o.MaxLease = orDefault(o.MaxLease, 4096)
	o.LeaseDivisor = orDefault(o.LeaseDivisor, 8)
	o.RecheckExhausted = orDefault(o.RecheckExhausted, time.Second)
	o.IdleReturn = orDefault(o.IdleReturn, 2*time.Second)
	o.SweepInterval = orDefault(o.SweepInterval, time.Second)
	o.Retention = orDefault(o.Retention, time.Hour)
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return o
}

func orDefault[T int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Limiter enforces limits for one API process. It is safe for concurrent use. Run its sweeper with Run
// and give its leases back with Close at shutdown.
type Limiter struct {
	db     bun.IDB
	opts   Options
	closed atomic.Bool

	mu       sync.RWMutex
	counters map[counterID]*counter

	lastPrune time.Time // touched by Run's sweeps only
}

// New returns a Limiter whose counters live in db.
func New(db bun.IDB, opts Options) *Limiter {
	return &Limiter{db: db, opts: opts.withDefaults(), counters: map[counterID]*counter{}}
}

// Operations returns the operation ids a request matches besides *: route (its limit operation), and
// for runs.create and services.invoke with a serviceID, the per-service and per-operation forms.
func Operations(route, serviceID, operationID string) []string {
	if serviceID == "" || (route != client.OpRunsCreate && route != client.OpServicesInvoke) {
		return []string{route}
	}
	svc := route + "." + serviceID
	if operationID == "" {
		return []string{route, svc}
	}
	return []string{route, svc, svc + "." + operationID}
}

// Allow decides one request made with the owners' keys (calling key first) that matches operations, and
// takes one request from every requestsPerMinute limit that applies if, and only if, all of them have
// one left.
func (l *Limiter) Allow(ctx context.Context, owners []Owner, operations []string) (Decision, error) {
	var buf [inline]applied
	apps := collect(buf[:0], owners, operations, unitRequests)
	if len(apps) == 0 {
		return Decision{Allowed: true}, nil
	}
	if l.closed.Load() {
		return Decision{}, ErrClosed
	}
	now := l.opts.Now()
	for {
		d, retry, err := l.allowOnce(ctx, apps, now)
		if !retry {
			return d, err
		}
		if l.closed.Load() { // Close retired the counter: do not lease again
			return Decision{}, ErrClosed
		}
	}
}

// allowOnce runs Allow on the counters as they are now; retry reports that Run retired one of them
// meanwhile and the caller must look them up again.
func (l *Limiter) allowOnce(ctx context.Context, apps []applied, now time.Time) (d Decision, retry bool, err error) {
	var cbuf [inline]*counter
	var rbuf [inline]int64
	cs := l.lookup(cbuf[:0], apps)
	rem := rbuf[:0]
	if len(apps) > inline {
		rem = make([]int64, 0, len(apps))
	}
	rem = rem[:len(apps)]
	refused, retry, err := l.take(ctx, apps, cs, rem, now)
	if retry || err != nil {
		return Decision{}, retry, err
	}
	d = Decision{Allowed: refused < 0, Policies: policies(apps, rem, now)}
	if refused >= 0 {
		d.Operation, d.RetryAfter = apps[refused].id.selector, unitRequests.reset(now)
	}
	return d, false, nil
}

// take locks the counters cs (of apps) in canonical order and takes one request from each if every one
// has a request left; otherwise refused is the index of the first that has none, and nothing is taken.
// rem receives each counter's remaining budget.
func (l *Limiter) take(ctx context.Context, apps []applied, cs []*counter, rem []int64, now time.Time) (refused int, retry bool, err error) {
	var sbuf [inline]*counter
	locked := append(sbuf[:0], cs...)
	sortCounters(locked)
	lockAll(locked)
	defer unlockAll(locked)
	defer remaining(rem, apps, cs) // runs before the unlock
	for _, c := range locked {
		if c.dead {
			return -1, true, nil
		}
	}
	start := unitRequests.windowStart(now)
	for _, c := range cs {
		c.roll(start)
	}
	for i, c := range cs { // a budget known to be spent refuses without the database
		if c.local == 0 && now.Before(c.exhaustedUntil) {
			return i, false, nil
		}
	}
	for i, c := range cs {
		if c.local > 0 {
			continue
		}
		if err := l.lease(ctx, c, apps[i].cap, now); err != nil {
			return -1, false, err
		}
		if c.local == 0 {
			return i, false, nil
		}
	}
	for _, c := range cs {
		c.local--
		c.lastUse = now
	}
	return -1, false, nil
}

func remaining(dst []int64, apps []applied, cs []*counter) {
	for i, c := range cs {
		dst[i] = c.remaining(apps[i].cap)
	}
}

// lookup appends the counter of every applied limit, creating the missing ones.
func (l *Limiter) lookup(dst []*counter, apps []applied) []*counter {
	missing := false
	l.mu.RLock()
	for _, a := range apps {
		c := l.counters[a.id]
		missing = missing || c == nil
		dst = append(dst, c)
	}
	l.mu.RUnlock()
	if !missing {
		return dst
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, a := range apps {
		if dst[i] != nil {
			continue
		}
		c := l.counters[a.id]
		if c == nil {
			c = &counter{id: a.id}
			l.counters[a.id] = c
		}
		dst[i] = c
	}
	return dst
}

func policies(apps []applied, rem []int64, now time.Time) []Policy {
	out := make([]Policy, len(apps))
	reset := unitRequests.reset(now)
	for i, a := range apps {
		out[i] = Policy{
			Operation: a.id.selector, Limit: a.cap, Remaining: rem[i], Window: unitRequests.window(), Reset: reset,
		}
	}
	return out
}
