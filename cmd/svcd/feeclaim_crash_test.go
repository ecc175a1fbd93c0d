package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeclaim"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
)

// TestWorkerKilledBetweenClaimSendAndReceiptClaimsOnce launches a token and trades it, then kills the
// svcd worker (SIGKILL) once the fee claim's collectFees is broadcast but its receipt not yet read,
// starts another, and checks that the claim is recorded claimed with what pendingFees showed and that
// exactly one claim transaction left the wallet.
func TestWorkerKilledBetweenClaimSendAndReceiptClaimsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true, FeeCacheTTL: -1})
	dir := t.TempDir()
	plain := startWorker(t, svcd, env, "", dir, chainEnv(env)...)
	ch := feetest.Attach(t, env.Chain)

	_, key := accountKey(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	w, l, launched := launchTradedFor(t, env, c, ch, plain)
	me := common.HexToAddress(w.Address)
	pending := ch.Pending(launched, me)
	plain.kill(t)

	first := startWorker(t, svcd, env, "", dir, append(chainEnv(env), "SVC_TEST_FAULT="+activities.FaultStallAfterBroadcast)...)
	r := c.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{})
	require.True(t, r.OK, "%v", r.Error)
	id, txID := r.Body.Claim.ID, feeclaim.TransactionID(r.Body.Claim.ID)
	killed := stalledAfterMinedBroadcast(t, env, ch.Client, first, txID, "claim")
	first.kill(t)
	second := startWorker(t, svcd, env, "", dir, chainEnv(env)...)

	var done client.FeeClaim
	require.Eventually(t, func() bool {
		got := c.FeeClaim(ctx, id)
		require.True(t, got.OK, "%v", got.Error)
		done = got.Body.Claim
		return done.Status != client.FeeClaimClaiming
	}, 90*time.Second, 100*time.Millisecond, "the claim never ended (last %+v); second worker log:\n%s", &done, second.log)
	require.Equal(t, client.FeeClaimClaimed, done.Status, "%+v", done.Error)
	require.Equal(t, killed.TxHash, &done.TransactionHash, "the transaction broadcast before the kill is the claim's")
	require.Equal(t, pending[0].String(), done.Amount0)
	require.Equal(t, pending[1].String(), done.Amount1)
	mined, err := ch.Client.NonceAt(ctx, me, nil)
	require.NoError(t, err)
	require.EqualValues(t, 2, mined, "one launch and one claim transaction from the wallet")
}

// launchTradedFor launches a token through the API from a fresh funded wallet of c's account that is its
// fee recipient (with the worker plain running), indexes it and trades it both ways.
func launchTradedFor(t *testing.T, env *apptest.Env, c *client.Client, ch *feetest.Env, plain *svcdProcess) (client.Wallet, client.TokenLaunch, feetest.Launched) {
	t.Helper()
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "creator"}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 0, "eth": 0.01}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	dep := c.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "Crash Claim", TokenSymbol: "CRC",
		FeeRecipient: client.FeeRecipient{Type: "wallet", Value: w.Address}})
	require.True(t, dep.OK, "%v", dep.Error)
	var l client.TokenLaunch
	require.Eventually(t, func() bool {
		got := c.TokenLaunch(ctx, dep.Body.Launch.ID)
		require.True(t, got.OK, "%v", got.Error)
		l = got.Body.Launch
		return l.Status != client.LaunchDeploying
	}, 90*time.Second, 100*time.Millisecond, "the launch never ended; worker log:\n%s", plain.log)
	require.Equal(t, client.LaunchDeployed, l.Status, "%+v", l.Error)
	require.NoError(t, feeindex.New(env.DB, ch.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID}).CatchUp(ctx))
	launched := ch.LaunchedAt(common.HexToAddress(l.TokenAddress), common.HexToAddress(l.PoolAddress), common.HexToHash(l.PoolID))
	ch.Trade(ch.Keys(1)[0], launched)
	return w, l, launched
}
