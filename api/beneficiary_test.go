package api_test

import (
	"context"
	"encoding/base64"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/beneficiary"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/feeread"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// sessionSDK signs in with a fresh address linked to the tenant's account and answers the SDK with the
// web session token as its credential.
func sessionSDK(t *testing.T, env *apptest.Env, tenant dbTenant) *client.Client {
	t.Helper()
	return client.New(client.WithBaseURL(env.URL), client.WithAPIKey(sessionToken(t, env, tenant)))
}

// sessionToken signs in with a fresh address linked to the tenant's account: the web session token.
func sessionToken(t *testing.T, env *apptest.Env, tenant dbTenant) string {
	t.Helper()
	signer, err := crypto.GenerateKey()
	require.NoError(t, err)
	linkAddress(t, env, tenant.key, signer)
	text, sig := siweMessage(t, signer, siweNonce(t, env), nil)
	session := signIn(t, env, text, sig)
	require.Equal(t, http.StatusOK, session.Status, "%s", session.Raw)
	return session.Body["token"].(string)
}

// waitBeneficiary polls GET /v1/beneficiary-transfers/{id} until the transfer has left transferring.
func waitBeneficiary(t *testing.T, c *client.Client, id string) client.BeneficiaryTransfer {
	t.Helper()
	var last client.BeneficiaryTransfer
	require.Eventually(t, func() bool {
		r := c.BeneficiaryTransfer(context.Background(), id)
		require.True(t, r.OK, "%v", r.Error)
		last = r.Body.Transfer
		return last.Status != client.BeneficiaryTransferring
	}, 90*time.Second, 100*time.Millisecond, "transfer %s never ended (last %+v)", id, last)
	return last
}

// sharesOf is getShares(poolId, who) on the dev chain.
func sharesOf(ch *feetest.Env, l feetest.Launched, who common.Address) *big.Int {
	fm := launch.NewFeesManager()
	return feetest.Call(ch, ch.Fees(), fm.PackGetShares(l.PoolID, who), fm.UnpackGetShares)
}

// TestBeneficiaryTransferOnTheDevChain: a token launched through the API with a managed wallet as its
// fee recipient and traded both ways; the account's web session moves the wallet's share to another
// address through POST /user/amm/execute-transfer-beneficiary (202, then the receipt), gas sponsored.
// The contract settles the wallet first: the transfer records the Release amounts, equal to what
// pendingFees showed, and the wallet's balances rise by exactly them; the shares moved, and the fees of a
// later trade go to the new beneficiary while the wallet has nothing pending. An API key is refused on
// the route (403, X-API-Key or Bearer); a bad, zero or same newBeneficiary is 400 naming it; a wallet
// without shares is 403 naming it; a paused wallet is refused by its policy (rule paused); another
// account's wallet and transfer are 404. Refusals record nothing.
func TestBeneficiaryTransferOnTheDevChain(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1})
	tenant, other := newDatabaseAccount(t, env), newDatabaseAccount(t, env)
	c, co := sdkFor(env, tenant), sdkFor(env, other)
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	rpc := ch.Client

	w, l, launched := launchAndTrade(t, env, c, ch)
	me, tokenAddr := common.HexToAddress(w.Address), common.HexToAddress(l.TokenAddress)
	heir := common.HexToAddress("0x00000000000000000000000000000000000b0b01")
	token := sessionToken(t, env, tenant)
	session := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(token))
	body := client.BeneficiaryTransferRequest{TokenAddress: l.TokenAddress, NewBeneficiary: heir.Hex(), WalletID: w.ID}
	countTransfers := func() int {
		n, err := env.DB.NewSelect().Model((*schema.BeneficiaryTransfer)(nil)).Where("account_id = ?", tenant.id).Count(ctx)
		require.NoError(t, err)
		return int(n)
	}

	// An API key is refused, in either header.
	for _, h := range []map[string]string{{"X-API-Key": tenant.key}, {"Authorization": "Bearer " + tenant.key}} {
		h["Idempotency-Key"] = "key-" + h["X-API-Key"] + h["Authorization"]
		r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/user/amm/execute-transfer-beneficiary", Body: body, Headers: h})
		require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Raw)
		require.Contains(t, string(r.Raw), "this route takes a web session (sign in with Ethereum), not an API key")
	}

	// Bad input is 400 naming the field; unknown fields are refused.
	noToken := session.TransferBeneficiary(ctx, client.BeneficiaryTransferRequest{NewBeneficiary: heir.Hex(), WalletID: w.ID})
	require.Equal(t, http.StatusBadRequest, noToken.StatusCode, "%s", noToken.Raw)
	require.Equal(t, "tokenAddress", noToken.Error.Param)
	extra := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/user/amm/execute-transfer-beneficiary", Key: token,
		Body: map[string]any{"tokenAddress": l.TokenAddress, "newBeneficiary": heir.Hex(), "amount": "1"}, Headers: map[string]string{"Idempotency-Key": "extra"}})
	require.Equal(t, http.StatusBadRequest, extra.Status, "%s", extra.Raw)
	require.Contains(t, string(extra.Raw), "amount")
	for _, bad := range []string{"0x1234", common.Address{}.Hex(), w.Address} {
		r := session.TransferBeneficiary(ctx, client.BeneficiaryTransferRequest{TokenAddress: l.TokenAddress, NewBeneficiary: bad, WalletID: w.ID})
		require.Equal(t, http.StatusBadRequest, r.StatusCode, "%s: %s", bad, r.Raw)
		require.Equal(t, "newBeneficiary", r.Error.Param, bad)
	}
	// A wallet of the account without shares is 403 naming it; another account's wallet is 404.
	stranger := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "stranger"}).Body.Wallet
	denied := session.TransferBeneficiary(ctx, client.BeneficiaryTransferRequest{TokenAddress: l.TokenAddress, NewBeneficiary: heir.Hex(), WalletID: stranger.ID})
	require.Equal(t, http.StatusForbidden, denied.StatusCode, "%s", denied.Raw)
	require.Contains(t, denied.Error.Message, stranger.Address+" is not a beneficiary")
	theirs := co.CreateWallet(ctx, client.CreateWalletRequest{Name: "theirs"}).Body.Wallet
	require.Equal(t, http.StatusNotFound, session.TransferBeneficiary(ctx, client.BeneficiaryTransferRequest{TokenAddress: l.TokenAddress,
		NewBeneficiary: heir.Hex(), WalletID: theirs.ID}).StatusCode)
	// A paused wallet is refused by its policy.
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{Paused: ptr(true)}).OK)
	paused := session.TransferBeneficiary(ctx, body)
	require.Equal(t, http.StatusForbidden, paused.StatusCode, "%s", paused.Raw)
	require.Equal(t, wallet.RulePaused, paused.Error.Details["rule"])
	require.Zero(t, countTransfers(), "refusals record nothing")
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{Paused: ptr(false)}).OK)

	// The session moves the share; the wallet is paid what it was owed first.
	pending, shares := ch.Pending(launched, me), sharesOf(ch, launched, me)
	require.True(t, pending[0].Sign() > 0 && pending[1].Sign() > 0, "trades both ways leave fees of both tokens: %v", pending)
	wethBefore, tokBefore := balanceOf(t, rpc, devchain.WETHAddress, me), balanceOf(t, rpc, tokenAddr, me)
	r := session.TransferBeneficiary(ctx, body)
	require.Equal(t, http.StatusAccepted, r.StatusCode, "%s", r.Raw)
	got := r.Body.Transfer
	require.Equal(t, client.BeneficiaryTransferring, got.Status)
	require.Equal(t, w.Address, got.From)
	require.Equal(t, heir.Hex(), got.To)
	require.Equal(t, shares.String(), got.Shares)
	require.Equal(t, "57", got.SharePercent)
	require.Equal(t, l.PoolID, got.PoolID)
	require.Equal(t, "beneficiary/"+got.ID, got.WorkflowID)
	done := waitBeneficiary(t, c, got.ID)
	require.Equal(t, client.BeneficiaryTransferred, done.Status, "%+v", done.Error)
	require.NotEmpty(t, done.TransactionHash)
	require.NotNil(t, done.BlockNumber)
	require.Equal(t, pending[0].String(), done.Released0, "the old beneficiary was paid what it was owed")
	require.Equal(t, pending[1].String(), done.Released1, "the old beneficiary was paid what it was owed")
	wethUp := new(big.Int).Sub(balanceOf(t, rpc, devchain.WETHAddress, me), wethBefore)
	tokUp := new(big.Int).Sub(balanceOf(t, rpc, tokenAddr, me), tokBefore)
	require.ElementsMatch(t, []string{done.Released0, done.Released1}, []string{wethUp.String(), tokUp.String()},
		"the wallet's balances rose by exactly the released amounts")
	require.Zero(t, sharesOf(ch, launched, me).Sign(), "the wallet holds no shares any more")
	require.Equal(t, shares, sharesOf(ch, launched, heir), "the new beneficiary holds them")

	// Later fees go to the new beneficiary.
	ch.Trade(ch.Keys(1)[0], launched)
	after := ch.Pending(launched, me)
	require.Zero(t, after[0].Sign()+after[1].Sign(), "the old beneficiary earns nothing more")
	heirs := ch.Pending(launched, heir)
	require.True(t, heirs[0].Sign() > 0 && heirs[1].Sign() > 0, "the new beneficiary earns the share's fees: %v", heirs)

	// Reads: an API key with wallets:read or the session; another account's is 404. The share is gone: 403.
	require.Equal(t, done, session.BeneficiaryTransfer(ctx, done.ID).Body.Transfer)
	require.Equal(t, http.StatusNotFound, co.BeneficiaryTransfer(ctx, done.ID).StatusCode, "another account's transfer is 404")
	again := session.TransferBeneficiary(ctx, body)
	require.Equal(t, http.StatusForbidden, again.StatusCode, "%s", again.Raw)
	require.Equal(t, 1, countTransfers())
	n, err := env.DB.NewSelect().Model((*schema.GasSponsorship)(nil)).Where("transaction_id = ? AND purpose = ?",
		beneficiary.TransactionID(done.ID), "beneficiary").Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "the transfer's gas was sponsored once, counted with the wallet's sponsorships")
}

// TestBeneficiarySweepStartsAnUnstartedTransfer: a transfer recorded by a request whose workflow start
// failed is left by a sweep while fresh, then started by it, and transfers.
func TestBeneficiarySweepStartsAnUnstartedTransfer(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	w, l, launched := launchAndTrade(t, env, c, ch)

	master, err := base64.StdEncoding.DecodeString(env.EncryptionKey)
	require.NoError(t, err)
	box, err := secretbox.New(master)
	require.NoError(t, err)
	svc := &beneficiary.Service{DB: env.DB, Wallets: wallet.NewStore(env.DB, box, client.ChainDev),
		Chain: &wallet.Chain{RPC: ch.Client, USDC: devchain.USDCAddress}, Engine: refused{},
		Fees:   feeread.New(env.DB, ch.Client, feeread.Options{Manager: devchain.FeesManagerAddress, WETH: devchain.WETHAddress, ChainID: devchain.ChainID, CacheTTL: -1}),
		Prices: wallet.Prices{NativeCents: int64(app.DevNativeUSDPrice * 100)}}
	heir := common.HexToAddress("0x00000000000000000000000000000000000b0b02")
	_, err = svc.Transfer(ctx, beneficiary.Request{Scope: tenantScope(tenant.id), ID: "bnt_swept",
		Body: client.BeneficiaryTransferRequest{TokenAddress: l.TokenAddress, NewBeneficiary: heir.Hex(), WalletID: w.ID}}, time.Now())
	require.ErrorContains(t, err, "workflow did not start")

	n, err := beneficiary.Sweep(ctx, env.DB, env.Temporal, time.Hour, 10)
	require.NoError(t, err)
	require.Zero(t, n, "a fresh transfer is left to its request")
	n, err = beneficiary.Sweep(ctx, env.DB, env.Temporal, 0, 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	done := waitBeneficiary(t, c, "bnt_swept")
	require.Equal(t, client.BeneficiaryTransferred, done.Status, "%+v", done.Error)
	require.True(t, sharesOf(ch, launched, heir).Sign() > 0, "the new beneficiary holds the share")
}

// TestRecordBeneficiaryHistory re-records workflows/testdata/beneficiary_transferred.json
// (SVC_RECORD_HISTORIES=1): a transfer whose gas is sponsored, sent by its child wallettx/<id> and
// recorded transferred.
func TestRecordBeneficiaryHistory(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	_, l, _ := launchAndTrade(t, env, c, ch)
	r := sessionSDK(t, env, tenant).TransferBeneficiary(ctx, client.BeneficiaryTransferRequest{TokenAddress: l.TokenAddress,
		NewBeneficiary: "0x00000000000000000000000000000000000B0b03"})
	require.True(t, r.OK, "%v", r.Error)
	require.Equal(t, client.BeneficiaryTransferred, waitBeneficiary(t, c, r.Body.Transfer.ID).Status)
	id := workflows.BeneficiaryWorkflowID(r.Body.Transfer.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 30*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join("..", "workflows", "testdata", "beneficiary_transferred.json"))
}

// TestBeneficiaryTransferNeedingAnApprovalIsRefused: a wallet whose screening asks for an approval of its
// next send (one send an hour, and the launch was that send) cannot transfer through a web session, which
// has no key to request the approval with: 403 naming the rule, nothing recorded, the share unmoved.
func TestBeneficiaryTransferNeedingAnApprovalIsRefused(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1, WalletScreening: wallet.ScreeningOptions{
		BurstSends: 1, BurstWindow: time.Hour, FirstRecipientApprovalCents: wallet.DefaultFirstRecipientApprovalCents}})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	w, l, launched := launchAndTrade(t, env, c, ch)
	heir := common.HexToAddress("0x00000000000000000000000000000000000b0b05")

	r := sessionSDK(t, env, tenant).TransferBeneficiary(ctx, client.BeneficiaryTransferRequest{TokenAddress: l.TokenAddress,
		NewBeneficiary: heir.Hex(), WalletID: w.ID})
	require.Equal(t, http.StatusForbidden, r.StatusCode, "%s", r.Raw)
	require.Contains(t, r.Error.Message, "needs an approval")
	require.NotEmpty(t, r.Error.Details["rule"])
	n, err := env.DB.NewSelect().Model((*schema.BeneficiaryTransfer)(nil)).Where("wallet_id = ?", w.ID).Count(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "nothing recorded")
	require.Zero(t, sharesOf(ch, launched, heir).Sign(), "the share did not move")
}
