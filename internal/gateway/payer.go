package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/ledger"
)

// Payer pays for calls of external services' operations. The operation's price is set aside before the
// call, so an unaffordable call never reaches the service; what the service reports charging is charged
// after it (at most the price), together with the answer that reports it; the rest is given back.
//
// A direct invocation pays per attempt: Reserve sets the price aside (from this process's lease on a
// busy account's credits, or as an exact hold: see ledger.Leases), then Charge or Release ends the
// payment. A retried request, after a failed attempt gave its credits back, pays again; credits an
// attempt that died left reserved are freed by the ledger's stale-hold sweep (ledger.ReleaseStale).
//
// A run pays once for all its attempts: HoldRun holds the price under the run's reference, which every
// attempt finds; the charge (ChargeQuery) commits with the run's answer, and ReleaseRun frees what a run
// that did not succeed still holds.
type Payer struct {
	ledger *ledger.Ledger
	leases *ledger.Leases
	log    *slog.Logger
}

// NewPayer returns a Payer on l. leases tune the leases direct invocations are paid from; log (nil
// discards) receives failures to give reserved credits back, which the stale-hold sweep frees later.
func NewPayer(l *ledger.Ledger, leases ledger.LeaseOptions, log *slog.Logger) *Payer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Payer{ledger: l, leases: ledger.NewLeases(l, leases), log: log}
}

// Payment is the price set aside for one call: a direct invocation's attempt (Reserve) or a run's hold
// (HoldRun). The payment of a free operation sets nothing aside.
type Payment struct {
	reference   string
	reservation *ledger.Reservation
	hold        *ledger.Hold
}

// Free reports whether the payment set nothing aside: the operation has no price.
func (p *Payment) Free() bool { return p.reservation == nil && p.hold == nil }

// HoldID is the id of a run's hold, which its charge settles; "" for other payments.
func (p *Payment) HoldID() string {
	if p.hold == nil {
		return ""
	}
	return p.hold.ID
}

// Reserve sets price millicredits of the account aside for one attempt of the direct invocation
// invocationID, or fails (insufficient_credits when the account cannot afford it) and sets nothing
// aside. Every call of Reserve is an attempt of its own. The payment ends with Charge or Release.
func (p *Payer) Reserve(ctx context.Context, accountID string, price int64, invocationID string) (*Payment, error) {
	if price == 0 {
		return &Payment{}, nil
	}
	reference := ledger.InvokeReference(invocationID, ids.New("att"))
	r, err := p.leases.Reserve(ctx, accountID, price, reference)
	if err != nil {
		return nil, err
	}
	return &Payment{reference: reference, reservation: r}, nil
}

// Charge charges the call what the service reported (nothing when it reported nothing), at most the
// price set aside, and returns the millicredits charged. The charge commits through commit, with the
// answer that reports it; a reservation ends once it has committed or failed to. A free call is charged
// nothing and commits nothing.
func (p *Payer) Charge(ctx context.Context, pay *Payment, reported int64, commit idempotency.Commit) (int64, error) {
	if pay.Free() {
		return 0, nil
	}
	q, charged := p.ChargeQuery(pay, reported)
	finish := func(ctx context.Context, committed bool) { p.finish(ctx, pay, charged, committed) }
	if err := commit(context.WithoutCancel(ctx), q, finish); err != nil {
		return 0, fmt.Errorf("charge the invocation: %w", err)
	}
	return charged, nil
}

// ChargeQuery is the statement that charges the call what the service reported, at most the price set
// aside, to commit together with the answer that reports it, and the millicredits it charges. It is nil
// when nothing is to be committed (a free call; a leased call charged nothing). A run's charge must
// commit only while its hold is held (see run.Store.RecordInvocation); a direct invocation's is
// committed by Charge, which also ends the reservation.
func (p *Payer) ChargeQuery(pay *Payment, reported int64) (*bun.RawQuery, int64) {
	switch {
	case pay.reservation != nil:
		return p.leases.ChargeQuery(pay.reservation, reported)
	case pay.hold != nil:
		return p.ledger.SettleQuery(*pay.hold, reported)
	}
	return nil, 0
}

// Release gives back what an attempt of a direct invocation set aside, when its call failed. A run's
// hold is kept for the run's next attempt: ReleaseRun frees it.
func (p *Payer) Release(ctx context.Context, pay *Payment) {
	p.finish(ctx, pay, 0, false)
}

// finish ends a reservation once its charge has committed, or gives it back when it did not.
func (p *Payer) finish(ctx context.Context, pay *Payment, charged int64, committed bool) {
	if pay.reservation == nil {
		return
	}
	if err := p.leases.Finish(context.WithoutCancel(ctx), pay.reservation, charged, committed); err != nil {
		p.log.Error("give back reserved credits", "reference", pay.reference, "err", err)
	}
}

// Errors of HoldRun: an earlier attempt of the run closed its hold.
var (
	// ErrRunSettled: an earlier attempt was charged, with its answer recorded or refused by the service.
	ErrRunSettled = errors.New("an earlier attempt of the run settled its hold")
	// ErrRunReleased: the run's held credits were released (it ended without succeeding).
	ErrRunReleased = errors.New("the run's held credits were released")
)

// HoldRun sets price millicredits of the account aside for the run runID with a hold every attempt of
// the run shares, so the run is charged at most once: an attempt finds the hold an earlier one made. It
// fails with ErrRunSettled or ErrRunReleased when an earlier attempt's hold is closed, and with
// insufficient_credits when the account cannot afford a new one.
func (p *Payer) HoldRun(ctx context.Context, accountID, runID string, price int64) (*Payment, error) {
	if price == 0 {
		return &Payment{}, nil
	}
	reference := ledger.RunReference(runID)
	h, status, err := p.ledger.FindHold(ctx, accountID, reference)
	if err != nil {
		return nil, err
	}
	switch status {
	case ledger.HoldSettled:
		return nil, ErrRunSettled
	case ledger.HoldReleased:
		return nil, ErrRunReleased
	case ledger.HoldHeld:
		return &Payment{reference: reference, hold: &h}, nil
	}
	if h, err = p.ledger.Hold(ctx, accountID, price, reference); err != nil {
		return nil, err
	}
	return &Payment{reference: reference, hold: &h}, nil
}

// ReleaseRun frees the credits the run runID still holds (its call did not succeed); a settled or
// released hold, or none, is left as it is.
func (p *Payer) ReleaseRun(ctx context.Context, accountID, runID string) error {
	h, status, err := p.ledger.FindHold(ctx, accountID, ledger.RunReference(runID))
	if err != nil || status != ledger.HoldHeld {
		return err
	}
	return p.ledger.Release(ctx, h)
}

// Close stops paying from leases and waits until the leases without calls in flight have closed. Call
// it when the process stops taking requests.
func (p *Payer) Close(ctx context.Context) error {
	return p.leases.Close(ctx)
}
