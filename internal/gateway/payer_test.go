package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
)

// newPayer returns a Payer on a fresh database whose accounts hold the given millicredits, and its ledger.
func newPayer(t *testing.T, accounts map[string]int64) (*gateway.Payer, *ledger.Ledger) {
	t.Helper()
	ctx := context.Background()
	db := testdb.New(t)
	l := ledger.New(db)
	for id, millicredits := range accounts {
		_, err := db.ExecContext(ctx, "INSERT INTO accounts (id, name) VALUES (?, ?); INSERT INTO credit_balances (account_id) VALUES (?)", id, id, id)
		require.NoError(t, err)
		require.NoError(t, l.Grant(ctx, db, id, millicredits, "start"))
	}
	return gateway.NewPayer(l, ledger.LeaseOptions{}, nil), l
}

// balance is the account's available and held millicredits once the payer's leases have closed.
func balance(t *testing.T, p *gateway.Payer, l *ledger.Ledger, accountID string) (available, held int64) {
	t.Helper()
	require.NoError(t, p.Close(context.Background()))
	b, err := l.Balance(context.Background(), accountID)
	require.NoError(t, err)
	return b.Available, b.Held
}

// deferred is a Commit that keeps what it is given, as an idempotent answer does until it is stored.
type deferred struct {
	calls int
	q     *bun.RawQuery
	after func(ctx context.Context, committed bool)
}

func (d *deferred) commit(_ context.Context, q *bun.RawQuery, after func(ctx context.Context, committed bool)) error {
	d.calls++
	d.q, d.after = q, after
	return nil
}

// land commits what d kept and ends the payment, as the idempotent answer's record does.
func (d *deferred) land(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	committed := true
	if d.q != nil {
		_, err := d.q.Exec(ctx)
		committed = err == nil
	}
	d.after(ctx, committed)
}

// TestPayerChargesDirectInvocations: a direct invocation is charged what the service reported, at most
// its price, and only once the charge commits with the answer; a failed call or a charge that does not
// commit gives everything back; an unaffordable call sets nothing aside. Both ways of paying are
// covered: exact holds (a small balance) and leases (a large one).
func TestPayerChargesDirectInvocations(t *testing.T) {
	t.Parallel()
	const small, large = 10_000, 10_000_000
	cases := map[string]struct {
		reported, charged int64
		call              func(t *testing.T, p *gateway.Payer, pay *gateway.Payment, reported int64) int64
	}{
		"charged what was reported": {reported: 400, charged: 400, call: chargeWithAnswer},
		"capped at the price":       {reported: 5_000, charged: 1_000, call: chargeWithAnswer},
		"reported nothing":          {reported: 0, charged: 0, call: chargeWithAnswer},
		"charged at once":           {reported: 700, charged: 700, call: chargeNow},
		"call failed":               {reported: 700, charged: 0, call: release},
		"commit failed":             {reported: 700, charged: 0, call: commitFails},
	}
	for name, c := range cases {
		for _, funded := range []int64{small, large} {
			t.Run(fmt.Sprintf("%s/%d", name, funded), func(t *testing.T) {
				t.Parallel()
				p, l := newPayer(t, map[string]int64{"acct_p": funded})
				pay, err := p.Reserve(context.Background(), "acct_p", 1_000, "inv_1")
				require.NoError(t, err)
				require.False(t, pay.Free())
				require.Empty(t, pay.HoldID())
				assert.Equal(t, c.charged, c.call(t, p, pay, c.reported))
				available, held := balance(t, p, l, "acct_p")
				assert.Equal(t, funded-c.charged, available)
				assert.Zero(t, held)
			})
		}
	}
}

func chargeWithAnswer(t *testing.T, p *gateway.Payer, pay *gateway.Payment, reported int64) int64 {
	t.Helper()
	var d deferred
	charged, err := p.Charge(context.Background(), pay, reported, d.commit)
	require.NoError(t, err)
	require.Equal(t, 1, d.calls)
	require.NotNil(t, d.after)
	d.land(t)
	return charged
}

func chargeNow(t *testing.T, p *gateway.Payer, pay *gateway.Payment, reported int64) int64 {
	t.Helper()
	charged, err := p.Charge(context.Background(), pay, reported, idempotency.CommitNow)
	require.NoError(t, err)
	return charged
}

func release(t *testing.T, p *gateway.Payer, pay *gateway.Payment, _ int64) int64 {
	t.Helper()
	p.Release(context.Background(), pay)
	return 0
}

// commitFails commits nothing and reports the charge as not committed, as a failed answer does.
func commitFails(t *testing.T, p *gateway.Payer, pay *gateway.Payment, reported int64) int64 {
	t.Helper()
	failed := errors.New("the answer did not commit")
	_, err := p.Charge(context.Background(), pay, reported, func(ctx context.Context, _ *bun.RawQuery, after func(context.Context, bool)) error {
		after(ctx, false)
		return failed
	})
	require.ErrorIs(t, err, failed)
	require.ErrorContains(t, err, "charge the invocation")
	return 0
}

// TestPayerFreeAndUnaffordableCalls: a free call sets nothing aside and commits nothing, even when the
// service reports a charge; an unaffordable one fails with insufficient_credits and sets nothing aside.
func TestPayerFreeAndUnaffordableCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, l := newPayer(t, map[string]int64{"acct_p": 500})
	pay, err := p.Reserve(ctx, "acct_p", 0, "inv_free")
	require.NoError(t, err)
	require.True(t, pay.Free())
	var d deferred
	charged, err := p.Charge(ctx, pay, 300, d.commit)
	require.NoError(t, err)
	assert.Zero(t, charged)
	assert.Zero(t, d.calls, "a free call commits nothing")
	q, charged := p.ChargeQuery(pay, 300)
	assert.Nil(t, q)
	assert.Zero(t, charged)

	_, err = p.Reserve(ctx, "acct_p", 1_000, "inv_dear")
	require.True(t, svcerr.Is(err, svcerr.InsufficientCredits), "got %v", err)
	available, held := balance(t, p, l, "acct_p")
	assert.Equal(t, int64(500), available)
	assert.Zero(t, held)
}

// TestPayerHoldsRunsOnce: a run's attempts share one hold, settled once with the run's answer; a later
// attempt learns that the hold is settled or released; ReleaseRun frees only a hold still held.
func TestPayerHoldsRunsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, l := newPayer(t, map[string]int64{"acct_r": 10_000})

	first, err := p.HoldRun(ctx, "acct_r", "run_1", 2_000)
	require.NoError(t, err)
	require.NotEmpty(t, first.HoldID())
	retry, err := p.HoldRun(ctx, "acct_r", "run_1", 2_000)
	require.NoError(t, err)
	require.Equal(t, first.HoldID(), retry.HoldID(), "attempts share the run's hold")
	available, held := balance(t, p, l, "acct_r")
	require.Equal(t, int64(8_000), available)
	require.Equal(t, int64(2_000), held)

	p.Release(ctx, retry) // a failed attempt keeps the hold for the next one
	q, charged := p.ChargeQuery(retry, 9_999)
	require.NotNil(t, q)
	require.Equal(t, int64(2_000), charged, "capped at the price")
	_, err = q.Exec(ctx)
	require.NoError(t, err)
	_, err = p.HoldRun(ctx, "acct_r", "run_1", 2_000)
	require.ErrorIs(t, err, gateway.ErrRunSettled)
	require.NoError(t, p.ReleaseRun(ctx, "acct_r", "run_1"), "a settled hold is left as it is")
	available, held = balance(t, p, l, "acct_r")
	require.Equal(t, int64(8_000), available)
	require.Zero(t, held)

	_, err = p.HoldRun(ctx, "acct_r", "run_2", 3_000)
	require.NoError(t, err)
	require.NoError(t, p.ReleaseRun(ctx, "acct_r", "run_2"))
	_, err = p.HoldRun(ctx, "acct_r", "run_2", 3_000)
	require.ErrorIs(t, err, gateway.ErrRunReleased)
	require.NoError(t, p.ReleaseRun(ctx, "acct_r", "run_none"), "no hold: nothing to release")
	available, held = balance(t, p, l, "acct_r")
	require.Equal(t, int64(8_000), available)
	require.Zero(t, held)

	free, err := p.HoldRun(ctx, "acct_r", "run_free", 0)
	require.NoError(t, err)
	require.True(t, free.Free())
	require.Empty(t, free.HoldID())
	_, err = p.HoldRun(ctx, "acct_r", "run_dear", 1_000_000)
	require.True(t, svcerr.Is(err, svcerr.InsufficientCredits), "got %v", err)
}
