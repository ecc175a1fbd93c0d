package limit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// TestTwoProcessesAdmitExactlyTheLimit hammers one key from two Limiters on the same database: exactly the
// limit is admitted in total, and every refusal names the selector and the time to the window's end.
func TestTwoProcessesAdmitExactlyTheLimit(t *testing.T) {
	t.Parallel()
	db, name := testdb.NewWithSchema(t)
	clk := newClock(base)
	procs := []*Limiter{newLimiter(t, db, clk), newLimiter(t, secondProcess(t, name), clk)}
	owners := []Owner{{KeyID: "key_a", Limits: []schema.Limit{rpm(client.OpRunsCreate, 37)}}}
	ops := Operations(client.OpRunsCreate, client.ServiceManagedWorkflows, client.OperationEcho)

	decisions := make([]Decision, 200)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range decisions {
		wg.Go(func() {
			<-start
			d, err := procs[i%2].Allow(context.Background(), owners, ops)
			if err != nil {
				t.Error(err)
			}
			decisions[i] = d
		})
	}
	close(start)
	wg.Wait()

	allowed, perProcess := 0, [2]int{}
	for i, d := range decisions {
		if d.Allowed {
			allowed++
			perProcess[i%2]++
			continue
		}
		require.Equal(t, client.OpRunsCreate, d.Operation)
		require.Greater(t, d.RetryAfter, time.Duration(0))
		require.LessOrEqual(t, d.RetryAfter, time.Minute)
		require.Equal(t, 44500*time.Millisecond, d.RetryAfter)
	}
	require.Equal(t, 37, allowed)
	t.Logf("admitted per process: %v", perProcess)
	require.EqualValues(t, 37, rowUsed(t, db, "key_a", client.OpRunsCreate, "requests", base.Truncate(time.Minute)))
}

// TestAncestorLimitsApplyToDescendants: a parent's limit caps each child and all its children together.
func TestAncestorLimitsApplyToDescendants(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, testdb.New(t), newClock(base))
	parent := Owner{KeyID: "key_parent", Limits: []schema.Limit{rpm(client.OpRunsCreate, 5)}}
	child := []Owner{{KeyID: "key_child"}, parent}
	sibling := []Owner{{KeyID: "key_sibling"}, parent}
	ops := Operations(client.OpRunsCreate, client.ServiceManagedWorkflows, "")

	n, _ := allowN(t, l, child, ops, 3)
	require.Equal(t, 3, n)
	n, _ = allowN(t, l, sibling, ops, 3)
	require.Equal(t, 2, n, "the sibling shares the parent's budget")
	n, d := allowN(t, l, child, ops, 1)
	require.Zero(t, n)
	require.Equal(t, client.OpRunsCreate, d.Operation)

	n, _ = allowN(t, l, child, []string{client.OpRunsList}, 10)
	require.Equal(t, 10, n, "the parent's limit applies to runs.create only")
	n, _ = allowN(t, l, []Owner{parent}, ops, 1)
	require.Zero(t, n, "the parent itself draws from the same budget")
}

// TestRefusedRequestConsumesNothing: with * at 100 and runs.create at 3, the 4th run is refused by
// runs.create and does not spend *: 97 other requests still pass, the 98th is refused by *.
func TestRefusedRequestConsumesNothing(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, testdb.New(t), newClock(base))
	owners := []Owner{{KeyID: "key_a", Limits: []schema.Limit{rpm(client.LimitAll, 100), rpm(client.OpRunsCreate, 3)}}}
	runs := Operations(client.OpRunsCreate, client.ServiceManagedWorkflows, client.OperationEcho)

	n, d := allowN(t, l, owners, runs, 3)
	require.Equal(t, 3, n)
	reset := 44500 * time.Millisecond
	require.Equal(t, []Policy{
		{Operation: client.LimitAll, Limit: 100, Remaining: 97, Window: time.Minute, Reset: reset},
		{Operation: client.OpRunsCreate, Limit: 3, Remaining: 0, Window: time.Minute, Reset: reset},
	}, d.Policies)

	n, d = allowN(t, l, owners, runs, 1)
	require.Zero(t, n)
	require.Equal(t, client.OpRunsCreate, d.Operation)
	require.Equal(t, reset, d.RetryAfter)
	require.Equal(t, int64(97), d.Policies[0].Remaining, "the refused run took nothing from *")

	n, _ = allowN(t, l, owners, []string{client.OpRunsList}, 97)
	require.Equal(t, 97, n)
	n, d = allowN(t, l, owners, []string{client.OpRunsList}, 1)
	require.Zero(t, n)
	require.Equal(t, client.LimitAll, d.Operation)
}

// TestWindowRolloverRestoresTheBudget moves the injected clock into the next minute.
func TestWindowRolloverRestoresTheBudget(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	clk := newClock(base)
	l := newLimiter(t, db, clk)
	owners := []Owner{{KeyID: "key_a", Limits: []schema.Limit{rpm(client.OpRunsRead, 3)}}}
	ops := []string{client.OpRunsRead}

	n, d := allowN(t, l, owners, ops, 4)
	require.Equal(t, 3, n)
	require.Equal(t, 44500*time.Millisecond, d.RetryAfter)

	clk.Add(44499 * time.Millisecond) // the last millisecond of the window: still spent
	n, d = allowN(t, l, owners, ops, 1)
	require.Zero(t, n)
	require.Equal(t, time.Millisecond, d.RetryAfter)

	clk.Add(time.Millisecond) // 12:01:00 exactly
	n, _ = allowN(t, l, owners, ops, 1)
	require.Equal(t, 1, n)
	clk.Add(-time.Millisecond) // a request that read the clock just before the roll
	n, _ = allowN(t, l, owners, ops, 1)
	require.Equal(t, 1, n, "it counts in the new window; the counter never moves back")
	clk.Add(time.Millisecond)
	n, d = allowN(t, l, owners, ops, 2)
	require.Equal(t, 1, n)
	require.Equal(t, time.Minute, d.RetryAfter)

	first := base.Truncate(time.Minute)
	require.EqualValues(t, 3, rowUsed(t, db, "key_a", client.OpRunsRead, "requests", first))
	require.EqualValues(t, 3, rowUsed(t, db, "key_a", client.OpRunsRead, "requests", first.Add(time.Minute)))
}

// TestCreditsPerDay reserves up to the cap, refuses beyond it, and gets budget back on release; qualified
// selectors match.
func TestCreditsPerDay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock(base)
	l := newLimiter(t, testdb.New(t), clk)
	sel := client.RunCreateOperation(client.ServiceManagedWorkflows, "")
	owners := []Owner{{KeyID: "key_a", Limits: []schema.Limit{cpd(sel, 2), rpm(sel, 1000)}}}
	echo := Operations(client.OpRunsCreate, client.ServiceManagedWorkflows, client.OperationEcho)

	d, r1, err := l.ReserveCredits(ctx, owners, echo, 1500)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	require.EqualValues(t, 1500, r1.Millicredits())

	d, r, err := l.ReserveCredits(ctx, owners, echo, 600)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.Nil(t, r)
	require.Equal(t, sel, d.Operation)
	require.Equal(t, 11*time.Hour+59*time.Minute+44500*time.Millisecond, d.RetryAfter, "until UTC midnight")

	d, _, err = l.ReserveCredits(ctx, owners, echo, 500)
	require.NoError(t, err)
	require.True(t, d.Allowed, "exactly the cap fits")

	d, r, err = l.ReserveCredits(ctx, owners, Operations(client.OpRunsCreate, client.ServiceManagedAgents, ""), 5000)
	require.NoError(t, err)
	require.True(t, d.Allowed, "another service is not limited")
	require.Nil(t, r)

	require.NoError(t, l.ReleaseCredits(ctx, r1, 1500))
	require.NoError(t, l.ReleaseCredits(ctx, r1, 1500), "a second release gives nothing back")
	require.Zero(t, r1.Millicredits())
	d, _, err = l.ReserveCredits(ctx, owners, echo, 1500)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	d, _, err = l.ReserveCredits(ctx, owners, echo, 1)
	require.NoError(t, err)
	require.False(t, d.Allowed, "the double release did not give back twice")

	d, _, err = l.ReserveCredits(ctx, owners, echo, 2001)
	require.NoError(t, err)
	require.False(t, d.Allowed, "more than a day's budget never fits")

	clk.Add(12 * time.Hour) // the next UTC day
	d, _, err = l.ReserveCredits(ctx, owners, echo, 2000)
	require.NoError(t, err)
	require.True(t, d.Allowed)
}

// TestCreditsAreExactUnderConcurrencyAndAllOrNothing: concurrent reservations from two processes never
// pass the cap, and a reservation refused by one limit takes nothing from the others.
func TestCreditsAreExactUnderConcurrencyAndAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, name := testdb.NewWithSchema(t)
	clk := newClock(base)
	procs := []*Limiter{newLimiter(t, db, clk), newLimiter(t, secondProcess(t, name), clk)}
	parent := Owner{KeyID: "key_parent", Limits: []schema.Limit{cpd(client.OpServicesInvoke, 1)}}
	owners := []Owner{{KeyID: "key_child", Limits: []schema.Limit{cpd(client.LimitAll, 10)}}, parent}
	ops := Operations(client.OpServicesInvoke, client.ServiceManagedWorkflows, client.OperationEcho)

	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for i := range 40 {
		wg.Go(func() {
			d, _, err := procs[i%2].ReserveCredits(ctx, owners, ops, 100)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if d.Allowed {
				allowed++
			} else if d.Operation != client.OpServicesInvoke {
				t.Errorf("refused by %q", d.Operation)
			}
		})
	}
	wg.Wait()
	require.Equal(t, 10, allowed)
	day := base.Truncate(24 * time.Hour)
	require.EqualValues(t, 1000, rowUsed(t, db, "key_parent", client.OpServicesInvoke, "millicredits", day))
	require.EqualValues(t, 1000, rowUsed(t, db, "key_child", client.LimitAll, "millicredits", day),
		"refused reservations took nothing from the child's limit")
}

// TestNoLimitsNeverTouchTheDatabase: keys without matching limits are decided without a query, and a
// matching limit is served from the lease, not one query per request.
func TestNoLimitsNeverTouchTheDatabase(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	var queries queryCounter
	db = db.WithQueryHook(&queries)
	l := newLimiter(t, db, newClock(base))
	ctx := context.Background()

	none := []Owner{{KeyID: "key_child"}, {KeyID: "key_parent"}}
	other := []Owner{{KeyID: "key_a", Limits: []schema.Limit{rpm(client.OpRunsCreate, 1), cpd(client.OpRunsCreate, 1)}}}
	for _, owners := range [][]Owner{none, other, nil} {
		d, err := l.Allow(ctx, owners, []string{client.OpRunsRead})
		require.NoError(t, err)
		require.Equal(t, Decision{Allowed: true}, d)
		d, r, err := l.ReserveCredits(ctx, owners, []string{client.OpRunsRead}, 1000)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		require.Nil(t, r)
	}
	require.Zero(t, queries.n.Load())

	limited := []Owner{{KeyID: "key_a", Limits: []schema.Limit{rpm(client.OpRunsRead, 1_000_000)}}}
	n, _ := allowN(t, l, limited, []string{client.OpRunsRead}, 1000)
	require.Equal(t, 1000, n)
	require.LessOrEqual(t, queries.n.Load(), int64(12), "leases double: 1+2+4+...+512 >= 1000")
}

// TestCloseGivesTheLeaseBack: a process's unused lease goes back on Close, and the other process can then
// use the whole limit exactly.
func TestCloseGivesTheLeaseBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, name := testdb.NewWithSchema(t)
	clk := newClock(base)
	a := New(db, Options{Now: clk.Now})
	b := newLimiter(t, secondProcess(t, name), clk)
	owners := []Owner{{KeyID: "key_a", Limits: []schema.Limit{rpm(client.OpRunsRead, 1000)}}}
	ops := []string{client.OpRunsRead}

	n, _ := allowN(t, a, owners, ops, 4) // leases 1, 2, 4: three requests stay leased to a
	require.Equal(t, 4, n)
	nb, _ := allowN(t, b, owners, ops, 1000)
	require.Equal(t, 1000-4-3, nb, "a's unused lease is not b's")

	require.NoError(t, a.Close(ctx))
	_, err := a.Allow(ctx, owners, ops)
	require.ErrorIs(t, err, ErrClosed)

	clk.Add(time.Second) // b trusts "spent" for RecheckExhausted
	more, _ := allowN(t, b, owners, ops, 10)
	require.Equal(t, 3, more)
	require.EqualValues(t, 1000, rowUsed(t, db, "key_a", client.OpRunsRead, "requests", base.Truncate(time.Minute)))
}

// TestSweepGivesIdleLeasesBackAndRetiresEndedWindows drives Run's sweep with the injected clock.
func TestSweepGivesIdleLeasesBackAndRetiresEndedWindows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	clk := newClock(base)
	l := newLimiter(t, db, clk)
	owners := []Owner{{KeyID: "key_a", Limits: []schema.Limit{rpm(client.OpRunsRead, 1000)}}}
	ops := []string{client.OpRunsRead}
	start := base.Truncate(time.Minute)

	n, _ := allowN(t, l, owners, ops, 4)
	require.Equal(t, 4, n)
	require.EqualValues(t, 7, rowUsed(t, db, "key_a", client.OpRunsRead, "requests", start))

	require.NoError(t, l.sweep(ctx))
	require.EqualValues(t, 7, rowUsed(t, db, "key_a", client.OpRunsRead, "requests", start), "not idle yet")

	clk.Add(2 * time.Second)
	require.NoError(t, l.sweep(ctx))
	require.EqualValues(t, 4, rowUsed(t, db, "key_a", client.OpRunsRead, "requests", start), "idle lease given back")
	_, d := allowN(t, l, owners, ops, 1)
	require.True(t, d.Allowed)
	require.Equal(t, int64(1000-5), d.Policies[0].Remaining)

	clk.Add(time.Minute)
	require.NoError(t, l.sweep(ctx))
	require.Empty(t, l.snapshot(), "the ended window's counter is retired")
	_, d = allowN(t, l, owners, ops, 1)
	require.True(t, d.Allowed, "a retired counter is replaced")
	require.Len(t, l.snapshot(), 1)

	clk.Add(2 * time.Hour)
	require.NoError(t, l.sweep(ctx))
	var rows int
	require.NoError(t, db.NewRaw("SELECT count(*) FROM limit_counters").Scan(ctx, &rows))
	require.Zero(t, rows, "rows older than Retention are pruned")
}

// TestOperations builds the ids a request matches.
func TestOperations(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"runs.read"}, Operations(client.OpRunsRead, "managed-workflows", "echo"))
	require.Equal(t, []string{"runs.create"}, Operations(client.OpRunsCreate, "", ""))
	require.Equal(t, []string{"services.invoke", "services.invoke.managed-wallets"},
		Operations(client.OpServicesInvoke, client.ServiceManagedWallets, ""))
	require.Equal(t,
		[]string{"runs.create", "runs.create.managed-workflows", "runs.create.managed-workflows.echo"},
		Operations(client.OpRunsCreate, client.ServiceManagedWorkflows, client.OperationEcho))
}

// TestNoOverAdmissionUnderConcurrencyAndRollover hammers overlapping limits, listed in opposite orders
// (the canonical lock order prevents deadlock), from two processes while the clock crosses windows: no
// window's row ever passes its cap, and every admitted request was handed out by the database.
func TestNoOverAdmissionUnderConcurrencyAndRollover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, name := testdb.NewWithSchema(t)
	clk := newClock(base)
	procs := []*Limiter{newLimiter(t, db, clk), newLimiter(t, secondProcess(t, name), clk)}
	x := []Owner{
		{KeyID: "key_b", Limits: []schema.Limit{rpm(client.LimitAll, 50), rpm(client.OpRunsRead, 30)}},
		{KeyID: "key_a", Limits: []schema.Limit{rpm(client.LimitAll, 40)}},
	}
	y := []Owner{
		{KeyID: "key_a", Limits: []schema.Limit{rpm(client.LimitAll, 40)}},
		{KeyID: "key_b", Limits: []schema.Limit{rpm(client.OpRunsRead, 30), rpm(client.LimitAll, 50)}},
	}
	ops := []string{client.OpRunsRead}

	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				if g == 0 && i%30 == 29 {
					clk.Add(30 * time.Second)
				}
				owners := x
				if i%2 == 1 {
					owners = y
				}
				d, err := procs[(g+i)%2].Allow(ctx, owners, ops)
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					mu.Lock()
					admitted++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()

	type row struct {
		KeyID    string `bun:"key_id"`
		Selector string `bun:"selector"`
		Used     int64  `bun:"used"`
	}
	var rows []row
	require.NoError(t, db.NewRaw("SELECT key_id, selector, used FROM limit_counters").Scan(ctx, &rows))
	caps := map[string]int64{"key_a *": 40, "key_b *": 50, "key_b runs.read": 30}
	handedOut := map[string]int64{}
	for _, r := range rows {
		k := r.KeyID + " " + r.Selector
		require.LessOrEqual(t, r.Used, caps[k], k)
		handedOut[k] += r.Used
	}
	require.Positive(t, admitted)
	for k, n := range handedOut {
		require.LessOrEqual(t, int64(admitted), n, k)
	}
	t.Logf("admitted %d; handed out %v over %d rows", admitted, handedOut, len(rows))
}
