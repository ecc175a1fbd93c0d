package api_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/feeclaim"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/feeread"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// waitClaim polls GET /v1/fee-claims/{id} until the claim has left claiming.
func waitClaim(t *testing.T, c *client.Client, id string) client.FeeClaim {
	t.Helper()
	var last client.FeeClaim
	require.Eventually(t, func() bool {
		r := c.FeeClaim(context.Background(), id)
		require.True(t, r.OK, "%v", r.Error)
		last = r.Body.Claim
		return last.Status != client.FeeClaimClaiming
	}, 90*time.Second, 100*time.Millisecond, "claim %s never ended (last %+v)", id, last)
	return last
}

// balanceOf is an ERC-20 balance on the dev chain.
func balanceOf(t *testing.T, rpc *ethclient.Client, token, who common.Address) *big.Int {
	t.Helper()
	tok := launch.NewLaunchToken()
	b, err := tok.UnpackBalanceOf(ethCall(t, rpc, token, tok.PackBalanceOf(who)))
	require.NoError(t, err)
	return b
}

// launchAndTrade launches a token through the API from a fresh wallet of c's account that is its fee
// recipient, indexes it and trades it both ways from Go.
func launchAndTrade(t *testing.T, env *apptest.Env, c *client.Client, ch *feetest.Env) (client.Wallet, client.TokenLaunch, feetest.Launched) {
	t.Helper()
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "creator"}).Body.Wallet
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 0, "eth": 0.01}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	dep := c.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "Claim Coin", TokenSymbol: "CLM",
		FeeRecipient: client.FeeRecipient{Type: "wallet", Value: w.Address}})
	require.True(t, dep.OK, "%v", dep.Error)
	l := waitLaunch(t, c, dep.Body.Launch.ID)
	require.Equal(t, client.LaunchDeployed, l.Status, "%+v", l.Error)
	require.NoError(t, feeindex.New(env.DB, ch.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID}).CatchUp(ctx))
	launched := ch.LaunchedAt(common.HexToAddress(l.TokenAddress), common.HexToAddress(l.PoolAddress), common.HexToHash(l.PoolID))
	ch.Trade(ch.Keys(1)[0], launched)
	return w, l, launched
}

// TestFeeClaimSweepStartsAnUnstartedClaim: a claim recorded by a request whose workflow start failed is
// left by a sweep while fresh, then started by it, and claims.
func TestFeeClaimSweepStartsAnUnstartedClaim(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	w, l, _ := launchAndTrade(t, env, c, ch)

	master, err := base64.StdEncoding.DecodeString(env.EncryptionKey)
	require.NoError(t, err)
	box, err := secretbox.New(master)
	require.NoError(t, err)
	svc := &feeclaim.Service{DB: env.DB, Wallets: wallet.NewStore(env.DB, box, client.ChainDev),
		Chain: &wallet.Chain{RPC: ch.Client, USDC: devchain.USDCAddress}, Engine: refused{},
		Fees:   feeread.New(env.DB, ch.Client, feeread.Options{Manager: devchain.FeesManagerAddress, WETH: devchain.WETHAddress, ChainID: devchain.ChainID, CacheTTL: -1}),
		Prices: wallet.Prices{NativeCents: int64(app.DevNativeUSDPrice * 100)}}
	_, err = svc.Claim(ctx, feeclaim.Request{Scope: tenantScope(tenant.id), KeyID: "key_x", ID: "fclm_swept", Token: common.HexToAddress(l.TokenAddress),
		Body: client.FeeClaimRequest{WalletID: w.ID}}, time.Now())
	require.ErrorContains(t, err, "workflow did not start")

	n, err := feeclaim.Sweep(ctx, env.DB, env.Temporal, time.Hour, 10)
	require.NoError(t, err)
	require.Zero(t, n, "a fresh claim is left to its request")
	n, err = feeclaim.Sweep(ctx, env.DB, env.Temporal, 0, 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	done := waitClaim(t, c, "fclm_swept")
	require.Equal(t, client.FeeClaimClaimed, done.Status, "%+v", done.Error)
	require.NotEqual(t, "0", done.Amount0)
}

// TestFeeClaimsOnTheDevChain: a token launched through the API with the launching wallet as its fee
// recipient, traded both ways from Go; the wallet claims through POST /token-launches/{token}/fees/claim
// with a web session (SIWE) of the account (202, then the receipt), its gas sponsored: the claim records the Release amounts, which equal what
// pendingFees showed before, and the wallet's WETH and token balances rise by exactly them. A wallet that
// is no beneficiary is 403 and a paused wallet is refused, both recording nothing; another account
// cannot read the claim.
func TestFeeClaimsOnTheDevChain(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1})
	tenant, other := newDatabaseAccount(t, env), newDatabaseAccount(t, env)
	c, co := sdkFor(env, tenant), sdkFor(env, other)
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	rpc := ch.Client

	w, l, launched := launchAndTrade(t, env, c, ch)
	me, token := common.HexToAddress(w.Address), common.HexToAddress(l.TokenAddress)
	pending := ch.Pending(launched, me)
	require.True(t, pending[0].Sign() > 0 && pending[1].Sign() > 0, "trades both ways leave fees of both tokens: %v", pending)
	wethBefore, tokBefore := balanceOf(t, rpc, devchain.WETHAddress, me), balanceOf(t, rpc, token, me)

	// Another wallet of the account holds no shares: 403 naming the rule, nothing recorded.
	stranger := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "stranger"}).Body.Wallet
	denied := c.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{WalletID: stranger.ID})
	require.Equal(t, http.StatusForbidden, denied.StatusCode, "%s", denied.Raw)
	require.Contains(t, denied.Error.Message, "is not a beneficiary")
	countClaims := func(walletID string) int {
		n, err := env.DB.NewSelect().Model((*schema.FeeClaim)(nil)).Where("wallet_id = ?", walletID).Count(ctx)
		require.NoError(t, err)
		return int(n)
	}
	require.Zero(t, countClaims(stranger.ID))

	// A web session (SIWE) of the account claims.
	signer, err := crypto.GenerateKey()
	require.NoError(t, err)
	linkAddress(t, env, tenant.key, signer)
	text, sig := siweMessage(t, signer, siweNonce(t, env), nil)
	session := signIn(t, env, text, sig)
	require.Equal(t, http.StatusOK, session.Status, "%s", session.Raw)
	viaSession := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/token-launches/" + l.TokenAddress + "/fees/claim",
		Key: session.Body["token"].(string), Body: map[string]any{"walletId": w.ID}, Headers: map[string]string{"Idempotency-Key": "claim-1"}})
	require.Equal(t, http.StatusAccepted, viaSession.Status, "%s", viaSession.Raw)
	var claim struct{ Body client.FeeClaimEnvelope }
	require.NoError(t, json.Unmarshal(viaSession.Raw, &claim.Body))
	require.Equal(t, client.FeeClaimClaiming, claim.Body.Claim.Status)
	require.Equal(t, w.Address, claim.Body.Claim.Signer)
	require.Equal(t, "feeclaim/"+claim.Body.Claim.ID, claim.Body.Claim.WorkflowID)
	require.Regexp(t, `^fclm_[0-9a-z]{26}$`, claim.Body.Claim.ID, "CONTRACT.md: a fee claim's id is fclm_…")
	done := waitClaim(t, c, claim.Body.Claim.ID)
	require.Equal(t, client.FeeClaimClaimed, done.Status, "%+v", done.Error)
	require.NotEmpty(t, done.TransactionHash)
	require.NotNil(t, done.BlockNumber)
	require.NotNil(t, done.GasUsed)
	require.Equal(t, int64(devchain.ChainID), done.ChainID)
	require.Equal(t, pending[0].String(), done.Amount0, "released what pendingFees showed")
	require.Equal(t, pending[1].String(), done.Amount1, "released what pendingFees showed")
	wethUp := new(big.Int).Sub(balanceOf(t, rpc, devchain.WETHAddress, me), wethBefore)
	tokUp := new(big.Int).Sub(balanceOf(t, rpc, token, me), tokBefore)
	require.True(t, wethUp.Sign() > 0, "the wallet's WETH rose")
	got := []string{wethUp.String(), tokUp.String()}
	require.Subset(t, []string{done.Amount0, done.Amount1}, got, "balances rose by exactly the released amounts")
	require.NotEqual(t, got[0], got[1])
	n, err := env.DB.NewSelect().Model((*schema.WalletTransaction)(nil)).Where("wallet_id = ? AND to_address = ?", w.ID,
		devchain.FeesManagerAddress.Hex()).Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 2, n, "one launch and one claim transaction")

	require.Equal(t, http.StatusNotFound, co.FeeClaim(ctx, done.ID).StatusCode, "another account's claim is 404")

	// A paused wallet is refused and nothing is recorded.
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{Paused: ptr(true)}).OK)
	paused := c.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{WalletID: w.ID})
	require.Equal(t, http.StatusForbidden, paused.StatusCode, "%s", paused.Raw)
	require.Equal(t, 1, countClaims(w.ID), "a refused claim leaves no row")
}

// TestRecordFeeClaimHistory re-records workflows/testdata/feeclaim_claimed.json (SVC_RECORD_HISTORIES=1):
// a claim whose gas is sponsored, sent by its child wallettx/<id> and recorded claimed.
func TestRecordFeeClaimHistory(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1})
	c := sdkFor(env, newDatabaseAccount(t, env))
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	_, l, _ := launchAndTrade(t, env, c, ch)
	r := c.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{})
	require.True(t, r.OK, "%v", r.Error)
	require.Equal(t, client.FeeClaimClaimed, waitClaim(t, c, r.Body.Claim.ID).Status)
	id := workflows.FeeClaimWorkflowID(r.Body.Claim.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 30*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join("..", "workflows", "testdata", "feeclaim_claimed.json"))
}
