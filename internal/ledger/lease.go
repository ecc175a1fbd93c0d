package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// LeaseOptions tune Leases. Zero values take the defaults named on each field.
type LeaseOptions struct {
	// Calls is how many calls a lease pays for, at the price of the call that asks for it (default 64).
	Calls int64
	// Share caps a lease at 1/Share of the account's available credits (default 4), so a lease never
	// takes what the account's other calls and processes need.
	Share int64
	// MinCalls is the fewest calls a lease may pay for (default 8). An account whose available credits
	// cannot fund such a lease pays call by call with exact holds, so its last credits are admitted
	// exactly.
	MinCalls int64
	// MaxAge is how long a lease admits calls (default 2 s); it closes once they have finished.
	MaxAge time.Duration
	// Log receives failures to close a lease (the stale-hold sweep closes it later); nil discards them.
	Log *slog.Logger
}

func (o LeaseOptions) withDefaults() LeaseOptions {
	if o.Calls <= 0 {
		o.Calls = 64
	}
	if o.Share <= 1 {
		o.Share = 4
	}
	if o.MinCalls <= 0 {
		o.MinCalls = 8
	}
	if o.MaxAge <= 0 {
		o.MaxAge = 2 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Leases pays for calls whose price is known only afterwards, as Hold and Settle do, but admits the
// calls of a busy account from a lease this process holds on the account's credits: a hold in the
// database for many calls, reserved call by call in memory. A call's charge is one row committed with
// its answer (ChargeQuery); the lease posts its charges to the ledger when it closes, after MaxAge or
// when it cannot fund a call, once its calls have finished.
//
// A lease's credits that no call has reserved count as available in Balance. Another process cannot
// spend them while the lease is open (at most MaxAge and the calls it admitted), which only matters
// near the end of a balance; this process never refuses a call while its own leases hold credits: it
// closes them and asks again first.
type Leases struct {
	ledger *Ledger
	opts   LeaseOptions

	mu       sync.Mutex
	accounts map[string]*leaseAccount
	stopped  bool
	closing  sync.WaitGroup
	// waitingForLeases, when set (by tests), is told that a call waits for leases to close.
	waitingForLeases func()
}

// leaseAccount is one account's leases in this process.
type leaseAccount struct {
	id      string
	current *lease          // the lease admitting calls, if any
	open    map[*lease]bool // leases not yet closed in the database, current included
	asking  chan struct{}   // closed when the lease being asked for is granted or refused
	noLease time.Time       // until then the account pays with exact holds: a lease was refused
}

// lease is one hold in the database paying for many calls.
type lease struct {
	account *leaseAccount
	hold    Hold
	free    int64 // millicredits no call has reserved
	calls   int   // calls reserved and not yet finished
	retired bool  // admits no more calls
	closed  chan struct{}
	timer   *time.Timer
}

// Reservation is what one call has set aside: a part of a lease, or an exact hold of its own.
type Reservation struct {
	price     int64
	reference string
	lease     *lease
	hold      Hold
}

// Leased reports whether the reservation is a part of a lease (rather than an exact hold).
func (r *Reservation) Leased() bool { return r.lease != nil }

// NewLeases returns the leases of this process on l's accounts.
func NewLeases(l *Ledger, opts LeaseOptions) *Leases {
	return &Leases{ledger: l, opts: opts.withDefaults(), accounts: map[string]*leaseAccount{}}
}

// Reserve sets price millicredits aside for one call of the account, or fails with
// insufficient_credits and sets nothing aside. reference names the call (unique per attempt); it is
// the reference of its charge or of its exact hold.
func (s *Leases) Reserve(ctx context.Context, accountID string, price int64, reference string) (*Reservation, error) {
	if price <= 0 {
		return nil, fmt.Errorf("ledger: reservation of %d millicredits: must be positive", price)
	}
	for {
		r, wait, ask := s.fromLease(accountID, price, reference)
		switch {
		case r != nil:
			return r, nil
		case wait != nil:
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case ask:
			if s.ask(ctx, accountID, price) {
				continue
			}
		}
		return s.exact(ctx, accountID, price, reference)
	}
}

// fromLease reserves price from the account's current lease. Otherwise it says what to do: wait for
// the lease being asked for, ask for one (ask), or pay with an exact hold (neither).
func (s *Leases) fromLease(accountID string, price int64, reference string) (r *Reservation, wait chan struct{}, ask bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.account(accountID)
	if l := a.current; l != nil && !l.retired && l.free >= price {
		l.free -= price
		l.calls++
		return &Reservation{price: price, reference: reference, lease: l}, nil, false
	}
	if a.asking != nil {
		return nil, a.asking, false
	}
	if s.stopped || time.Now().Before(a.noLease) {
		return nil, nil, false
	}
	if a.current != nil {
		s.retire(a.current) // it cannot fund this call
	}
	a.asking = make(chan struct{})
	return nil, nil, true
}

func (s *Leases) account(accountID string) *leaseAccount {
	a := s.accounts[accountID]
	if a == nil {
		a = &leaseAccount{id: accountID, open: map[*lease]bool{}}
		s.accounts[accountID] = a
	}
	return a
}

// ask asks the database for a lease sized for price and installs it; false when the account's
// available credits are too few for one (or the database failed: the call then tries an exact hold).
// Either way the account pays with exact holds for MaxAge.
func (s *Leases) ask(ctx context.Context, accountID string, price int64) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second) // others wait for it too
	defer cancel()
	h, granted, err := s.ledger.openLease(ctx, accountID, price, s.opts)
	if err != nil {
		s.opts.Log.Warn("take a credit lease; paying with exact holds", "accountId", accountID, "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.account(accountID)
	close(a.asking)
	a.asking = nil
	if !granted {
		a.noLease = time.Now().Add(s.opts.MaxAge)
		time.AfterFunc(s.opts.MaxAge, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.forget(a)
		})
		return false
	}
	l := &lease{account: a, hold: h, free: h.Millicredits, closed: make(chan struct{})}
	a.current, a.open[l] = l, true
	l.timer = time.AfterFunc(s.opts.MaxAge, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.retire(l)
	})
	if s.stopped {
		s.retire(l)
	}
	return true
}

// forget drops the account's entry once it has no lease open or asked for and no refusal to remember.
// Call it with s.mu held.
func (s *Leases) forget(a *leaseAccount) {
	if len(a.open) == 0 && a.asking == nil && !time.Now().Before(a.noLease) && s.accounts[a.id] == a {
		delete(s.accounts, a.id)
	}
}

// exact pays for the call with a hold of its own. When the account cannot afford it, the leases this
// process holds on the account are closed first and the hold is tried once more, so credits this
// process set aside but did not use never make it refuse a call.
func (s *Leases) exact(ctx context.Context, accountID string, price int64, reference string) (*Reservation, error) {
	h, err := s.ledger.Hold(ctx, accountID, price, reference)
	if svcerr.Is(err, svcerr.InsufficientCredits) && s.closeAll(ctx, accountID) {
		h, err = s.ledger.Hold(ctx, accountID, price, reference)
	}
	if err != nil {
		return nil, err
	}
	return &Reservation{price: price, reference: reference, hold: h}, nil
}

// closeAll retires the account's leases in this process and waits until they have closed (their calls
// finish first); false when there were none.
func (s *Leases) closeAll(ctx context.Context, accountID string) bool {
	s.mu.Lock()
	a := s.accounts[accountID]
	var waits []chan struct{}
	if a != nil {
		for l := range a.open {
			s.retire(l)
			waits = append(waits, l.closed)
		}
	}
	s.mu.Unlock()
	if len(waits) > 0 && s.waitingForLeases != nil {
		s.waitingForLeases()
	}
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return false
		}
	}
	return len(waits) > 0
}

// retire stops l admitting calls and closes it once its calls have finished. Call it with s.mu held.
func (s *Leases) retire(l *lease) {
	if l.account.current == l {
		l.account.current = nil
	}
	if l.retired {
		return
	}
	l.retired = true
	l.timer.Stop()
	if l.calls == 0 {
		s.close(l)
	}
}

// close posts l's charges and frees the rest, in the background. Call it with s.mu held.
func (s *Leases) close(l *lease) {
	s.closing.Add(1)
	go func() {
		defer s.closing.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := s.ledger.closeLease(ctx, l.hold); err != nil {
			s.opts.Log.Error("close a credit lease; the stale-hold sweep will", "hold", l.hold.ID, "err", err)
		}
		s.mu.Lock()
		delete(l.account.open, l)
		s.forget(l.account)
		s.mu.Unlock()
		close(l.closed)
	}()
}

// ChargeQuery is the statement that charges the call what it reported (at most its price), to commit
// together with the answer that reports it, and the millicredits it charges. It is nil when a leased
// call charges nothing. A charge to a lease that has closed fails rather than being lost.
func (s *Leases) ChargeQuery(r *Reservation, reported int64) (*bun.RawQuery, int64) {
	if r.lease == nil {
		return s.ledger.SettleQuery(r.hold, reported)
	}
	charged := capCharge(reported, r.price)
	if charged == 0 {
		return nil, 0
	}
	return s.ledger.db.NewRaw(`SELECT pg_advisory_xact_lock_shared(?0, hashtext(?1));
		INSERT INTO credit_lease_charges (hold_id, reference, millicredits)
		VALUES (?1, ?2, CASE WHEN (SELECT status FROM credit_holds WHERE id = ?1) = 'held' THEN ?3::bigint ELSE 0 END)`,
		leaseLockClass, r.lease.hold.ID, r.reference, charged), charged
}

// Finish ends a reservation once its charge has committed (committed, with what it charged) or did not
// (an exact hold is released). A lease reuses what a committed call did not charge; the credits of a
// call whose commit failed come back when the lease closes (the commit may have happened all the same,
// its answer lost), from the charges it finds.
func (s *Leases) Finish(ctx context.Context, r *Reservation, charged int64, committed bool) error {
	if r.lease == nil {
		if committed {
			return nil
		}
		return s.ledger.Release(context.WithoutCancel(ctx), r.hold)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := r.lease
	l.calls--
	if !l.retired && committed {
		l.free += r.price - charged
	}
	if l.retired && l.calls == 0 {
		s.close(l)
	}
	return nil
}

// Close retires every lease, so that no call is admitted from one any more, and waits until those
// without calls in flight have closed. Call it when the process stops taking requests.
func (s *Leases) Close(ctx context.Context) error {
	s.mu.Lock()
	s.stopped = true
	for _, a := range s.accounts {
		for l := range a.open {
			s.retire(l)
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.closing.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close credit leases: %w", ctx.Err())
	}
}

// leaseLockClass is the first key of the advisory locks that order a lease's charges before its close
// (the second is the hash of the lease's hold id).
const leaseLockClass = 0x7376636c // "svcl"

// leasePrefix starts the reference of a lease's hold.
const leasePrefix = "lease/"

// openLease holds, for a lease, Calls calls' worth at price of the account's available credits, at
// most 1/Share of them; false when that would pay for fewer than MinCalls calls.
func (l *Ledger) openLease(ctx context.Context, accountID string, price int64, o LeaseOptions) (Hold, bool, error) {
	var available int64
	err := l.db.NewRaw("SELECT available FROM credit_balances WHERE account_id = ?", accountID).Scan(ctx, &available)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Hold{}, false, fmt.Errorf("read the balance for a lease: %w", err)
	}
	amount := min(o.Calls*price, available/o.Share)
	if amount < o.MinCalls*price {
		return Hold{}, false, nil
	}
	reference := leasePrefix + ids.New("lease")
	h := Hold{ID: ids.Derive("hold", accountID, reference), AccountID: accountID, Millicredits: amount}
	err = l.holdOne(ctx, h, reference, true)
	if svcerr.Is(err, svcerr.InsufficientCredits) {
		return Hold{}, false, nil // spent meanwhile
	}
	if err != nil {
		return Hold{}, false, err
	}
	return h, true, nil
}

// closeLease posts the charges of a lease and frees the rest, once; it returns the millicredits
// charged. It waits for charges being committed to the lease (the advisory lock), so none is missed,
// and a charge that comes after it fails.
func (l *Ledger) closeLease(ctx context.Context, h Hold) (int64, error) {
	var charged int64
	err := l.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, hashtext(?))", leaseLockClass, h.ID); err != nil {
			return fmt.Errorf("lock the lease: %w", err)
		}
		err := tx.NewRaw("SELECT coalesce(sum(millicredits), 0) FROM credit_lease_charges WHERE hold_id = ?", h.ID).Scan(ctx, &charged)
		if err != nil {
			return fmt.Errorf("sum the lease's charges: %w", err)
		}
		kind, status := KindRelease, HoldReleased
		if charged > 0 {
			kind, status = KindSettle, HoldSettled
		}
		if _, err := closeQuery(tx, h, kind, status, charged).Exec(ctx); err != nil {
			return fmt.Errorf("post the lease's charges: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("close lease %s: %w", h.ID, err)
	}
	return charged, nil
}
