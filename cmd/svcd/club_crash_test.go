package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/club"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/workflows"
)

// TestWorkerKilledMidClubRenewalChargesOnce subscribes an account to Club, ends its period and kills
// the svcd worker (SIGKILL) after the renewal's charge and before its record; another worker finishes
// the renewal: the account is charged for the period exactly once and club.renewed is emitted once.
func TestWorkerKilledMidClubRenewalChargesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true})
	dir := t.TempDir()
	first := startWorker(t, svcd, env, "", dir, "SVC_TEST_FAULT="+activities.FaultClubStallAfterCharge)

	key := env.FirstKey(t)
	do := func(method, path string, body any, idem string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: method, Path: path, Key: key, Body: body, Headers: map[string]string{"Idempotency-Key": idem}})
	}
	w := do(http.MethodPost, "/v1/wallets", map[string]any{"name": "main"}, "w")
	require.Equal(t, http.StatusCreated, w.Status, "%s", w.Raw)
	var acct string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM wallets WHERE id = ?", w.Body["wallet"].(map[string]any)["id"]).Scan(ctx, &acct))
	book := ledger.New(env.DB)
	before, err := book.Balance(ctx, acct)
	require.NoError(t, err)
	price := club.Price(club.PeriodMonth)
	require.NoError(t, book.Grant(ctx, env.DB, acct, 3*price, "club-crash-grant"))
	sub := do(http.MethodPost, "/v1/club/subscribe", map[string]any{"period": "month"}, "s")
	require.Equal(t, http.StatusOK, sub.Status, "%s", sub.Raw)
	balance := func() int64 {
		b, err := book.Balance(ctx, acct)
		require.NoError(t, err)
		return b.Available
	}
	require.Equal(t, before.Available+2*price, balance())

	wid := workflows.ClubWorkflowID(acct)
	_, err = env.DB.NewRaw("UPDATE club_subscriptions SET period_end = now() - interval '1 second' WHERE account_id = ?", acct).Exec(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return env.Temporal.SignalWorkflow(ctx, wid, "", workflows.ClubChangedSignal, nil) == nil
	}, 30*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		return balance() == before.Available+price && running(t, env, wid, workflows.ActivityRenewClub)
	}, 60*time.Second, 10*time.Millisecond, "the renewal never stalled after its charge; worker log:\n%s", first.log)
	first.kill(t)
	second := startWorker(t, svcd, env, "", dir)

	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, env.DB.NewRaw("SELECT period_number FROM club_subscriptions WHERE account_id = ?", acct).Scan(ctx, &n))
		return n == 2
	}, 90*time.Second, 100*time.Millisecond, "the renewal never finished; second worker log:\n%s", second.log)
	require.Equal(t, before.Available+price, balance(), "the renewal was charged once")
	var renewed, charges int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM events WHERE account_id = ? AND type = ?", acct, club.EventRenewed).Scan(ctx, &renewed))
	require.Equal(t, 1, renewed)
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM credit_holds WHERE account_id = ? AND reference LIKE 'club:%'", acct).Scan(ctx, &charges))
	require.Equal(t, 2, charges, "the subscription's first period and one renewal")
	got := do(http.MethodGet, "/v1/club", nil, "g")
	require.Equal(t, "club", got.Body["club"].(map[string]any)["tier"])
}
