package api_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/club"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/workflows"
)

// TestClubSubscribeRenewLapseCancel: Club needs a managed wallet and the credits; subscribing charges
// the period and sets the tier club; workflow club/<accountId> renews at the period's end (charged once,
// club.renewed) and lapses when the credits cannot pay (tier standard, club.lapsed); a new subscription
// cancelled ends at its period's end without a charge. With SVC_RECORD_HISTORIES=1 it records the
// workflow's histories for the replay test.
func TestClubSubscribeRenewLapseCancel(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	key := env.FirstKey(t)
	do := func(k, method, path string, body any, idem string) *apptest.Response {
		h := map[string]string{}
		if idem != "" {
			h["Idempotency-Key"] = idem
		}
		return env.Do(t, apptest.Req{Method: method, Path: path, Key: k, Body: body, Headers: h})
	}
	clubOf := func(r *apptest.Response) map[string]any { return r.Body["club"].(map[string]any) }

	none := do(key, http.MethodGet, "/v1/club", nil, "")
	require.Equal(t, http.StatusOK, none.Status, "%s", none.Raw)
	require.Equal(t, "none", clubOf(none)["status"])
	require.Equal(t, "standard", clubOf(none)["tier"])

	noWallet := do(key, http.MethodPost, "/v1/club/subscribe", map[string]any{"period": "month"}, "s0")
	require.Equal(t, http.StatusBadRequest, noWallet.Status, "%s", noWallet.Raw)
	require.Contains(t, errorOf(noWallet)["message"], "embedded wallet")
	badPeriod := do(key, http.MethodPost, "/v1/club/subscribe", map[string]any{"period": "week"}, "s00")
	require.Equal(t, http.StatusBadRequest, badPeriod.Status, "%s", badPeriod.Raw)

	w := do(key, http.MethodPost, "/v1/wallets", map[string]any{"name": "main"}, "w")
	require.Equal(t, http.StatusCreated, w.Status, "%s", w.Raw)
	acct := accountOfRow(t, env, "SELECT account_id FROM wallets WHERE id = ?", w.Body["wallet"].(map[string]any)["id"])
	book := ledger.New(env.DB)
	start, err := book.Balance(ctx, acct)
	require.NoError(t, err)

	poor := do(key, http.MethodPost, "/v1/club/subscribe", map[string]any{"period": "month"}, "s1")
	if start.Available < club.Price(club.PeriodMonth) {
		require.Equal(t, http.StatusPaymentRequired, poor.Status, "%s", poor.Raw)
	}
	require.NoError(t, book.Grant(ctx, env.DB, acct, 2*club.Price(club.PeriodMonth)+500_000-start.Available, "club-test-grant"))

	sub := do(key, http.MethodPost, "/v1/club/subscribe", map[string]any{"period": "month"}, "s2")
	require.Equal(t, http.StatusOK, sub.Status, "%s", sub.Raw)
	c := clubOf(sub)
	require.Equal(t, "active", c["status"])
	require.Equal(t, "club", c["tier"])
	require.Equal(t, true, c["member"])
	require.Equal(t, "2000", c["priceCredits"])
	renewsAt, err := time.Parse(time.RFC3339, c["renewsAt"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().AddDate(0, 1, 0), renewsAt, time.Minute)
	balance := func() int64 {
		b, err := book.Balance(ctx, acct)
		require.NoError(t, err)
		return b.Available
	}
	require.Equal(t, club.Price(club.PeriodMonth)+500_000, balance())
	again := do(key, http.MethodPost, "/v1/club/subscribe", map[string]any{"period": "year"}, "s3")
	require.Equal(t, http.StatusConflict, again.Status, "%s", again.Raw)
	replay := do(key, http.MethodPost, "/v1/club/subscribe", map[string]any{"period": "month"}, "s2")
	require.Equal(t, http.StatusOK, replay.Status)
	require.Equal(t, club.Price(club.PeriodMonth)+500_000, balance(), "a retried subscribe charges nothing more")

	other := env.FirstKey(t)
	require.Equal(t, "none", clubOf(do(other, http.MethodGet, "/v1/club", nil, ""))["status"])

	// The period ends (moved to the past), the workflow is woken: renewed once, then it sleeps again.
	endPeriod := func() {
		_, err := env.DB.NewRaw("UPDATE club_subscriptions SET period_end = now() - interval '1 second' WHERE account_id = ?", acct).Exec(ctx)
		require.NoError(t, err)
		require.NoError(t, env.Temporal.SignalWorkflow(ctx, workflows.ClubWorkflowID(acct), "", workflows.ClubChangedSignal, nil))
	}
	periodNumber := func() int {
		var n int
		require.NoError(t, env.DB.NewRaw("SELECT period_number FROM club_subscriptions WHERE account_id = ?", acct).Scan(ctx, &n))
		return n
	}
	endPeriod()
	require.Eventually(t, func() bool { return periodNumber() == 2 }, 20*time.Second, 20*time.Millisecond)
	require.Equal(t, int64(500_000), balance())
	events := func(typ string) int {
		var n int
		require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM events WHERE account_id = ? AND type = ?", acct, typ).Scan(ctx, &n))
		return n
	}
	require.Equal(t, 1, events(club.EventRenewed))

	// The next renewal cannot be paid: lapsed, standard, club.lapsed; the workflow ends.
	endPeriod()
	require.Eventually(t, func() bool { return workflowClosed(env, workflows.ClubWorkflowID(acct)) }, 20*time.Second, 20*time.Millisecond)
	lapsed := clubOf(do(key, http.MethodGet, "/v1/club", nil, ""))
	require.Equal(t, "lapsed", lapsed["status"])
	require.Equal(t, "standard", lapsed["tier"])
	require.Equal(t, 1, events(club.EventLapsed))
	require.Equal(t, int64(500_000), balance())
	record := os.Getenv("SVC_RECORD_HISTORIES") == "1"
	testdata := filepath.Join("..", "workflows", "testdata")
	if record {
		writeHistory(t, env, workflows.ClubWorkflowID(acct), filepath.Join(testdata, "club_lapsed.json"))
	}

	// A new subscription, cancelled: it ends at its period's end, charging nothing more.
	require.NoError(t, book.Grant(ctx, env.DB, acct, club.Price(club.PeriodMonth), "club-test-grant-2"))
	sub2 := do(key, http.MethodPost, "/v1/club/subscribe", map[string]any{"period": "month"}, "s4")
	require.Equal(t, http.StatusOK, sub2.Status, "%s", sub2.Raw)
	require.Equal(t, "club", clubOf(sub2)["tier"])
	cancelled := do(key, http.MethodPost, "/v1/club/cancel", nil, "c1")
	require.Equal(t, http.StatusOK, cancelled.Status, "%s", cancelled.Raw)
	require.Equal(t, "cancelled", clubOf(cancelled)["status"])
	require.NotNil(t, clubOf(cancelled)["endsAt"])
	require.Equal(t, "club", clubOf(cancelled)["tier"], "a cancelled member stays club until the period's end")
	require.Equal(t, http.StatusNotFound, do(other, http.MethodPost, "/v1/club/cancel", nil, "c2").Status)
	endPeriod()
	require.Eventually(t, func() bool { return workflowClosed(env, workflows.ClubWorkflowID(acct)) }, 20*time.Second, 20*time.Millisecond)
	ended := clubOf(do(key, http.MethodGet, "/v1/club", nil, ""))
	require.Equal(t, "ended", ended["status"])
	require.Equal(t, "standard", ended["tier"])
	require.Equal(t, int64(500_000), balance())
	if record {
		writeHistory(t, env, workflows.ClubWorkflowID(acct), filepath.Join(testdata, "club_ended.json"))
	}
}

// TestCreditsAutoTopUpSetting: enable with below < target, refusals naming the field, disable keeps the
// thresholds; another account sees its own (disabled) setting.
func TestCreditsAutoTopUpSetting(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	key := env.FirstKey(t)
	put := func(k string, body map[string]any, idem string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPut, Path: "/v1/credits/auto-topup", Key: k, Body: body,
			Headers: map[string]string{"Idempotency-Key": idem}})
	}
	get := func(k string) map[string]any {
		r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/auto-topup", Key: k})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		return r.Body["autoTopUp"].(map[string]any)
	}
	require.Equal(t, false, get(key)["enabled"])
	for i, c := range []struct {
		body  map[string]any
		param string
	}{
		{map[string]any{"enabled": true, "target": 100}, "below"},
		{map[string]any{"enabled": true, "below": 10}, "target"},
		{map[string]any{"enabled": true, "below": 100, "target": 100}, "target"},
		{map[string]any{"enabled": true, "below": -1, "target": 100}, "below"},
	} {
		r := put(key, c.body, fmt.Sprintf("bad-%d", i))
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Raw)
		require.Equal(t, c.param, errorOf(r)["param"], "%s", r.Raw)
	}
	on := put(key, map[string]any{"enabled": true, "below": 50, "target": 500}, "on")
	require.Equal(t, http.StatusOK, on.Status, "%s", on.Raw)
	got := get(key)
	require.Equal(t, true, got["enabled"])
	require.EqualValues(t, 50, got["below"])
	require.EqualValues(t, 500, got["target"])
	off := put(key, map[string]any{"enabled": false}, "off")
	require.Equal(t, http.StatusOK, off.Status, "%s", off.Raw)
	got = get(key)
	require.Equal(t, false, got["enabled"])
	require.EqualValues(t, 500, got["target"])
	require.Equal(t, false, get(env.FirstKey(t))["enabled"])
}
