package api_test

import (
	"context"
	"encoding/base64"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/workflows"
)

// tradingAccount is an account with credits (orders hold their fee) and its first key's SDK.
func tradingAccount(t *testing.T, env *apptest.Env, name string) *client.Client {
	t.Helper()
	c, _ := tradingTenant(t, env, name)
	return c
}

// tradingTenant is tradingAccount with the account and its first key.
func tradingTenant(t *testing.T, env *apptest.Env, name string) (*client.Client, dbTenant) {
	t.Helper()
	created, err := env.Accounts.Create(context.Background(), name, 100, 0)
	require.NoError(t, err)
	resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": created.CreditToken, "Idempotency-Key": "first-key"}})
	require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
	key := resp.Body["apiKey"].(map[string]any)["secret"].(string)
	return client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key)), dbTenant{id: created.AccountID, key: key}
}

// tradingWallet creates a wallet funded with eth and usdc from the dev faucet.
func tradingWallet(t *testing.T, env *apptest.Env, c *client.Client, name string, eth, usdc float64) client.Wallet {
	t.Helper()
	r := c.CreateWallet(context.Background(), client.CreateWalletRequest{Name: name})
	require.True(t, r.OK, "%v", r.Error)
	if eth == 0 && usdc == 0 {
		return r.Body.Wallet
	}
	f := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": r.Body.Wallet.Address, "usdc": usdc, "eth": eth}})
	require.Equal(t, http.StatusOK, f.Status, "%s", f.Raw)
	return r.Body.Wallet
}

// waitOrder polls GET /v1/trading/orders/{id} until the order has ended.
func waitOrder(t *testing.T, c *client.Client, id string) client.TradingOrder {
	t.Helper()
	var last client.TradingOrder
	require.Eventually(t, func() bool {
		r := c.Order(context.Background(), id)
		require.True(t, r.OK, "%v", r.Error)
		if r.Body.Order.Status != last.Status {
			t.Logf("order %s: %s", id, r.Body.Order.Status)
		}
		last = r.Body.Order
		switch last.Status {
		case client.OrderFilled, client.OrderFailed, client.OrderCancelled, client.OrderExpired:
			return true
		}
		return false
	}, 30*time.Second, 100*time.Millisecond, "order %s never ended (last %+v)", id, last)
	return last
}

// tokenBalance reads an ERC-20 balance on the dev chain.
func tokenBalance(t *testing.T, rpc *ethclient.Client, token common.Address, owner string) *big.Int {
	t.Helper()
	tok := launch.NewLaunchToken()
	v, err := tok.UnpackBalanceOf(ethCall(t, rpc, token, tok.PackBalanceOf(common.HexToAddress(owner))))
	require.NoError(t, err)
	return v
}

func weiBalance(t *testing.T, rpc *ethclient.Client, owner string) *big.Int {
	t.Helper()
	v, err := rpc.BalanceAt(context.Background(), common.HexToAddress(owner), nil)
	require.NoError(t, err)
	return v
}

func units(t *testing.T, s string, decimals int) *big.Int {
	t.Helper()
	v, err := evm.ParseUnits(s, decimals)
	require.NoError(t, err)
	return v
}

// TestTradingQuoteThenOrderFills: an order over the wallet's per-transaction limit is refused and not
// recorded; a quote of 0.05 ETH for USDC (under the screening's first-recipient approval) states its block, bound, price, LP fee
// and the policy's verdict; the order placed from it fills through workflow order/<id> within the bound:
// the wallet holds exactly the filled USDC and paid 0.05 ETH plus the recorded gas; an order paying USDC
// (a full body, routed USDC→WETH→DEV) approves the router first and records one fill per pool; the
// fee is charged once per filled order; another account's order is 404; the list filters by status and
// pair.
func TestTradingQuoteThenOrderFills(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c, other := tradingAccount(t, env, "trader"), tradingAccount(t, env, "other")
	ctx := context.Background()
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)
	w := tradingWallet(t, env, c, "trader", 2, 500)

	slip := 100
	qr := c.QuoteTrade(ctx, client.TradingQuoteRequest{WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC", Amount: "0.05",
		AmountKind: client.AmountExactIn, SlippageBps: &slip})
	require.True(t, qr.OK, "%v", qr.Error)
	q := qr.Body.Quote
	require.Equal(t, "0.05", q.AmountIn)
	require.Equal(t, []string{devchain.WETHAddress.Hex(), devchain.USDCAddress.Hex()}, q.Path)
	require.Positive(t, q.Block)
	require.Equal(t, 30, q.Fee.LPFeeBps)
	require.Equal(t, "0.00015", q.Fee.LPFee)
	require.Equal(t, 1.0, q.Fee.TradingFeeCredits)
	require.Equal(t, "allowed", q.Verdict.Decision)
	require.NotNil(t, q.USDValue)
	usdcOut, err := strconv.ParseFloat(q.AmountOut, 64)
	require.NoError(t, err)
	require.InDelta(t, usdcOut, *q.USDValue, 0.01, "valued at its USDC leg")
	out, minOut := units(t, q.AmountOut, 6), units(t, q.MinimumReceived, 6)
	require.Equal(t, new(big.Int).Div(new(big.Int).Mul(out, big.NewInt(9900)), big.NewInt(10_000)), minOut)
	require.WithinDuration(t, time.Now().Add(30*time.Second), q.ExpiresAt, 5*time.Second)

	over := c.PlaceOrder(ctx, client.CreateOrderRequest{WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC", Amount: "0.5",
		AmountKind: client.AmountExactIn})
	require.Equal(t, http.StatusForbidden, over.StatusCode, "1,500 USD is over the default per-transaction limit: %s", over.Raw)
	require.Empty(t, c.Orders(ctx, client.OrderFilter{}).Body.Orders, "a refused order is not recorded")

	ethBefore, usdcBefore := weiBalance(t, rpc, w.Address), tokenBalance(t, rpc, devchain.USDCAddress, w.Address)
	placed := c.PlaceOrder(ctx, client.CreateOrderRequest{QuoteID: q.ID})
	require.True(t, placed.OK, "%v", placed.Error)
	require.Equal(t, http.StatusAccepted, placed.StatusCode)
	require.Equal(t, "order/"+placed.Body.Order.ID, placed.Body.Order.WorkflowID)
	o := waitOrder(t, c, placed.Body.Order.ID)
	require.Equal(t, client.OrderFilled, o.Status, "%+v", o.Error)
	require.Len(t, o.Fills, 1)
	require.Len(t, o.TxHashes, 1)
	filled := units(t, o.FilledOut, 6)
	require.GreaterOrEqual(t, filled.Cmp(minOut), 0, "filled within the bound")
	require.Equal(t, out, filled, "nothing moved the pool: the quoted amount")
	require.Equal(t, new(big.Int).Add(usdcBefore, filled), tokenBalance(t, rpc, devchain.USDCAddress, w.Address))
	gas, _ := new(big.Int).SetString(o.GasWei, 10)
	require.Positive(t, gas.Sign())
	spent := new(big.Int).Add(units(t, "0.05", 18), gas)
	require.Equal(t, new(big.Int).Sub(ethBefore, spent), weiBalance(t, rpc, w.Address))

	devBefore := tokenBalance(t, rpc, devchain.DevTokenAddress, w.Address)
	usdcNow := tokenBalance(t, rpc, devchain.USDCAddress, w.Address)
	second := c.PlaceOrder(ctx, client.CreateOrderRequest{WalletID: w.ID, Side: client.SideBuy, Base: "DEV", Quote: "USDC", Amount: "100",
		AmountKind: client.AmountExactIn})
	require.True(t, second.OK, "%v", second.Error)
	require.NotNil(t, second.Body.Order.ApproveTransactionID, "a fresh wallet has no allowance: the router is approved first")
	o2 := waitOrder(t, c, second.Body.Order.ID)
	require.Equal(t, client.OrderFilled, o2.Status, "%+v", o2.Error)
	require.Len(t, o2.Fills, 2, "USDC→WETH→DEV: one fill per pool")
	require.Equal(t, new(big.Int).Sub(usdcNow, units(t, "100", 6)), tokenBalance(t, rpc, devchain.USDCAddress, w.Address))
	require.Equal(t, new(big.Int).Add(devBefore, units(t, o2.FilledOut, 18)), tokenBalance(t, rpc, devchain.DevTokenAddress, w.Address))

	bal := c.Balance(ctx)
	require.True(t, bal.OK, "%v", bal.Error)
	require.Equal(t, 98.0, bal.Body.Balance.Credits, "one credit per filled order, charged once")
	require.Zero(t, bal.Body.Balance.HeldCredits)

	require.Equal(t, http.StatusNotFound, other.Order(ctx, o.ID).StatusCode)
	require.Equal(t, http.StatusNotFound, other.PlaceOrder(ctx, client.CreateOrderRequest{QuoteID: q.ID}).StatusCode)
	list := c.Orders(ctx, client.OrderFilter{Status: client.OrderFilled, Pair: "ETH/USDC"})
	require.True(t, list.OK, "%v", list.Error)
	require.Len(t, list.Body.Orders, 1)
	require.Equal(t, o.ID, list.Body.Orders[0].ID)
	require.Empty(t, other.Orders(ctx, client.OrderFilter{}).Body.Orders)
}

// TestTradingSlippageFailsAndMovesNothing: a pool moved between the quote and the order beyond the
// quote's slippage fails the order with reason slippage before anything is broadcast: the wallet's ETH
// and DEV are unchanged, and its fee is not charged.
func TestTradingSlippageFailsAndMovesNothing(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c := tradingAccount(t, env, "trader")
	ctx := context.Background()
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)
	w, mover := tradingWallet(t, env, c, "trader", 1, 0), tradingWallet(t, env, c, "mover", 5, 0)

	zero := 0
	qr := c.QuoteTrade(ctx, client.TradingQuoteRequest{WalletID: w.ID, Side: client.SideBuy, Base: "DEV", Quote: "ETH", Amount: "0.05",
		AmountKind: client.AmountExactIn, SlippageBps: &zero})
	require.True(t, qr.OK, "%v", qr.Error)
	moved := c.PlaceOrder(ctx, client.CreateOrderRequest{WalletID: mover.ID, Side: client.SideBuy, Base: "DEV", Quote: "ETH", Amount: "0.08",
		AmountKind: client.AmountExactIn})
	require.True(t, moved.OK, "%v", moved.Error)
	require.Equal(t, client.OrderFilled, waitOrder(t, c, moved.Body.Order.ID).Status)

	ethBefore, devBefore := weiBalance(t, rpc, w.Address), tokenBalance(t, rpc, devchain.DevTokenAddress, w.Address)
	placed := c.PlaceOrder(ctx, client.CreateOrderRequest{QuoteID: qr.Body.Quote.ID})
	require.True(t, placed.OK, "%v", placed.Error)
	o := waitOrder(t, c, placed.Body.Order.ID)
	require.Equal(t, client.OrderFailed, o.Status)
	require.Equal(t, client.OrderReasonSlippage, o.FailureReason, "%+v", o.Error)
	require.Empty(t, o.Fills)
	require.Equal(t, ethBefore, weiBalance(t, rpc, w.Address))
	require.Equal(t, devBefore, tokenBalance(t, rpc, devchain.DevTokenAddress, w.Address))
	bal := c.Balance(ctx)
	require.Equal(t, 99.0, bal.Body.Balance.Credits, "only the mover's filled order is charged")
	require.Zero(t, bal.Body.Balance.HeldCredits)
}

// TestTradingOrderWaitsForItsApproval: an order over the wallet's approvalAboveUsd is pending_approval
// with the wallet approval's id; once a second key approves it, it fills.
func TestTradingOrderWaitsForItsApproval(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c, tenant := tradingTenant(t, env, "trader")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "trader", 0.1, 0)
	p := c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(10)})
	require.True(t, p.OK, "%v", p.Error)

	placed := c.PlaceOrder(ctx, client.CreateOrderRequest{WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC", Amount: "0.01",
		AmountKind: client.AmountExactIn})
	require.True(t, placed.OK, "%v", placed.Error)
	require.Equal(t, client.OrderPendingApproval, placed.Body.Order.Status)
	require.NotNil(t, placed.Body.Order.ApprovalID)
	got := c.Order(ctx, placed.Body.Order.ID)
	require.Equal(t, client.OrderPendingApproval, got.Body.Order.Status, "it waits: nothing is sent before the approval")
	d := approverFor(t, env, tenant).DecideApproval(ctx, *placed.Body.Order.ApprovalID, client.DecideApprovalRequest{Decision: client.DecisionApprove})
	require.True(t, d.OK, "%v", d.Error)
	o := waitOrder(t, c, placed.Body.Order.ID)
	require.Equal(t, client.OrderFilled, o.Status, "%+v", o.Error)
	require.Equal(t, placed.Body.Order.ApprovalID, o.ApprovalID)
}

// TestTradingBadInputIsNamed: unknown tokens, a zero amount, slippage out of range and a bad side are
// 400s naming their field; a quote of another account's wallet is 404.
func TestTradingBadInputIsNamed(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c, other := tradingAccount(t, env, "trader"), tradingAccount(t, env, "other")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "trader", 0, 0)
	ok := client.TradingQuoteRequest{WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC", Amount: "1", AmountKind: client.AmountExactIn}
	tooMuch, neg := 5001, -1
	for _, tc := range []struct {
		edit  func(*client.TradingQuoteRequest)
		param string
	}{
		{func(r *client.TradingQuoteRequest) { r.Base = "NOPE" }, "base"},
		{func(r *client.TradingQuoteRequest) { r.Quote = "0x000000000000000000000000000000000000dEaD" }, "quote"},
		{func(r *client.TradingQuoteRequest) { r.Quote = "WETH" }, "quote"},
		{func(r *client.TradingQuoteRequest) { r.Amount = "0" }, "amount"},
		{func(r *client.TradingQuoteRequest) { r.Amount = "1.1234567890123456789" }, "amount"},
		{func(r *client.TradingQuoteRequest) { r.SlippageBps = &tooMuch }, "slippageBps"},
		{func(r *client.TradingQuoteRequest) { r.SlippageBps = &neg }, "slippageBps"},
		{func(r *client.TradingQuoteRequest) { r.Side = "hold" }, "side"},
		{func(r *client.TradingQuoteRequest) { r.AmountKind = "all" }, "amountKind"},
	} {
		r := ok
		tc.edit(&r)
		got := c.QuoteTrade(ctx, r)
		require.Equal(t, http.StatusBadRequest, got.StatusCode, "%+v: %s", r, got.Raw)
		require.Equal(t, tc.param, got.Error.Param, "%s", got.Raw)
		body := client.CreateOrderRequest{WalletID: r.WalletID, Side: r.Side, Base: r.Base, Quote: r.Quote, Amount: r.Amount,
			AmountKind: r.AmountKind, SlippageBps: r.SlippageBps}
		placed := c.PlaceOrder(ctx, body)
		require.Equal(t, http.StatusBadRequest, placed.StatusCode, "%+v: %s", body, placed.Raw)
		require.Equal(t, tc.param, placed.Error.Param, "%s", placed.Raw)
	}
	require.Equal(t, http.StatusNotFound, other.QuoteTrade(ctx, ok).StatusCode)
	both := c.PlaceOrder(ctx, client.CreateOrderRequest{QuoteID: "quo_x", WalletID: w.ID})
	require.Equal(t, "quoteId", both.Error.Param, "%s", both.Raw)
}

// TestRecordOrderHistory re-records workflows/testdata/order_filled.json (SVC_RECORD_HISTORIES=1): an
// order paying USDC, so the router is approved (child wallettx) before the swap (child wallettx), filled.
func TestRecordOrderHistory(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c := tradingAccount(t, env, "recorded")
	w := tradingWallet(t, env, c, "recorded", 0.1, 100)
	r := c.PlaceOrder(context.Background(), client.CreateOrderRequest{WalletID: w.ID, Side: client.SideBuy, Base: "ETH", Quote: "USDC",
		Amount: "50", AmountKind: client.AmountExactIn})
	require.True(t, r.OK, "%v", r.Error)
	require.Equal(t, client.OrderFilled, waitOrder(t, c, r.Body.Order.ID).Status)
	id := workflows.OrderWorkflowID(r.Body.Order.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 30*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join("..", "workflows", "testdata", "order_filled.json"))
}

// TestTradingSweepStartsAnUnstartedOrder: an order recorded by a request whose workflow start failed is
// not sent by the wallet sends' sweep (its approve and swap are its workflow's, in order); the orders'
// sweep starts its workflow, and it fills.
func TestTradingSweepStartsAnUnstartedOrder(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c, tenant := tradingTenant(t, env, "trader")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "trader", 0.1, 0)

	master, err := base64.StdEncoding.DecodeString(env.EncryptionKey)
	require.NoError(t, err)
	box, err := secretbox.New(master)
	require.NoError(t, err)
	store := wallet.NewStore(env.DB, box, client.ChainDev)
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)
	cfg, err := app.TradingConfig{}.Trading()
	require.NoError(t, err)
	svc := &trading.Service{DB: env.DB, Wallets: store, Chain: &wallet.Chain{RPC: rpc, USDC: devchain.USDCAddress},
		Venue: &trading.Venue{RPC: rpc, Config: cfg}, Engine: refused{}, Prices: wallet.Prices{NativeCents: int64(app.DevNativeUSDPrice * 100)}}
	_, err = svc.Place(ctx, trading.Request{Scope: tenantScope(tenant.id), KeyID: "key_x", ID: "ord_swept", Body: client.CreateOrderRequest{
		WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC", Amount: "0.01", AmountKind: client.AmountExactIn}}, time.Now())
	require.ErrorContains(t, err, "workflow did not start")

	n, err := (&wallet.Starts{Store: store, Engine: env.Temporal}).Sweep(ctx, 0, 10)
	require.NoError(t, err)
	require.Zero(t, n, "an order's swap is not the wallet sweep's")
	svc.Engine = env.Temporal
	n, err = svc.Sweep(ctx, time.Hour, 10)
	require.NoError(t, err)
	require.Zero(t, n, "a fresh order is left to its request")
	n, err = svc.Sweep(ctx, 0, 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, client.OrderFilled, waitOrder(t, c, "ord_swept").Status)
}

// TestTradingConcurrentOrdersShareTheAllowance: an order paying USDC waits for its approval after its
// approve of the router is mined; a second, smaller order of the same wallet paying USDC finds that
// allowance enough for itself but not for both, so it approves the two orders' amounts together, and
// both fill (with an approve of its own amount only, the first swap would find the allowance spent).
func TestTradingConcurrentOrdersShareTheAllowance(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c, tenant := tradingTenant(t, env, "sharer")
	ctx := context.Background()
	w := tradingWallet(t, env, c, "sharer", 0.1, 100)
	p := c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(10)})
	require.True(t, p.OK, "%v", p.Error)
	buy := func(usdc string) client.TradingOrder {
		r := c.PlaceOrder(ctx, client.CreateOrderRequest{WalletID: w.ID, Side: client.SideBuy, Base: "ETH", Quote: "USDC", Amount: usdc,
			AmountKind: client.AmountExactIn})
		require.True(t, r.OK, "%v", r.Error)
		require.NotNil(t, r.Body.Order.ApproveTransactionID, "the allowance falls short: the order approves the router")
		return r.Body.Order
	}

	first := buy("20")
	require.Equal(t, client.OrderPendingApproval, first.Status)
	require.Eventually(t, func() bool {
		tx := c.GetWalletTransaction(ctx, w.ID, *first.ApproveTransactionID)
		return tx.OK && tx.Body.Transaction.Status == client.WalletTxConfirmed
	}, time.Minute, 100*time.Millisecond, "the first order's approve is mined")
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)
	require.Equal(t, units(t, "20", 6), allowance(t, rpc, w.Address), "the first order's amount is approved")

	second := buy("5")
	o := waitOrder(t, c, second.ID)
	require.Equal(t, client.OrderFilled, o.Status, "%+v", o.Error)
	require.Equal(t, units(t, "20", 6), allowance(t, rpc, w.Address), "the second approved 25 and spent 5: the first's 20 remain")

	d := approverFor(t, env, tenant).DecideApproval(ctx, *first.ApprovalID, client.DecideApprovalRequest{Decision: client.DecisionApprove})
	require.True(t, d.OK, "%v", d.Error)
	o = waitOrder(t, c, first.ID)
	require.Equal(t, client.OrderFilled, o.Status, "%+v", o.Error)
	require.Zero(t, allowance(t, rpc, w.Address).Sign())
}

// allowance is the router's allowance of owner's dev USDC.
func allowance(t *testing.T, rpc *ethclient.Client, owner string) *big.Int {
	t.Helper()
	tok := launch.NewLaunchToken()
	a, err := tok.UnpackAllowance(ethCall(t, rpc, devchain.USDCAddress, tok.PackAllowance(common.HexToAddress(owner), devchain.UniswapRouterAddress)))
	require.NoError(t, err)
	return a
}
