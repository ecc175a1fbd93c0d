package main

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/schema"
)

// TestWorkerKilledBetweenTwapSlicesPlacesEachOnce kills the svcd worker (SIGKILL) once a twap order's
// first slice has filled and its workflow waits on the timer of the second, starts another, and checks
// that the order completes with exactly its four slices: one child order per index, four swaps left
// the wallet, each fill recorded once and each fee charged once.
func TestWorkerKilledBetweenTwapSlicesPlacesEachOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true})
	dir := t.TempDir()
	c, w, rpc := traderWallet(t, env, 0.2)

	first := startWorker(t, svcd, env, "", dir, chainEnv(env)...)
	r := c.PlaceOrder(ctx, client.CreateOrderRequest{Type: client.OrderTypeTWAP, WalletID: w.ID, Side: client.SideSell, Base: "ETH",
		Quote: "USDC", Amount: "0.04", AmountKind: client.AmountExactIn, Slices: 4, Duration: "16s"})
	require.True(t, r.OK, "%v", r.Error)
	id := r.Body.Order.ID
	children := func() []schema.TradingOrder {
		var rows []schema.TradingOrder
		require.NoError(t, env.DB.NewSelect().Model(&rows).Where("parent_order_id = ?", id).OrderExpr("slice_index").Scan(ctx))
		return rows
	}
	require.Eventually(t, func() bool {
		rows := children()
		return len(rows) == 1 && rows[0].Status == schema.OrderFilled
	}, 30*time.Second, 20*time.Millisecond, "the first slice never filled; worker log:\n%s", first.log)
	require.Len(t, children(), 1, "killed between the first slice and the second (4 s apart)")
	first.kill(t)
	second := startWorker(t, svcd, env, "", dir, chainEnv(env)...)

	var done client.TradingOrder
	require.Eventually(t, func() bool {
		got := c.Order(ctx, id)
		require.True(t, got.OK, "%v", got.Error)
		done = got.Body.Order
		return trading.Final(done.Status)
	}, 90*time.Second, 100*time.Millisecond, "the order never ended (last %+v); second worker log:\n%s", &done, second.log)
	require.Equal(t, client.OrderFilled, done.Status, "%+v", done.Error)
	require.Equal(t, 4, done.Progress.SlicesPlaced)
	require.Equal(t, 4, done.Progress.SlicesFilled)
	rows := children()
	require.Len(t, rows, 4, "one child order per slice")
	for i, ch := range rows {
		require.Equal(t, i, *ch.SliceIndex)
		require.Equal(t, trading.SwapTxID(ch.ID), ch.SwapTxID)
	}
	fills, err := env.DB.NewSelect().Model((*schema.TradingFill)(nil)).Where("order_id IN (?)", env.DB.NewSelect().
		Model((*schema.TradingOrder)(nil)).Column("id").Where("parent_order_id = ?", id)).Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 4, fills, "each slice's fill is recorded once")
	mined, err := rpc.NonceAt(ctx, common.HexToAddress(w.Address), nil)
	require.NoError(t, err)
	require.EqualValues(t, 4, mined, "four swaps left the wallet")
	bal := c.Balance(ctx)
	require.True(t, bal.OK, "%v", bal.Error)
	require.Equal(t, 6.0, bal.Body.Balance.Credits, "each slice's fee is charged once")
}
