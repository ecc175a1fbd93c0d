package api_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/workflows"
)

// twapSell is a twap sell of amount ETH for USDC from w in slices over duration.
func twapSell(w client.Wallet, amount string, slices int, duration string) client.CreateOrderRequest {
	return client.CreateOrderRequest{Type: client.OrderTypeTWAP, WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC",
		Amount: amount, AmountKind: client.AmountExactIn, Slices: slices, Duration: duration}
}

// waitProgress polls the parent order until done says its progress is reached.
func waitProgress(t *testing.T, c *client.Client, id string, done func(client.TradingOrder) bool) client.TradingOrder {
	t.Helper()
	var last client.TradingOrder
	require.Eventually(t, func() bool {
		r := c.Order(context.Background(), id)
		require.True(t, r.OK, "%v", r.Error)
		last = r.Body.Order
		return last.Progress != nil && done(last)
	}, 30*time.Second, 100*time.Millisecond, "order %s never got there (last %+v)", id, last)
	return last
}

// dcaFire fires dca order id's schedule once now.
func dcaFire(env *apptest.Env, id string) error {
	return env.Temporal.ScheduleClient().GetHandle(context.Background(), workflows.DcaScheduleID(id)).Trigger(context.Background(),
		sdkclient.ScheduleTriggerOptions{Overlap: enums.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL})
}

// dcaFiresClosed counts the fires of dca order id's schedule whose workflows have closed.
func dcaFiresClosed(t *testing.T, env *apptest.Env, id string) int {
	t.Helper()
	d, err := env.Temporal.ScheduleClient().GetHandle(context.Background(), workflows.DcaScheduleID(id)).Describe(context.Background())
	require.NoError(t, err)
	n := 0
	for _, a := range d.Info.RecentActions {
		if a.StartWorkflowResult != nil && workflowClosed(env, a.StartWorkflowResult.WorkflowID) {
			n++
		}
	}
	return n
}

// TestTradingTwapPlacesSlicesAtTheSpacing: a twap sell of 0.04 ETH in 4 slices over 8 s places 4 child
// market orders of 0.01 ETH, each its own swap, 2 s apart (the first at once), each carrying its
// parent's id and index; the parent reads filled with 4 of 4 slices filled, their average price, 0.04
// ETH filled and none remaining; the fee is charged once per slice; the parent and its children are
// listed; another account's parent is 404.
func TestTradingTwapPlacesSlicesAtTheSpacing(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c, other := tradingAccount(t, env, "trader"), tradingAccount(t, env, "other")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "trader", 1, 0)
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)

	placed := c.PlaceOrder(ctx, twapSell(w, "0.04", 4, "8s"))
	require.True(t, placed.OK, "%v", placed.Error)
	require.Equal(t, http.StatusAccepted, placed.StatusCode)
	p := placed.Body.Order
	require.Equal(t, client.OrderTypeTWAP, p.Type)
	require.Equal(t, "8s", p.Duration)
	require.Equal(t, 4, p.Slices)
	require.Equal(t, "order/"+p.ID, p.WorkflowID)
	require.Equal(t, http.StatusNotFound, other.Order(ctx, p.ID).StatusCode)

	done := waitOrder(t, c, p.ID)
	require.Equal(t, client.OrderFilled, done.Status, "%+v", done.Error)
	pr := done.Progress
	require.NotNil(t, pr)
	require.Equal(t, client.OrderProgress{SlicesTotal: 4, SlicesPlaced: 4, SlicesFilled: 4, AveragePrice: pr.AveragePrice, AmountFilled: "0.04",
		AmountRemaining: "0", ChildOrderIDs: pr.ChildOrderIDs}, *pr)
	require.NotEmpty(t, pr.AveragePrice)
	require.Len(t, pr.ChildOrderIDs, 4)
	hashes := map[string]bool{}
	var at []time.Time
	for i, id := range pr.ChildOrderIDs {
		ch := c.Order(ctx, id)
		require.True(t, ch.OK, "%v", ch.Error)
		o := ch.Body.Order
		require.Equal(t, client.OrderFilled, o.Status, "%+v", o.Error)
		require.Equal(t, p.ID, *o.ParentOrderID)
		require.Equal(t, i, *o.SliceIndex)
		require.Equal(t, "0.01", o.AmountIn)
		require.Len(t, o.TxHashes, 1)
		hashes[o.TxHashes[0]] = true
		at = append(at, o.CreatedAt)
	}
	require.Len(t, hashes, 4, "four swaps")
	for i := 1; i < 4; i++ {
		// The slices keep to a schedule from the workflow's start, which follows the parent's record: slice
		// i is never placed before start + i × 2 s (the first one's own latency does not push the rest).
		require.GreaterOrEqual(t, at[i].Sub(p.CreatedAt), time.Duration(i)*2*time.Second, "slice %d is placed %d × 2 s after the order's start", i, i)
	}
	require.Less(t, at[0].Sub(p.CreatedAt), 2*time.Second, "the first slice is placed at once")
	mined, err := rpc.NonceAt(ctx, common.HexToAddress(w.Address), nil)
	require.NoError(t, err)
	require.EqualValues(t, 4, mined, "four transactions left the wallet")

	bal := c.Balance(ctx)
	require.Equal(t, 96.0, bal.Body.Balance.Credits, "one fee per filled slice")
	require.Zero(t, bal.Body.Balance.HeldCredits)
	require.Equal(t, 4.0, done.FeeCredits)
	list := c.Orders(ctx, client.OrderFilter{})
	require.True(t, list.OK, "%v", list.Error)
	require.Len(t, list.Body.Orders, 5, "the parent and its four children")
	for _, o := range list.Body.Orders {
		if o.ID == p.ID {
			require.NotNil(t, o.Progress)
			require.Equal(t, 4, o.Progress.SlicesFilled)
		}
	}

	// Operators find the slices' workflows by the account, like the parent's.
	var accountID string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM trading_orders WHERE id = ?", p.ID).Scan(ctx, &accountID))
	require.Eventually(t, func() bool {
		resp, err := env.Temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
			Query: fmt.Sprintf("SvcAccountId = %q AND WorkflowType = %q", accountID, workflows.OrderWorkflowName)})
		require.NoError(t, err)
		return resp.GetCount() == 4
	}, 10*time.Second, 20*time.Millisecond, "the four slices' order workflows carry the account")
}

// TestTradingTwapCancelKeepsFilledSlices: a twap of 4 slices 4 s apart, cancelled once its first slice
// has filled, places no more: it reads cancelled with its filled slices recorded and counted, the rest
// of its amount remaining; a second cancel answers it cancelled; only filled slices are charged.
func TestTradingTwapCancelKeepsFilledSlices(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c, other := tradingAccount(t, env, "trader"), tradingAccount(t, env, "other")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "trader", 1, 0)

	placed := c.PlaceOrder(ctx, twapSell(w, "0.04", 4, "16s"))
	require.True(t, placed.OK, "%v", placed.Error)
	id := placed.Body.Order.ID
	waitProgress(t, c, id, func(o client.TradingOrder) bool { return o.Progress.SlicesFilled >= 1 })
	require.Equal(t, http.StatusNotFound, other.CancelOrder(ctx, id).StatusCode)
	cr := c.CancelOrder(ctx, id)
	require.Equal(t, http.StatusAccepted, cr.StatusCode, "%s", cr.Raw)
	done := waitOrder(t, c, id)
	require.Equal(t, client.OrderCancelled, done.Status)
	pr := done.Progress
	require.GreaterOrEqual(t, pr.SlicesFilled, 1)
	require.Less(t, pr.SlicesPlaced, 4, "no slice after the cancel")
	require.Equal(t, pr.SlicesPlaced, pr.SlicesFilled)
	require.NotEqual(t, "0", pr.AmountRemaining)
	for _, ch := range pr.ChildOrderIDs {
		require.Equal(t, client.OrderFilled, c.Order(ctx, ch).Body.Order.Status, "a filled slice stays filled")
	}
	again := c.CancelOrder(ctx, id)
	require.Equal(t, client.OrderCancelled, again.Body.Order.Status, "%s", again.Raw)
	bal := c.Balance(ctx)
	require.Equal(t, 100.0-float64(pr.SlicesFilled), bal.Body.Balance.Credits)
	require.Len(t, c.Orders(ctx, client.OrderFilter{}).Body.Orders, 1+pr.SlicesPlaced, "the workflow has ended: nothing more is placed")
}

// TestTradingParentOrdersBadInputIsNamed: twap and dca fields out of range, missing or on the wrong
// type are 400s naming their field; a twap whose whole value is over the wallet's per-transaction limit
// is the policy's 403 and records nothing.
func TestTradingParentOrdersBadInputIsNamed(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c := tradingAccount(t, env, "trader")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "trader", 1, 0)
	twap := twapSell(w, "0.04", 4, "8s")
	dca := client.CreateOrderRequest{Type: client.OrderTypeDCA, WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC",
		AmountPerSlice: "0.01", AmountKind: client.AmountExactIn, Slices: 3, Every: "1h"}
	for _, tc := range []struct {
		base  client.CreateOrderRequest
		edit  func(*client.CreateOrderRequest)
		param string
	}{
		{twap, func(r *client.CreateOrderRequest) { r.Slices = 0 }, "slices"},
		{twap, func(r *client.CreateOrderRequest) { r.Slices = 101 }, "slices"},
		{twap, func(r *client.CreateOrderRequest) { r.Duration = "" }, "duration"},
		{twap, func(r *client.CreateOrderRequest) { r.Duration = "soon" }, "duration"},
		{twap, func(r *client.CreateOrderRequest) { r.Duration = "3s" }, "duration"},
		{twap, func(r *client.CreateOrderRequest) { r.Duration = "169h" }, "duration"},
		{twap, func(r *client.CreateOrderRequest) { r.Amount = "0" }, "amount"},
		{twap, func(r *client.CreateOrderRequest) { r.Every = "1h" }, "every"},
		{twap, func(r *client.CreateOrderRequest) { r.QuoteID = "quo_x" }, "quoteId"},
		{twap, func(r *client.CreateOrderRequest) { r.LimitPrice = "3000" }, "limitPrice"},
		{dca, func(r *client.CreateOrderRequest) { r.Every = "" }, "every"},
		{dca, func(r *client.CreateOrderRequest) { r.Every = "30s" }, "every"},
		{dca, func(r *client.CreateOrderRequest) { r.Every = "61 * * * *" }, "every"},
		{dca, func(r *client.CreateOrderRequest) { r.AmountPerSlice = "" }, "amountPerSlice"},
		{dca, func(r *client.CreateOrderRequest) { r.AmountPerSlice = "-1" }, "amountPerSlice"},
		{dca, func(r *client.CreateOrderRequest) { r.Amount = "0.03" }, "amount"},
		{dca, func(r *client.CreateOrderRequest) { r.Duration = "1h" }, "duration"},
		{dca, func(r *client.CreateOrderRequest) { r.Slices = 101 }, "slices"},
		{twap, func(r *client.CreateOrderRequest) { r.Type = client.OrderTypeMarket }, "duration"},
	} {
		r := tc.base
		tc.edit(&r)
		got := c.PlaceOrder(ctx, r)
		require.Equal(t, http.StatusBadRequest, got.StatusCode, "%+v: %s", r, got.Raw)
		require.Equal(t, tc.param, got.Error.Param, "%s", got.Raw)
	}
	over := c.PlaceOrder(ctx, twapSell(w, "0.5", 10, "10m"))
	require.Equal(t, http.StatusForbidden, over.StatusCode, "1,500 USD in all is over the per-transaction limit: %s", over.Raw)
	require.Empty(t, c.Orders(ctx, client.OrderFilter{}).Body.Orders, "a refused order is not recorded")
}

// TestTradingDcaPausesAndResumes: a dca of 3 slices every hour is open with its next fire an hour out;
// a fire of its schedule places one child order that fills; paused, a fire places nothing; resumed, the
// next fires place the rest and the order reads filled with its three slices; a dca's cancel after
// one slice keeps it and deletes the schedule; pause of a market order is a 409; another account's is
// 404.
func TestTradingDcaPausesAndResumes(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c, other := tradingAccount(t, env, "trader"), tradingAccount(t, env, "other")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "trader", 1, 0)
	dca := client.CreateOrderRequest{Type: client.OrderTypeDCA, WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC",
		AmountPerSlice: "0.01", AmountKind: client.AmountExactIn, Slices: 3, Every: "1h"}
	placed := c.PlaceOrder(ctx, dca)
	require.True(t, placed.OK, "%v", placed.Error)
	p := placed.Body.Order
	require.Equal(t, "1h", p.Every)
	require.Equal(t, "0.01", p.AmountPerSlice)
	require.Equal(t, "0.03", p.AmountIn)
	got := c.Order(ctx, p.ID).Body.Order
	require.NotNil(t, got.Progress.NextFireAt)
	require.WithinDuration(t, p.CreatedAt.Add(time.Hour), *got.Progress.NextFireAt, 2*time.Second, "an hour after the order, not on the hour")
	sched := env.Temporal.ScheduleClient().GetHandle(ctx, workflows.DcaScheduleID(p.ID))
	fire := func() {
		t.Helper()
		require.NoError(t, dcaFire(env, p.ID))
	}

	fire()
	waitProgress(t, c, p.ID, func(o client.TradingOrder) bool { return o.Progress.SlicesFilled == 1 })
	require.Equal(t, http.StatusNotFound, other.PauseOrder(ctx, p.ID).StatusCode)
	paused := c.PauseOrder(ctx, p.ID)
	require.True(t, paused.OK, "%v", paused.Error)
	require.True(t, paused.Body.Order.Progress.Paused)
	require.Nil(t, paused.Body.Order.Progress.NextFireAt)
	fire()
	// The paused fire runs and places nothing: its workflow ends without a slice.
	require.Eventually(t, func() bool { return dcaFiresClosed(t, env, p.ID) == 2 }, 30*time.Second, 50*time.Millisecond)
	require.Equal(t, 1, c.Order(ctx, p.ID).Body.Order.Progress.SlicesPlaced, "no slice while paused")

	resumed := c.ResumeOrder(ctx, p.ID)
	require.True(t, resumed.OK, "%v", resumed.Error)
	require.False(t, resumed.Body.Order.Progress.Paused)
	fire()
	waitProgress(t, c, p.ID, func(o client.TradingOrder) bool { return o.Progress.SlicesFilled == 2 })
	fire()
	done := waitOrder(t, c, p.ID)
	require.Equal(t, client.OrderFilled, done.Status, "%+v", done.Error)
	require.Equal(t, 3, done.Progress.SlicesFilled)
	require.Equal(t, "0.03", done.Progress.AmountFilled)
	require.Equal(t, "0", done.Progress.AmountRemaining)
	_, err := sched.Describe(ctx)
	require.Error(t, err, "the schedule is deleted once every slice is placed")
	require.Equal(t, http.StatusConflict, c.PauseOrder(ctx, p.ID).StatusCode, "an ended dca order cannot be paused")
	require.Equal(t, http.StatusConflict, c.PauseOrder(ctx, done.Progress.ChildOrderIDs[0]).StatusCode, "a market order has no schedule")
}

// TestTradingDcaCancelKeepsFilledSlices: a dca cancelled after one filled slice reads cancelled at once
// with that slice kept; its schedule is gone, so nothing more is placed.
func TestTradingDcaCancelKeepsFilledSlices(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c := tradingAccount(t, env, "trader")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "trader", 1, 0)
	placed := c.PlaceOrder(ctx, client.CreateOrderRequest{Type: client.OrderTypeDCA, WalletID: w.ID, Side: client.SideSell, Base: "ETH",
		Quote: "USDC", AmountPerSlice: "0.01", AmountKind: client.AmountExactIn, Slices: 5, Every: "0 9 * * 1"})
	require.True(t, placed.OK, "%v", placed.Error)
	id := placed.Body.Order.ID
	require.NoError(t, dcaFire(env, id))
	waitProgress(t, c, id, func(o client.TradingOrder) bool { return o.Progress.SlicesFilled == 1 })
	cr := c.CancelOrder(ctx, id)
	require.Equal(t, http.StatusAccepted, cr.StatusCode, "%s", cr.Raw)
	require.Equal(t, client.OrderCancelled, cr.Body.Order.Status)
	require.Equal(t, 1, cr.Body.Order.Progress.SlicesFilled)
	require.Equal(t, "0.04", cr.Body.Order.Progress.AmountRemaining)
	require.Error(t, dcaFire(env, id), "the schedule is deleted")
	require.Equal(t, 99.0, c.Balance(ctx).Body.Balance.Credits)
}

// TestRecordParentOrderHistories re-records workflows/testdata/order_twap_filled.json (a twap of 2
// slices over 2 s: slices placed on a timer, each a child order, the parent's end) and
// order_dca_fire.json (one fire of a dca order's schedule placing its slice) with SVC_RECORD_HISTORIES=1.
func TestRecordParentOrderHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c := tradingAccount(t, env, "recorded")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "recorded", 0.1, 0)
	twap := c.PlaceOrder(ctx, twapSell(w, "0.02", 2, "2s"))
	require.True(t, twap.OK, "%v", twap.Error)
	require.Equal(t, client.OrderFilled, waitOrder(t, c, twap.Body.Order.ID).Status)
	id := workflows.OrderWorkflowID(twap.Body.Order.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 30*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join("..", "workflows", "testdata", "order_twap_filled.json"))

	dca := c.PlaceOrder(ctx, client.CreateOrderRequest{Type: client.OrderTypeDCA, WalletID: w.ID, Side: client.SideSell, Base: "ETH",
		Quote: "USDC", AmountPerSlice: "0.01", AmountKind: client.AmountExactIn, Slices: 2, Every: "1h"})
	require.True(t, dca.OK, "%v", dca.Error)
	require.NoError(t, dcaFire(env, dca.Body.Order.ID))
	require.Eventually(t, func() bool { return dcaFiresClosed(t, env, dca.Body.Order.ID) == 1 }, 30*time.Second, 20*time.Millisecond)
	d, err := env.Temporal.ScheduleClient().GetHandle(ctx, workflows.DcaScheduleID(dca.Body.Order.ID)).Describe(ctx)
	require.NoError(t, err)
	writeHistory(t, env, d.Info.RecentActions[0].StartWorkflowResult.WorkflowID, filepath.Join("..", "workflows", "testdata", "order_dca_fire.json"))
}

// TestTradingTwapSlicesCountAgainstTheDailyLimit: a twap whose whole value (about 120 USD) is over the
// wallet's daily limit (70 USD) but within its per-transaction limit is placed; its slices (about 30 USD
// each) count against the daily limit as they are placed: two fill, the next two are refused by the
// policy and recorded failed (reason policy, not charged); the order ends filled with 2 of 4 slices.
func TestTradingTwapSlicesCountAgainstTheDailyLimit(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c := tradingAccount(t, env, "trader")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "trader", 1, 0)
	pol := c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{PerTransactionLimitUSD: client.USD(500), DailyLimitUSD: client.USD(70),
		ApprovalAboveUSD: client.USD(500)})
	require.True(t, pol.OK, "%v", pol.Error)

	placed := c.PlaceOrder(ctx, twapSell(w, "0.04", 4, "4s"))
	require.True(t, placed.OK, "the daily limit is judged slice by slice: %v", placed.Error)
	done := waitOrder(t, c, placed.Body.Order.ID)
	require.Equal(t, client.OrderFilled, done.Status, "%+v", done.Error)
	require.Equal(t, 2, done.Progress.SlicesFilled)
	require.Equal(t, 2, done.Progress.SlicesFailed)
	require.Equal(t, "0.02", done.Progress.AmountFilled)
	require.Equal(t, "0.02", done.Progress.AmountRemaining)
	for _, id := range done.Progress.ChildOrderIDs[2:] {
		o := c.Order(ctx, id).Body.Order
		require.Equal(t, client.OrderFailed, o.Status)
		require.Equal(t, client.OrderReasonPolicy, o.FailureReason)
		require.Contains(t, o.Error.Message, "dailyLimitUsd")
		require.Empty(t, o.TxHashes, "a refused slice sends nothing")
	}
	bal := c.Balance(ctx)
	require.Equal(t, 98.0, bal.Body.Balance.Credits, "only the filled slices are charged")
	require.Zero(t, bal.Body.Balance.HeldCredits, "the refused slices' holds are released")
}

// TestTradingParentNeedsCreditsForASlice: an account whose balance cannot pay one slice's trading fee
// cannot place a twap or a dca (402 naming the fee and the balance); nothing is recorded.
func TestTradingParentNeedsCreditsForASlice(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	created, err := env.Accounts.Create(context.Background(), "broke", 0, 0)
	require.NoError(t, err)
	resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": created.CreditToken, "Idempotency-Key": "first-key"}})
	require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(resp.Body["apiKey"].(map[string]any)["secret"].(string)))
	ctx := context.Background()
	w := tradingWallet(t, env, c, "broke", 1, 0)

	for _, req := range []client.CreateOrderRequest{twapSell(w, "0.04", 4, "8s"),
		{Type: client.OrderTypeDCA, WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC", AmountPerSlice: "0.01",
			AmountKind: client.AmountExactIn, Slices: 4, Every: "1h"}} {
		placed := c.PlaceOrder(ctx, req)
		require.Equal(t, http.StatusPaymentRequired, placed.StatusCode, "%s: %v", req.Type, placed.Error)
		require.Equal(t, client.CodeInsufficientCredits, placed.Error.Code)
		require.Contains(t, placed.Error.Message, "trading fee of 1 credits")
	}
	list := c.Orders(ctx, client.OrderFilter{})
	require.True(t, list.OK, "%v", list.Error)
	require.Empty(t, list.Body.Orders, "nothing recorded")
}
