package main

import (
	"context"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// TestWorkerKilledBetweenSignAndBroadcastSendsOnce kills the svcd worker (SIGKILL) after a wallet send
// was signed (nonce, bytes and hash committed) and before the signing activity answered, so nothing was
// broadcast; starts another, and checks that the send confirms once, with the hash signed before the
// kill: the retried signing finds the stored bytes instead of signing again, and they are broadcast.
func TestWorkerKilledBetweenSignAndBroadcastSendsOnce(t *testing.T) {
	t.Parallel()
	killWalletSend(t, activities.FaultStallAfterSign, workflows.ActivitySignWalletTx, schema.WalletTxQueued)
}

// TestWorkerKilledBetweenBroadcastAndReceiptSendsOnce kills the svcd worker (SIGKILL) after a wallet
// send was broadcast (and mined) and before the broadcast activity answered, starts another, and checks
// that the send confirms once, with the same hash: the retried broadcast re-sends the same bytes, which
// the chain already has, and the receipt is recorded.
func TestWorkerKilledBetweenBroadcastAndReceiptSendsOnce(t *testing.T) {
	t.Parallel()
	killWalletSend(t, activities.FaultStallAfterBroadcast, workflows.ActivityBroadcastWalletTx, schema.WalletTxBroadcast)
}

// killWalletSend sends 10 USDC from a fresh wallet with a worker that fault stalls in activity stalled,
// kills that worker once the transaction is signed and has status killedIn, starts a worker without the
// fault, and checks that exactly one transaction left the wallet: the one signed before the kill.
func killWalletSend(t *testing.T, fault, stalled, killedIn string) {
	t.Helper()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true})
	dir := t.TempDir()
	first := startWorker(t, svcd, env, "", dir, append(chainEnv(env), "SVC_TEST_FAULT="+fault)...)

	chain, err := evm.Dial(ctx, env.Chain.RPCURL(), big.NewInt(devchain.ChainID), devchain.USDCAddress, nil)
	require.NoError(t, err)
	t.Cleanup(chain.Close)
	accountID, key := accountKey(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	created := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "ops"})
	require.True(t, created.OK, "%v", created.Error)
	w := created.Body.Wallet
	from := common.HexToAddress(w.Address)
	receiverKey, err := crypto.GenerateKey()
	require.NoError(t, err)
	receiver := crypto.PubkeyToAddress(receiverKey.PublicKey)
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 100, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.Eventually(t, func() bool {
		b, err := chain.BalanceOf(ctx, from)
		return err == nil && b.Cmp(big.NewInt(100_000_000)) == 0
	}, 30*time.Second, 20*time.Millisecond, "the faucet never funded the wallet")

	sent := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: receiver.Hex(), Amount: "10", Asset: "usdc"})
	require.True(t, sent.OK, "%v", sent.Error)
	id := sent.Body.Transaction.ID
	var killed schema.WalletTransaction
	require.Eventually(t, func() bool {
		require.NoError(t, env.DB.NewSelect().Model(&killed).Where("id = ?", id).Scan(ctx))
		return killed.TxHash != nil && killed.Status == killedIn && running(t, env, workflows.WalletTxWorkflowID(id), stalled)
	}, 30*time.Second, 10*time.Millisecond, "the send never stalled in %s (last %s); worker log:\n%s", stalled, &killed.Status, first.log)
	hash := common.HexToHash(*killed.TxHash)
	rpc := chain.Client()
	if killedIn == schema.WalletTxQueued {
		_, _, err := rpc.TransactionByHash(ctx, hash)
		require.ErrorIs(t, err, ethereum.NotFound, "signed, not yet broadcast")
	} else {
		require.Eventually(t, func() bool {
			r, err := rpc.TransactionReceipt(ctx, hash)
			return err == nil && r != nil
		}, 30*time.Second, 10*time.Millisecond, "the broadcast transaction was never mined")
	}
	first.kill(t)
	var after schema.WalletTransaction
	require.NoError(t, env.DB.NewSelect().Model(&after).Where("id = ?", id).Scan(ctx))
	require.Equal(t, killedIn, after.Status, "killed before the worker went on")
	require.Equal(t, killed.TxHash, after.TxHash)
	second := startWorker(t, svcd, env, "", dir, chainEnv(env)...)

	var done client.WalletTransaction
	require.Eventually(t, func() bool {
		r := c.GetWalletTransaction(ctx, w.ID, id)
		require.True(t, r.OK, "%v", r.Error)
		done = r.Body.Transaction
		return done.Done()
	}, 45*time.Second, 50*time.Millisecond, "the send never finished (last %+v); second worker log:\n%s", &done, second.log)
	require.Equal(t, client.WalletTxConfirmed, done.Status, "%+v", done.Error)
	require.NotNil(t, done.Hash)
	require.Equal(t, hash, common.HexToHash(*done.Hash), "the hash signed before the kill confirmed")
	require.NotNil(t, done.Nonce)
	require.EqualValues(t, 0, *done.Nonce)

	got, err := chain.BalanceOf(ctx, receiver)
	require.NoError(t, err)
	require.Equal(t, big.NewInt(10_000_000), got, "10 USDC arrived once")
	left, err := chain.BalanceOf(ctx, from)
	require.NoError(t, err)
	require.Equal(t, big.NewInt(90_000_000), left, "10 USDC left the wallet once")
	mined, err := rpc.NonceAt(ctx, from, nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, mined, "one transaction of the wallet on the chain")
	pending, err := rpc.PendingNonceAt(ctx, from)
	require.NoError(t, err)
	require.EqualValues(t, 1, pending, "and none waiting in the pool")
	var next int64
	require.NoError(t, env.DB.NewRaw("SELECT next_nonce FROM wallet_nonces WHERE wallet_id = ?", w.ID).Scan(ctx, &next))
	require.EqualValues(t, 1, next, "the wallet's nonce counter advanced by one")

	events, err := outbox.List(ctx, env.DB, accountID)
	require.NoError(t, err)
	counts := map[string]int{}
	for _, e := range events {
		counts[e.Type]++
	}
	require.Equal(t, 1, counts[outbox.WalletTransactionConfirmed], "confirmed once")
	require.Zero(t, counts[outbox.WalletTransactionFailed])
}

// running reports whether the workflow's activity of that type is running on a worker (the stalled
// worker holds it), so the kill lands inside that attempt. A wallet send's signing and broadcast are
// local activities, which run inside a workflow task and show no pending activity: for those, a
// started workflow task with no regular activity pending is the step running (the callers check the
// transaction's stored state too).
func running(t *testing.T, env *apptest.Env, workflowID, activityType string) bool {
	t.Helper()
	desc, err := env.Temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
	require.NoError(t, err)
	for _, a := range desc.GetPendingActivities() {
		if a.GetActivityType().GetName() == activityType && a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED {
			return true
		}
	}
	local := activityType == workflows.ActivitySignWalletTx || activityType == workflows.ActivityBroadcastWalletTx
	return local && len(desc.GetPendingActivities()) == 0 &&
		desc.GetPendingWorkflowTask().GetState() == enumspb.PENDING_WORKFLOW_TASK_STATE_STARTED
}
