package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
)

func newLedger(t *testing.T) (*Ledger, *bun.DB) {
	t.Helper()
	db := testdb.New(t)
	_, err := db.ExecContext(context.Background(), "INSERT INTO accounts (id, name) VALUES ('acct_l', 'l'); INSERT INTO credit_balances (account_id) VALUES ('acct_l')")
	require.NoError(t, err)
	return New(db), db
}

// requireBalanced checks that every transaction's postings sum to zero; that the account books agree
// with credit_balances and the open holds; that Balance counts the uncharged part of open leases as
// available and only exact holds as held; and that every closed lease posted exactly its charges.
// It reads everything in one snapshot, since leases may be closing meanwhile.
func requireBalanced(t *testing.T, pool *bun.DB) {
	t.Helper()
	ctx := context.Background()
	db, err := pool.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	require.NoError(t, err)
	defer func() { _ = db.Rollback() }()
	var unbalanced int
	require.NoError(t, db.NewRaw(`SELECT count(*) FROM (SELECT transaction_id FROM ledger_postings
		GROUP BY transaction_id HAVING sum(millicredits) <> 0) u`).Scan(ctx, &unbalanced))
	require.Zero(t, unbalanced)
	var books struct {
		Available int64 `bun:"available"`
		Held      int64 `bun:"held"`
	}
	require.NoError(t, db.NewRaw(`SELECT
		coalesce(sum(p.millicredits) FILTER (WHERE p.book = 'account:available'), 0) AS available,
		coalesce(sum(p.millicredits) FILTER (WHERE p.book = 'account:held'), 0) AS held
		FROM ledger_postings p JOIN ledger_transactions t ON t.id = p.transaction_id WHERE t.account_id = 'acct_l'`).Scan(ctx, &books))
	var open struct {
		Exact   int64 `bun:"exact"`
		Leased  int64 `bun:"leased"`
		Pending int64 `bun:"pending"`
		Row     int64 `bun:"row"`
	}
	require.NoError(t, db.NewRaw(`SELECT
		(SELECT coalesce(sum(millicredits), 0) FROM credit_holds WHERE account_id = 'acct_l' AND status = 'held' AND NOT lease) AS exact,
		(SELECT coalesce(sum(millicredits), 0) FROM credit_holds WHERE account_id = 'acct_l' AND status = 'held' AND lease) AS leased,
		(SELECT coalesce(sum(c.millicredits), 0) FROM credit_lease_charges c JOIN credit_holds h ON h.id = c.hold_id
			WHERE h.account_id = 'acct_l' AND h.status = 'held') AS pending,
		(SELECT available FROM credit_balances WHERE account_id = 'acct_l') AS row`).Scan(ctx, &open))
	require.Equal(t, books.Available, open.Row, "available book and balance row disagree")
	require.Equal(t, books.Held, open.Exact+open.Leased, "held book and open holds disagree")
	b, err := New(db).Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.Equal(t, books.Available+open.Leased-open.Pending, b.Available, "Balance's available is not the book's plus what open leases have not charged")
	require.Equal(t, open.Exact, b.Held, "Balance's held is not the open exact holds")

	var misposted int
	require.NoError(t, db.NewRaw(`SELECT count(*) FROM credit_holds h
		LEFT JOIN LATERAL (SELECT coalesce(sum(millicredits), 0) AS lines FROM credit_lease_charges WHERE hold_id = h.id) c ON true
		LEFT JOIN LATERAL (SELECT coalesce(sum(p.millicredits), 0) AS revenue FROM ledger_transactions t
			JOIN ledger_postings p ON p.transaction_id = t.id AND p.book = 'platform:revenue'
			WHERE t.account_id = h.account_id AND t.reference = h.id) r ON true
		WHERE h.lease AND h.status <> 'held' AND (h.charged <> c.lines OR r.revenue <> c.lines)`).Scan(ctx, &misposted))
	require.Zero(t, misposted, "a closed lease did not post exactly its charges")
}

func TestConcurrentHoldsNeverOverdraw(t *testing.T) {
	t.Parallel()
	l, db := newLedger(t)
	ctx := context.Background()
	require.NoError(t, l.Grant(ctx, db, "acct_l", 10_000, "start"))
	var wg sync.WaitGroup
	results := make(chan error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := l.Hold(ctx, "acct_l", 1000, fmt.Sprintf("call-%d", i))
			if err == nil {
				_, err = l.Settle(ctx, h, 1000)
			}
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	ok := 0
	for err := range results {
		if err == nil {
			ok++
			continue
		}
		require.True(t, svcerr.Is(err, svcerr.InsufficientCredits), "got %v", err)
	}
	require.Equal(t, 10, ok)
	b, err := l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.Zero(t, b.Available)
	require.Zero(t, b.Held)
	requireBalanced(t, db)
}

func TestHoldSettleReleaseAndRetries(t *testing.T) {
	t.Parallel()
	l, db := newLedger(t)
	ctx := context.Background()
	require.NoError(t, l.Grant(ctx, db, "acct_l", 5000, "start"))
	require.NoError(t, l.Grant(ctx, db, "acct_l", 5000, "start"), "a retried grant posts once")

	h, err := l.Hold(ctx, "acct_l", 3000, "invoke-1")
	require.NoError(t, err)
	again, err := l.Hold(ctx, "acct_l", 3000, "invoke-1")
	require.NoError(t, err)
	require.Equal(t, h, again, "a retried hold is the same hold")
	b, _ := l.Balance(ctx, "acct_l")
	require.Equal(t, Balance{Available: 2000, Held: 3000, UpdatedAt: b.UpdatedAt}, b)

	charged, err := l.Settle(ctx, h, 1500)
	require.NoError(t, err)
	require.EqualValues(t, 1500, charged)
	_, err = l.Settle(ctx, h, 1500)
	require.NoError(t, err, "settling twice is harmless")
	b, _ = l.Balance(ctx, "acct_l")
	require.EqualValues(t, 3500, b.Available)
	require.Zero(t, b.Held)

	capped, err := l.Hold(ctx, "acct_l", 1000, "invoke-2")
	require.NoError(t, err)
	n, err := l.Settle(ctx, capped, 9999)
	require.NoError(t, err)
	require.EqualValues(t, 1000, n, "a charge never exceeds its hold")

	released, err := l.Hold(ctx, "acct_l", 2500, "invoke-3")
	require.NoError(t, err)
	require.NoError(t, l.Release(ctx, released))
	b, _ = l.Balance(ctx, "acct_l")
	require.EqualValues(t, 2500, b.Available)

	_, err = l.Hold(ctx, "acct_l", 2501, "too-much")
	require.True(t, svcerr.Is(err, svcerr.InsufficientCredits))
	require.NoError(t, l.Charge(ctx, "acct_l", 2500, "exact"))
	b, _ = l.Balance(ctx, "acct_l")
	require.Zero(t, b.Available)

	require.NoError(t, l.TopUp(ctx, db, "acct_l", 100_000, "rcpt_1"))
	require.NoError(t, l.TopUp(ctx, db, "acct_l", 100_000, "rcpt_1"))
	b, _ = l.Balance(ctx, "acct_l")
	require.EqualValues(t, 100_000, b.Available)
	requireBalanced(t, db)

	var revenue int64
	require.NoError(t, db.NewRaw("SELECT sum(millicredits) FROM ledger_postings WHERE book = 'platform:revenue'").Scan(ctx, &revenue))
	require.EqualValues(t, 1500+1000+2500, revenue)
}

func TestFormatCredits(t *testing.T) {
	t.Parallel()
	for in, want := range map[int64]string{0: "0", 1000: "1", 2500: "2.5", 1: "0.001", 123450: "123.45"} {
		require.Equal(t, want, FormatCredits(in))
	}
}

// TestConcurrentAffordableHoldsAreBatched: many concurrent holds that all fit succeed, several of them
// posted together, and the books balance to the millicredit.
func TestConcurrentAffordableHoldsAreBatched(t *testing.T) {
	t.Parallel()
	l, db := newLedger(t)
	ctx := context.Background()
	require.NoError(t, l.Grant(ctx, db, "acct_l", 1_000_000, "start"))
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := l.Hold(ctx, "acct_l", int64(1000+i), fmt.Sprintf("b-%d", i))
			if err == nil {
				_, err = l.Settle(ctx, h, int64(1000+i))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Positive(t, l.holds.batches.Load(), "concurrent holds were never combined")
	b, err := l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.EqualValues(t, 1_000_000-(200*1000+199*200/2), b.Available)
	require.Zero(t, b.Held)
	requireBalanced(t, db)

	_, err = l.Hold(ctx, "acct_l", 1000, "b-0")
	require.NoError(t, err)
	b2, _ := l.Balance(ctx, "acct_l")
	require.Equal(t, b.Available, b2.Available, "a retried reference posts nothing")
}

// TestReleaseStaleFreesOnlyOldOpenHolds: holds left open past their age are released (the credits come
// back); younger, settled and other-kind holds are left alone.
func TestReleaseStaleFreesOnlyOldOpenHolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, db := newLedger(t)
	require.NoError(t, l.Grant(ctx, db, "acct_l", 10_000, "start"))
	oldInvoke, err := l.Hold(ctx, "acct_l", 1000, InvokeReference("inv_old", "att_1"))
	require.NoError(t, err)
	young, err := l.Hold(ctx, "acct_l", 1000, InvokeReference("inv_young", "att_1"))
	require.NoError(t, err)
	oldRun, err := l.Hold(ctx, "acct_l", 1000, "run/run_1")
	require.NoError(t, err)
	settled, err := l.Hold(ctx, "acct_l", 1000, InvokeReference("inv_settled", "att_1"))
	require.NoError(t, err)
	_, err = l.Settle(ctx, settled, 1000)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, "UPDATE credit_holds SET created_at = now() - interval '1 hour' WHERE id IN (?)",
		bun.List([]string{oldInvoke.ID, oldRun.ID, settled.ID}))
	require.NoError(t, err)

	n, err := l.ReleaseStale(ctx, 30*time.Minute, 2*time.Hour)
	require.NoError(t, err)
	require.Equal(t, 1, n, "only the old invocation hold: the run hold is younger than its age")
	b, err := l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.EqualValues(t, 10_000-1000-1000-1000, b.Available, "the released 1000 came back; young, run and settled stay")
	require.EqualValues(t, 2000, b.Held)
	_ = young
	requireBalanced(t, db)
}
