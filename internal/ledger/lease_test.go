package ledger

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/svcerr"
)

// pay makes one call through the leases: reserve, then charge.
func pay(ctx context.Context, t *testing.T, s *Leases, price, reported int64, reference string) (int64, error) {
	t.Helper()
	r, err := s.Reserve(ctx, "acct_l", price, reference)
	if err != nil {
		return 0, err
	}
	return charge(ctx, t, s, r, reported)
}

// charge charges a reservation what its call reported, committed on its own (as the API commits it
// with the answer), and finishes the reservation.
func charge(ctx context.Context, t *testing.T, s *Leases, r *Reservation, reported int64) (int64, error) {
	t.Helper()
	q, charged := s.ChargeQuery(r, reported)
	var err error
	if q != nil {
		_, err = q.Exec(ctx)
	}
	assert.NoError(t, s.Finish(ctx, r, charged, err == nil)) // may run on a goroutine of its own
	return charged, err
}

// fundedLeases returns a ledger whose account acct_l holds millicredits, and Leases on it.
func fundedLeases(t *testing.T, millicredits int64, opts LeaseOptions) (*Ledger, *bun.DB, *Leases) {
	t.Helper()
	l, db := newLedger(t)
	require.NoError(t, l.Grant(context.Background(), db, "acct_l", millicredits, "start"))
	return l, db, NewLeases(l, opts)
}

func countLeases(t *testing.T, db *bun.DB) int {
	t.Helper()
	n, err := db.NewSelect().Table("credit_holds").Where("lease").Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

// TestLeasesPayForManyCallsWithFewHolds: 200 calls of a well-funded account are paid from a handful of
// leases; while the leases are open the balance already shows exactly what was charged, and once they
// close the ledger has posted exactly those charges.
func TestLeasesPayForManyCallsWithFewHolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, db, s := fundedLeases(t, 1_000_000, LeaseOptions{MaxAge: time.Minute})
	var total atomic.Int64
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reported := int64(1000)
			if i%5 == 0 {
				reported = 400 // some calls cost less than their price
			}
			if i%7 == 0 {
				reported = 0 // and some nothing
			}
			charged, err := pay(ctx, t, s, 1000, reported, fmt.Sprintf("call-%d", i))
			assert.NoError(t, err)
			total.Add(charged)
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, countLeases(t, db), 10, "each call made a hold of its own")
	b, err := l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.Equal(t, 1_000_000-total.Load(), b.Available, "open leases: the balance shows exactly what was charged")
	require.Zero(t, b.Held)
	requireBalanced(t, db)

	require.NoError(t, s.Close(ctx))
	b, err = l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.Equal(t, 1_000_000-total.Load(), b.Available)
	var revenue, open int64
	require.NoError(t, db.NewRaw("SELECT coalesce(sum(millicredits), 0) FROM ledger_postings WHERE book = 'platform:revenue'").Scan(ctx, &revenue))
	require.NoError(t, db.NewRaw("SELECT count(*) FROM credit_holds WHERE status = 'held'").Scan(ctx, &open))
	require.Equal(t, total.Load(), revenue, "closed leases posted exactly the calls' charges")
	require.Zero(t, open, "every lease closed")
	require.Zero(t, s.trackedAccounts(), "closed leases are forgotten")
	requireBalanced(t, db)

	r, err := s.Reserve(ctx, "acct_l", 1000, "after-close")
	require.NoError(t, err)
	require.False(t, r.Leased(), "a closed Leases pays with exact holds")
	require.NoError(t, s.Finish(ctx, r, 0, false))
}

// TestLeasesAdmitExactlyWhatIsAffordable: 400 concurrent calls against credits for 200 of them, paid
// from leases while the balance is large and with exact holds at its end: exactly 200 are admitted, and
// the balance ends at exactly 0.
func TestLeasesAdmitExactlyWhatIsAffordable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, db, s := fundedLeases(t, 200_000, LeaseOptions{})
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range 400 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := pay(ctx, t, s, 1000, 1000, fmt.Sprintf("call-%d", i))
			switch {
			case err == nil:
				ok.Add(1)
			case svcerr.Is(err, svcerr.InsufficientCredits):
				refused.Add(1)
			default:
				t.Errorf("call %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	require.EqualValues(t, 200, ok.Load())
	require.EqualValues(t, 200, refused.Load())
	require.Positive(t, countLeases(t, db), "no call was paid from a lease")
	require.NoError(t, s.Close(ctx))
	b, err := l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.Zero(t, b.Available)
	require.Zero(t, b.Held)
	requireBalanced(t, db)
}

// TestLeaseIsNotTakenFromALowBalance: an account whose credits cannot fund MinCalls calls at a quarter
// of its balance pays with exact holds.
func TestLeaseIsNotTakenFromALowBalance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, db, s := fundedLeases(t, 31_000, LeaseOptions{MaxAge: 50 * time.Millisecond}) // 31 calls: a quarter is under 8
	r, err := s.Reserve(ctx, "acct_l", 1000, "only")
	require.NoError(t, err)
	require.False(t, r.Leased())
	require.Eventually(t, func() bool { return s.trackedAccounts() == 0 }, 10*time.Second, 10*time.Millisecond,
		"an account refused a lease is remembered for ever")
	b, err := l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.Equal(t, Balance{Available: 30_000, Held: 1000, UpdatedAt: b.UpdatedAt}, b)
	_, err = charge(ctx, t, s, r, 600)
	require.NoError(t, err)
	require.Zero(t, countLeases(t, db))
	b, err = l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.EqualValues(t, 30_400, b.Available)
	requireBalanced(t, db)
}

// TestLeaseChargeAfterItClosedFails: a charge that reaches its lease after the lease closed (the stale
// sweep closed it, say) fails, so the answer reporting it fails with it, and nothing is lost.
func TestLeaseChargeAfterItClosedFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, db, s := fundedLeases(t, 1_000_000, LeaseOptions{MaxAge: time.Minute})
	r, err := s.Reserve(ctx, "acct_l", 1000, "late")
	require.NoError(t, err)
	require.True(t, r.Leased())
	charged, err := l.closeLease(ctx, r.lease.hold)
	require.NoError(t, err)
	require.Zero(t, charged)

	_, err = charge(ctx, t, s, r, 1000)
	require.True(t, isCheckViolation(err), "a charge to a closed lease went through: %v", err)
	b, err := l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.EqualValues(t, 1_000_000, b.Available)
	requireBalanced(t, db)
}

// TestLeaseCloseWaitsForAChargeInFlight: a lease closing while a charge to it is being committed waits
// for that commit and posts the charge; without the wait the charge would be committed after the close
// had summed the lease, and lost.
func TestLeaseCloseWaitsForAChargeInFlight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, db, s := fundedLeases(t, 1_000_000, LeaseOptions{MaxAge: time.Minute})
	r, err := s.Reserve(ctx, "acct_l", 1000, "in-flight")
	require.NoError(t, err)
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	q, _ := s.ChargeQuery(r, 700)
	_, err = tx.ExecContext(ctx, q.String())
	require.NoError(t, err)

	closed := make(chan int64, 1)
	go func() {
		n, err := l.closeLease(ctx, r.lease.hold)
		if err != nil {
			t.Errorf("close: %v", err)
		}
		closed <- n
	}()
	require.Eventually(t, func() bool {
		var waiting int
		err := db.NewRaw(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'
			AND query LIKE ?`, "%pg_advisory_xact_lock(%"+r.lease.hold.ID+"%").Scan(ctx, &waiting)
		return err == nil && waiting == 1
	}, 10*time.Second, 5*time.Millisecond, "the close did not wait for the charge in flight")
	require.NoError(t, tx.Commit())
	require.EqualValues(t, 700, <-closed, "the close posted the charge committed while it waited")
	requireBalanced(t, db)
}

// TestReleaseStaleClosesOldLeases: a lease left open by a process that died is closed by the sweep,
// which posts the charges committed to it and frees the rest.
func TestReleaseStaleClosesOldLeases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, db, s := fundedLeases(t, 1_000_000, LeaseOptions{MaxAge: time.Minute}) // "dies" without closing its lease
	for i := range 3 {
		_, err := pay(ctx, t, s, 1000, 900, fmt.Sprintf("call-%d", i))
		require.NoError(t, err)
	}
	require.Equal(t, 1, countLeases(t, db))
	n, err := l.ReleaseStale(ctx, 30*time.Minute, 2*time.Hour)
	require.NoError(t, err)
	require.Zero(t, n, "a young lease is left alone")
	_, err = db.ExecContext(ctx, "UPDATE credit_holds SET created_at = now() - interval '1 hour' WHERE lease")
	require.NoError(t, err)
	n, err = l.ReleaseStale(ctx, 30*time.Minute, 2*time.Hour)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	var status string
	var charged int64
	require.NoError(t, db.NewRaw("SELECT status, charged FROM credit_holds WHERE lease").Scan(ctx, &status, &charged))
	require.Equal(t, HoldSettled, status)
	require.EqualValues(t, 2700, charged)
	b, err := l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.EqualValues(t, 1_000_000-2700, b.Available)
	requireBalanced(t, db)
}

// TestRefusalWaitsForThisProcessLeases: a call the available credits cannot fund, while a lease of
// this process still holds credits for a call in flight, waits for that lease to close and is then
// admitted from what it gave back, instead of being refused.
func TestRefusalWaitsForThisProcessLeases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, db, s := fundedLeases(t, 32_000, LeaseOptions{MaxAge: time.Minute}) // a lease of 8 calls at 1000
	waiting := make(chan struct{})
	s.waitingForLeases = func() { close(waiting) }

	small, err := s.Reserve(ctx, "acct_l", 1000, "small")
	require.NoError(t, err)
	require.True(t, small.Leased())
	big := make(chan error, 1)
	go func() {
		// 24,000 are available and 7,000 sit unused in the lease: only together can they fund it.
		r, err := s.Reserve(ctx, "acct_l", 30_000, "big")
		if err == nil {
			assert.False(t, r.Leased())
			_, err = charge(ctx, t, s, r, 30_000)
		}
		big <- err
	}()
	select {
	case <-waiting:
	case err := <-big:
		t.Fatalf("the call did not wait for this process's lease to close: %v", err)
	}
	_, err = charge(ctx, t, s, small, 1000)
	require.NoError(t, err)
	require.NoError(t, <-big, "the call was refused while this process's lease held the credits it needed")
	b, err := l.Balance(ctx, "acct_l")
	require.NoError(t, err)
	require.EqualValues(t, 1000, b.Available)
	requireBalanced(t, db)
}

func (s *Leases) trackedAccounts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.accounts)
}
