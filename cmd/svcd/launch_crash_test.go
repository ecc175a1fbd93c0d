package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/launch"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// TestWorkerKilledAfterSponsorSignLaunchesOnce kills the svcd worker (SIGKILL) once a launch's gas
// top-up is signed and stored but not sent, starts another, and checks that the launch deploys with
// exactly one top-up (the one signed before the kill) and one launch transaction from the wallet.
func TestWorkerKilledAfterSponsorSignLaunchesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true})
	dir := t.TempDir()
	first := startWorker(t, svcd, env, "", dir, append(chainEnv(env), "SVC_TEST_FAULT="+activities.FaultStallAfterSponsorSign)...)
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)
	sponsorNonce, err := rpc.NonceAt(ctx, devchain.SponsorAddress, nil)
	require.NoError(t, err)

	_, key := accountKey(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "launcher"}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 0, "eth": 0.01}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	r := c.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "Crash Coin", TokenSymbol: "CRASH",
		FeeRecipient: client.FeeRecipient{Type: "wallet", Value: w.Address}})
	require.True(t, r.OK, "%v", r.Error)
	id := r.Body.Launch.ID

	var stored schema.GasSponsorship
	require.Eventually(t, func() bool {
		require.NoError(t, env.DB.NewSelect().Model(&stored).Where("transaction_id = ?", launch.TransactionID(id)).Scan(ctx))
		return stored.TxHash != nil && running(t, env, workflows.LaunchWorkflowID(id), workflows.ActivitySponsorLaunchGas)
	}, 30*time.Second, 10*time.Millisecond, "the top-up never stalled; worker log:\n%s", first.log)
	hash := common.HexToHash(*stored.TxHash)
	_, _, err = rpc.TransactionByHash(ctx, hash)
	require.ErrorIs(t, err, ethereum.NotFound, "signed, not yet sent")
	first.kill(t)
	second := startWorker(t, svcd, env, "", dir, chainEnv(env)...)

	var done client.TokenLaunch
	require.Eventually(t, func() bool {
		got := c.TokenLaunch(ctx, id)
		require.True(t, got.OK, "%v", got.Error)
		done = got.Body.Launch
		return done.Status != client.LaunchDeploying
	}, 90*time.Second, 100*time.Millisecond, "the launch never ended (last %+v); second worker log:\n%s", &done, second.log)
	require.Equal(t, client.LaunchDeployed, done.Status, "%+v", done.Error)
	require.Equal(t, hash.Hex(), done.SponsorTxHash, "the top-up signed before the kill was sent")
	after, err := rpc.NonceAt(ctx, devchain.SponsorAddress, nil)
	require.NoError(t, err)
	require.Equal(t, sponsorNonce+1, after, "one top-up from the sponsor")
	mined, err := rpc.NonceAt(ctx, common.HexToAddress(w.Address), nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, mined, "one launch transaction from the wallet")
}
