package main

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/schema"
)

// TestWorkerKilledAfterTheSwapBroadcastFillsOnce kills the svcd worker (SIGKILL) once an order's swap is
// broadcast but its receipt not yet read, starts another, and checks that the order fills from that
// swap: one transaction left the wallet, its fill is recorded once and the fee charged once.
func TestWorkerKilledAfterTheSwapBroadcastFillsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true})
	dir := t.TempDir()
	c, w, rpc := traderWallet(t, env, 0.1)

	stalled := startWorker(t, svcd, env, "", dir, append(chainEnv(env), "SVC_TEST_FAULT="+activities.FaultStallAfterBroadcast)...)
	r := c.PlaceOrder(ctx, client.CreateOrderRequest{WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC", Amount: "0.02",
		AmountKind: client.AmountExactIn})
	require.True(t, r.OK, "%v", r.Error)
	id, txID := r.Body.Order.ID, trading.SwapTxID(r.Body.Order.ID)
	swap := stalledAfterMinedBroadcast(t, env, rpc, stalled, txID, "swap")
	stalled.kill(t)
	second := startWorker(t, svcd, env, "", dir, chainEnv(env)...)

	var done client.TradingOrder
	require.Eventually(t, func() bool {
		got := c.Order(ctx, id)
		require.True(t, got.OK, "%v", got.Error)
		done = got.Body.Order
		return trading.Final(done.Status)
	}, 90*time.Second, 100*time.Millisecond, "the order never ended (last %+v); second worker log:\n%s", &done, second.log)
	require.Equal(t, client.OrderFilled, done.Status, "%+v", done.Error)
	require.Equal(t, []string{*swap.TxHash}, done.TxHashes, "the swap broadcast before the kill is the order's")
	require.Len(t, done.Fills, 1)
	fills, err := env.DB.NewSelect().Model((*schema.TradingFill)(nil)).Where("order_id = ?", id).Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, fills, "the fill is recorded once")
	mined, err := rpc.NonceAt(ctx, common.HexToAddress(w.Address), nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, mined, "one swap left the wallet")
	bal := c.Balance(ctx)
	require.True(t, bal.OK, "%v", bal.Error)
	require.Equal(t, 9.0, bal.Body.Balance.Credits, "the fee is charged once")
}
