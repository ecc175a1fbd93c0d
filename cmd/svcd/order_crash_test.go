package main

import (
	"context"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
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
	created, err := env.Accounts.Create(ctx, "trader", 10, 0)
	require.NoError(t, err)
	first := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": created.CreditToken, "Idempotency-Key": "k"}})
	require.Equal(t, http.StatusCreated, first.Status, "%s", first.Raw)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(first.Body["apiKey"].(map[string]any)["secret"].(string)))
	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "trader"}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 0, "eth": 0.1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)

	stalled := startWorker(t, svcd, env, "", dir, append(chainEnv(env), "SVC_TEST_FAULT="+activities.FaultStallAfterBroadcast)...)
	r := c.PlaceOrder(ctx, client.CreateOrderRequest{WalletID: w.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC", Amount: "0.02",
		AmountKind: client.AmountExactIn})
	require.True(t, r.OK, "%v", r.Error)
	id, txID := r.Body.Order.ID, trading.SwapTxID(r.Body.Order.ID)
	var swap schema.WalletTransaction
	require.Eventually(t, func() bool {
		require.NoError(t, env.DB.NewSelect().Model(&swap).Where("id = ?", txID).Scan(ctx))
		return swap.TxHash != nil && swap.Status == schema.WalletTxBroadcast &&
			running(t, env, workflows.WalletTxWorkflowID(txID), workflows.ActivityBroadcastWalletTx)
	}, 60*time.Second, 10*time.Millisecond, "the swap never stalled after its broadcast; worker log:\n%s", stalled.log)
	require.Eventually(t, func() bool {
		got, err := rpc.TransactionReceipt(ctx, common.HexToHash(*swap.TxHash))
		return err == nil && got != nil
	}, 30*time.Second, 10*time.Millisecond, "the swap was never mined")
	require.NoError(t, stalled.cmd.Process.Signal(syscall.SIGKILL))
	_ = stalled.cmd.Wait()
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
