// Package ledger keeps account credits as a double-entry ledger in integer millicredits (1 credit =
// 1000). Every movement is a transaction whose postings sum to zero across books; an account's
// available credits are kept in credit_balances, whose CHECK constraint makes a negative balance
// impossible, and its held credits are the sum of its open holds. Every transaction carries a reference
// unique per account and kind, so a retried grant, hold, charge or top-up posts once.
//
// A call whose price is known only afterwards (a managed service reports what it charged) is paid in
// two steps: Hold reserves the most it may cost, refusing with insufficient_credits before the call is
// made; Settle charges what it did cost and frees the rest; Release frees all of it. Leases do the same
// for the many calls of a busy account from one hold (see Leases).
package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Books a posting moves credits between. The account books belong to the transaction's account.
const (
	BookAvailable = "account:available"
	BookHeld      = "account:held"
	BookGrants    = "platform:grants"
	BookRevenue   = "platform:revenue"
	BookPurchases = "platform:purchases"
)

// Transaction kinds.
const (
	KindGrant   = "grant"
	KindHold    = "hold"
	KindSettle  = "settle"
	KindRelease = "release"
	KindCharge  = "charge"
	KindRefund  = "refund"
	KindTopUp   = "top_up"
)

// Ledger posts transactions.
type Ledger struct {
	db    bun.IDB
	holds batcher
}

// New returns a Ledger on db.
func New(db bun.IDB) *Ledger { return &Ledger{db: db} }

// Balance is an account's credits.
type Balance struct {
	Available int64     `bun:"available"`
	Held      int64     `bun:"held"`
	UpdatedAt time.Time `bun:"updated_at"`
}

// BalanceToWire converts a balance to the API's shape.
func BalanceToWire(b Balance) client.Balance {
	return client.Balance{Credits: catalog.Credits(b.Available), HeldCredits: catalog.Credits(b.Held), UpdatedAt: b.UpdatedAt.UTC()}
}

// Balance returns the account's credits; an account that never had any has zero. The credits of this
// or another process's leases that no call has charged count as available (they are the account's to
// spend); held are the exact holds of calls and runs in flight.
func (l *Ledger) Balance(ctx context.Context, accountID string) (Balance, error) {
	var b Balance
	err := l.db.NewRaw(`SELECT b.available + coalesce(h.leased, 0) - coalesce(c.charged, 0) AS available,
			coalesce(h.held, 0) AS held, b.updated_at
		FROM credit_balances b,
		LATERAL (SELECT sum(millicredits) FILTER (WHERE NOT lease) AS held, sum(millicredits) FILTER (WHERE lease) AS leased
			FROM credit_holds WHERE account_id = b.account_id AND status = 'held') h,
		LATERAL (SELECT sum(lc.millicredits) AS charged FROM credit_holds lh JOIN credit_lease_charges lc ON lc.hold_id = lh.id
			WHERE lh.account_id = b.account_id AND lh.status = 'held' AND lh.lease) c
		WHERE b.account_id = ?`, accountID).Scan(ctx, &b)
	if errors.Is(err, sql.ErrNoRows) {
		return Balance{UpdatedAt: time.Now().UTC()}, nil
	}
	if err != nil {
		return Balance{}, fmt.Errorf("read balance: %w", err)
	}
	return b, nil
}

// Grant adds credits from the platform's grants book. db may be a transaction the caller is in.
func (l *Ledger) Grant(ctx context.Context, db bun.IDB, accountID string, millicredits int64, reference string) error {
	return l.credit(ctx, db, KindGrant, BookGrants, accountID, millicredits, reference)
}

// TopUp adds purchased credits (an x402 payment, say) from the platform's purchases book. db may be a
// transaction the caller is in.
func (l *Ledger) TopUp(ctx context.Context, db bun.IDB, accountID string, millicredits int64, reference string) error {
	return l.credit(ctx, db, KindTopUp, BookPurchases, accountID, millicredits, reference)
}

func (l *Ledger) credit(ctx context.Context, db bun.IDB, kind, from, accountID string, millicredits int64, reference string) error {
	if millicredits <= 0 {
		return fmt.Errorf("ledger: %s of %d millicredits: must be positive", kind, millicredits)
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		posted, err := post(ctx, tx, accountID, kind, reference, map[string]int64{BookAvailable: millicredits, from: -millicredits})
		if err != nil || !posted {
			return err
		}
		_, err = tx.NewRaw(`INSERT INTO credit_balances (account_id, available) VALUES (?, ?)
			ON CONFLICT (account_id) DO UPDATE SET available = credit_balances.available + EXCLUDED.available, updated_at = now()`,
			accountID, millicredits).Exec(ctx)
		if err != nil {
			return fmt.Errorf("credit balance: %w", err)
		}
		return nil
	})
}

// Hold is credits reserved for one call.
type Hold struct {
	ID           string `bun:"id"`
	AccountID    string `bun:"account_id"`
	Millicredits int64  `bun:"millicredits"`
}

// Hold reserves millicredits of the account's available credits, or fails with insufficient_credits and
// changes nothing. The same reference returns the same hold. It is one statement, so the account's
// balance row stays locked for a single round trip.
//
// Concurrent holds of one account are combined into one statement (see batcher); the answer of each is
// the one it would have got alone.
func (l *Ledger) Hold(ctx context.Context, accountID string, millicredits int64, reference string) (Hold, error) {
	h := Hold{ID: ids.Derive("hold", accountID, reference), AccountID: accountID, Millicredits: millicredits}
	if millicredits <= 0 {
		return h, fmt.Errorf("ledger: hold of %d millicredits: must be positive", millicredits)
	}
	err := l.holds.hold(h, reference, l.holdBatch, func(r *holdRequest) error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second) // may run for another caller
		defer cancel()
		return l.holdOne(ctx, r.hold, r.reference, false)
	})
	return h, err
}

// holdOne posts one hold (or, with lease, a lease's hold) in one statement.
func (l *Ledger) holdOne(ctx context.Context, h Hold, reference string, lease bool) error {
	accountID, millicredits := h.AccountID, h.Millicredits
	txID := ids.Derive("ltx", accountID, KindHold, reference)
	_, err := l.db.NewRaw(`WITH t AS (
			INSERT INTO ledger_transactions (id, account_id, kind, reference) VALUES (?0, ?1, 'hold', ?2)
			ON CONFLICT (account_id, kind, reference) DO NOTHING RETURNING id),
		p AS (INSERT INTO ledger_postings (transaction_id, book, millicredits)
			SELECT t.id, v.book, v.amount FROM t, (VALUES (?3, -?4::bigint), (?5, ?4::bigint)) AS v (book, amount)),
		h AS (INSERT INTO credit_holds (id, account_id, millicredits, reference, lease) SELECT ?6, ?1, ?4, ?2, ?7 FROM t)
		UPDATE credit_balances SET available = available - ?4, updated_at = now()
		WHERE account_id = ?1 AND EXISTS (SELECT 1 FROM t)`,
		txID, accountID, reference, BookAvailable, millicredits, BookHeld, h.ID, lease).Exec(ctx)
	if isCheckViolation(err) {
		return insufficient(millicredits)
	}
	if err != nil {
		return fmt.Errorf("hold credits: %w", err)
	}
	return nil
}

// InvokeReference is the hold reference of one attempt of an invocation: the invocation's id (from its
// idempotency record) and the attempt's, so every attempt holds afresh.
func InvokeReference(invocationID, attemptID string) string {
	return invokePrefix + invocationID + "/" + attemptID
}

// RunReference is the hold reference of a run: the same for every attempt of the run, so its attempts
// share one hold and the run is charged at most once.
func RunReference(runID string) string { return runPrefix + runID }

// Hold reference prefixes: direct invocations, and runs (whose workflow releases what they hold).
const (
	invokePrefix = "invoke/"
	runPrefix    = "run/"
)

// ReleaseStale releases holds still open after their call must have ended: invocation holds and
// leases older than invokeAge (longer than any call may last, plus a lease's MaxAge) and run holds
// older than runAge (longer than a run's attempts may last), left by a process that died mid-call. A
// lease's charges are posted as it closes. It returns how many holds it closed.
func (l *Ledger) ReleaseStale(ctx context.Context, invokeAge, runAge time.Duration) (int, error) {
	var holds []struct {
		Hold
		Lease bool `bun:"lease"`
	}
	err := l.db.NewRaw(`SELECT id, account_id, millicredits, lease FROM credit_holds
		WHERE status = 'held' AND (
			((lease OR reference LIKE ?) AND created_at < now() - make_interval(secs => ?)) OR
			(reference LIKE ? AND created_at < now() - make_interval(secs => ?)))
		ORDER BY created_at LIMIT 500`,
		invokePrefix+"%", invokeAge.Seconds(), runPrefix+"%", runAge.Seconds()).Scan(ctx, &holds)
	if err != nil {
		return 0, fmt.Errorf("find stale holds: %w", err)
	}
	for _, h := range holds {
		if h.Lease {
			_, err = l.closeLease(ctx, h.Hold)
		} else {
			err = l.Release(ctx, h.Hold)
		}
		if err != nil {
			return 0, err
		}
	}
	return len(holds), nil
}

// Hold statuses.
const (
	HoldHeld     = "held"
	HoldSettled  = "settled"
	HoldReleased = "released"
)

// FindHold returns the hold made with the reference and its status; the status is "" when there is none.
func (l *Ledger) FindHold(ctx context.Context, accountID, reference string) (Hold, string, error) {
	h := Hold{ID: ids.Derive("hold", accountID, reference), AccountID: accountID}
	var status string
	err := l.db.NewRaw("SELECT millicredits, status FROM credit_holds WHERE id = ?", h.ID).Scan(ctx, &h.Millicredits, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return h, "", nil
	}
	if err != nil {
		return h, "", fmt.Errorf("find hold: %w", err)
	}
	return h, status, nil
}

// HoldCharged returns what a settled hold charged (0 for a hold still open or released).
func (l *Ledger) HoldCharged(ctx context.Context, h Hold) (int64, error) {
	var charged sql.NullInt64
	err := l.db.NewRaw("SELECT charged FROM credit_holds WHERE id = ? AND status = 'settled'", h.ID).Scan(ctx, &charged)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read a hold's charge: %w", err)
	}
	return charged.Int64, nil
}

// Settle charges what the call cost (at most the hold; more is capped) and frees the rest. Settling a
// closed hold changes nothing. It returns the millicredits charged.
func (l *Ledger) Settle(ctx context.Context, h Hold, charged int64) (int64, error) {
	q, charged := l.SettleQuery(h, charged)
	if _, err := q.Exec(ctx); err != nil {
		return 0, fmt.Errorf("settle hold: %w", err)
	}
	return charged, nil
}

// SettleQuery is Settle as one statement not yet run, for a caller that commits it together with
// something else (the idempotent answer that reports the charge, say), and the millicredits it charges.
func (l *Ledger) SettleQuery(h Hold, charged int64) (*bun.RawQuery, int64) {
	charged = capCharge(charged, h.Millicredits)
	return closeQuery(l.db, h, KindSettle, HoldSettled, charged), charged
}

// capCharge is what a call that reported a charge pays: the charge, at most the price set aside for it.
func capCharge(reported, price int64) int64 { return max(0, min(reported, price)) }

// Release frees a hold whose call did not happen or failed without a charge.
func (l *Ledger) Release(ctx context.Context, h Hold) error {
	if _, err := closeQuery(l.db, h, KindRelease, HoldReleased, 0).Exec(ctx); err != nil {
		return fmt.Errorf("release hold: %w", err)
	}
	return nil
}

// closeQuery ends a hold in one statement: the hold is marked, the transaction and its postings (held
// out; revenue for the charge; the rest back to available) are recorded, and the available balance gets
// the rest back. A hold charged in full leaves the balance row alone (no lock on it). db may be a
// transaction.
func closeQuery(db bun.IDB, h Hold, kind, status string, charged int64) *bun.RawQuery {
	txID := ids.Derive("ltx", h.AccountID, kind, h.ID)
	return db.NewRaw(`WITH c AS (
			UPDATE credit_holds SET status = ?0, charged = ?1, closed_at = now() WHERE id = ?2 AND status = 'held' RETURNING id),
		t AS (INSERT INTO ledger_transactions (id, account_id, kind, reference)
			SELECT ?3, ?4, ?5, ?2 FROM c ON CONFLICT (account_id, kind, reference) DO NOTHING RETURNING id),
		p AS (INSERT INTO ledger_postings (transaction_id, book, millicredits)
			SELECT t.id, v.book, v.amount FROM t, (VALUES (?6, -?7::bigint), (?8, ?1::bigint), (?9, ?7::bigint - ?1::bigint)) AS v (book, amount)
			WHERE v.amount <> 0)
		UPDATE credit_balances SET available = available + (?7::bigint - ?1::bigint), updated_at = now()
		WHERE ?7::bigint <> ?1::bigint AND account_id = ?4 AND EXISTS (SELECT 1 FROM t)`,
		status, charged, h.ID, txID, h.AccountID, kind, BookHeld, h.Millicredits, BookRevenue, BookAvailable)
}

// isCheckViolation reports a CHECK constraint failure (SQLSTATE 23514): a balance would go negative.
func isCheckViolation(err error) bool {
	var pgErr pgdriver.Error
	return errors.As(err, &pgErr) && pgErr.Field('C') == "23514"
}

// Charge debits a known price at once, or fails with insufficient_credits.
func (l *Ledger) Charge(ctx context.Context, accountID string, millicredits int64, reference string) error {
	h, err := l.Hold(ctx, accountID, millicredits, reference)
	if err != nil {
		return err
	}
	_, err = l.Settle(ctx, h, millicredits)
	return err
}

// post records a transaction and its postings, which must sum to zero. It reports false, writing
// nothing, when the (account, kind, reference) was posted before.
func post(ctx context.Context, tx bun.Tx, accountID, kind, reference string, postings map[string]int64) (bool, error) {
	var sum int64
	for _, v := range postings {
		sum += v
	}
	if sum != 0 {
		return false, fmt.Errorf("ledger: unbalanced %s transaction (sum %d)", kind, sum)
	}
	id := ids.Derive("ltx", accountID, kind, reference)
	res, err := tx.NewRaw(`INSERT INTO ledger_transactions (id, account_id, kind, reference) VALUES (?, ?, ?, ?)
		ON CONFLICT (account_id, kind, reference) DO NOTHING`, id, accountID, kind, reference).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("post %s: %w", kind, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	for book, v := range postings {
		if _, err := tx.NewRaw("INSERT INTO ledger_postings (transaction_id, book, millicredits) VALUES (?, ?, ?)", id, book, v).Exec(ctx); err != nil {
			return false, fmt.Errorf("post %s to %s: %w", kind, book, err)
		}
	}
	return true, nil
}

func insufficient(millicredits int64) error {
	return svcerr.New(svcerr.InsufficientCredits, "this needs %s credits and the balance is lower; top up with POST /v1/credits/x402/top-up",
		FormatCredits(millicredits))
}

// FormatCredits renders millicredits as a decimal number of credits ("2.5").
func FormatCredits(millicredits int64) string {
	s := fmt.Sprintf("%d.%03d", millicredits/1000, millicredits%1000)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
