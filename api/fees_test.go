package api_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/feeread"
)

// feeEnv is a platform with a dev chain, a launched token and a fee indexer.
type feeEnv struct {
	t       *testing.T
	env     *apptest.Env
	chain   *feetest.Env
	indexer *feeindex.Indexer
}

// get reads path (no key) into out and returns the status.
func (f *feeEnv) get(path string, out any) *apptest.Response {
	f.t.Helper()
	r := f.env.Do(f.t, apptest.Req{Method: http.MethodGet, Path: path})
	if r.Status == http.StatusOK && out != nil {
		require.NoError(f.t, json.Unmarshal(r.Raw, out))
	}
	return r
}

// post sends body to path (no key, no Idempotency-Key) and decodes a 200 into out.
func (f *feeEnv) post(path string, body, out any) *apptest.Response {
	f.t.Helper()
	r := f.env.Do(f.t, apptest.Req{Method: http.MethodPost, Path: path, Body: body})
	if r.Status == http.StatusOK && out != nil {
		require.NoError(f.t, json.Unmarshal(r.Raw, out))
	}
	return r
}

// index catches the fee index up with the chain.
func (f *feeEnv) index() {
	f.t.Helper()
	require.NoError(f.t, f.indexer.CatchUp(context.Background()))
}

// signAndSend signs an unsigned transaction from the API with key and sends it, requiring success.
func (f *feeEnv) signAndSend(key *ecdsa.PrivateKey, u client.UnsignedFeeTx) *types.Receipt {
	f.t.Helper()
	ctx := context.Background()
	gas, ok := new(big.Int).SetString(u.GasEstimate, 10)
	require.True(f.t, ok, u.GasEstimate)
	maxFee, _ := new(big.Int).SetString(u.MaxFeePerGas, 10)
	tip, _ := new(big.Int).SetString(u.MaxPriorityFeePerGas, 10)
	data, err := hexutil.Decode(u.Data)
	require.NoError(f.t, err)
	to := common.HexToAddress(u.To)
	nonce, err := f.chain.Client.PendingNonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey))
	require.NoError(f.t, err)
	tx, err := evm.Send(ctx, f.chain.Client, key, big.NewInt(u.ChainID), nonce,
		types.DynamicFeeTx{GasTipCap: tip, GasFeeCap: maxFee, Gas: gas.Uint64(), To: &to, Data: data})
	require.NoError(f.t, err)
	receipt, err := evm.WaitReceipt(ctx, f.chain.Client, tx.Hash(), nil)
	require.NoError(f.t, err)
	require.Equal(f.t, types.ReceiptStatusSuccessful, receipt.Status)
	return receipt
}

// release is the Release event of a receipt.
func release(t *testing.T, r *types.Receipt) *launch.FeesManagerRelease {
	t.Helper()
	fm := launch.NewFeesManager()
	for _, log := range r.Logs {
		if ev, err := fm.UnpackReleaseEvent(log); err == nil {
			return ev
		}
	}
	require.FailNow(t, "no Release event")
	return nil
}

// requireClaimable requires the snapshot token's claimable to be pendingFees to the wei.
func requireClaimable(t *testing.T, want [2]*big.Int, got client.FeePair) {
	t.Helper()
	require.Equal(t, feeread.Ether(want[0]), got.Token0)
	require.Equal(t, feeread.Ether(want[1]), got.Token1)
}

// TestTokenFeesOnTheDevChain: launch, swaps both ways, the snapshot's claimable is pendingFees to the
// wei; a creator's collectFees moves claimed, the count and the day's earnings; build-claim transactions
// signed here succeed on chain; build-transfer-beneficiary refuses a non-beneficiary (403) and moves the
// creator's share; bad input answers 400 naming the field.
func TestTokenFeesOnTheDevChain(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true, NoDatabases: true, FeeCacheTTL: -1})
	ch := feetest.Attach(t, env.Chain)
	f := &feeEnv{t: t, env: env, chain: ch, indexer: feeindex.New(env.DB, ch.Client,
		feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID})}
	keys := ch.Keys(3)
	creatorKey, traderKey, heirKey := keys[0], keys[1], keys[2]
	creator, heir := crypto.PubkeyToAddress(creatorKey.PublicKey), crypto.PubkeyToAddress(heirKey.PublicKey)
	l := ch.Launch(creatorKey, creator, "Fee Token", "FEE")
	ch.Trade(traderKey, l)
	f.index()

	// The snapshot: every field, claimable equal to pendingFees.
	token := l.Token.Hex()
	var snap client.FeeSnapshot
	r := f.get("/public/amm/token-fees/"+token, &snap)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(t, creator.Hex(), snap.Address, "the token routes show the creator beneficiary's snapshot")
	require.Equal(t, devchain.Network, snap.Chain)
	require.Equal(t, 30, snap.Days)
	require.Len(t, snap.Tokens, 1)
	tf := snap.Tokens[0]
	require.Equal(t, token, tf.TokenAddress)
	require.Equal(t, "Fee Token", tf.Name)
	require.Equal(t, "FEE", tf.Symbol)
	require.Equal(t, common.Hash(l.PoolID).Hex(), tf.PoolID)
	require.Equal(t, devchain.FeesManagerAddress.Hex(), tf.Initializer)
	require.Equal(t, "57", tf.Share)
	labels := map[common.Address]string{devchain.WETHAddress: "WETH", l.Token: "FEE"}
	require.Equal(t, labels[l.Token0], tf.Token0Label)
	require.Equal(t, labels[l.Token1], tf.Token1Label)
	pending := ch.Pending(l, creator)
	require.Positive(t, pending[0].Sign())
	require.Positive(t, pending[1].Sign())
	requireClaimable(t, pending, tf.Claimable)
	require.Equal(t, client.ClaimedFees{Token0: "0", Token1: "0", Count: 0}, tf.Claimed)
	require.Equal(t, feeread.Source, tf.Source)
	require.Len(t, snap.DailyEarnings, 30)
	require.Equal(t, time.Now().UTC().Format(time.DateOnly), snap.DailyEarnings[29].Date)
	require.Equal(t, "0", snap.LifetimeEarnedWeth)
	require.Zero(t, snap.LifetimeDays)
	require.Nil(t, snap.LifetimeBestDay)
	wethSide := 0
	if l.Token1 == devchain.WETHAddress {
		wethSide = 1
	}
	require.Equal(t, client.FeeTotals{ClaimableWeth: feeread.Ether(pending[wethSide]), ClaimedWeth: "0"}, snap.Totals)
	require.Contains(t, string(r.Raw), `"lifetimeBestDay":null`)

	// The SDK reads the same snapshot.
	sdk := client.New(client.WithBaseURL(env.URL))
	viaSDK := sdk.TokenFees(context.Background(), token, 30)
	require.True(t, viaSDK.OK, "%+v", viaSDK.Error)
	require.Equal(t, snap, viaSDK.Body)
	lookup := sdk.ClaimableFees(context.Background(), token, heir.Hex())
	require.True(t, lookup.OK, "%+v", lookup.Error)
	require.False(t, lookup.Body.Eligible)

	// The other path, another window.
	var week client.FeeSnapshot
	require.Equal(t, http.StatusOK, f.get("/token-launches/"+token+"/fees?days=7", &week).Status)
	require.Equal(t, 7, week.Days)
	require.Len(t, week.DailyEarnings, 7)
	requireClaimable(t, pending, week.Tokens[0].Claimable)

	// Claimable lookups: eligible and not.
	var c client.ClaimableFees
	require.Equal(t, http.StatusOK, f.get("/public/amm/claimable-fees/"+token+"?beneficiary="+creator.Hex(), &c).Status)
	require.True(t, c.Eligible)
	require.Equal(t, "57", c.Share)
	require.Equal(t, feeread.Ether(pending[0]), c.ClaimableFees.Token0)
	require.Equal(t, labels[l.Token0], c.ClaimableFees.Token0Label)
	r = f.get("/public/amm/claimable-fees/"+token+"?beneficiary="+heir.Hex(), nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, map[string]any{"ok": true, "eligible": false, "tokenAddress": token}, r.Body)

	// The creator collects: claimed and the count move, the day shows the WETH released.
	rel := release(t, ch.Collect(creatorKey, l))
	require.Equal(t, creator, rel.Beneficiary)
	f.index()
	require.Equal(t, http.StatusOK, f.get("/public/amm/token-fees/"+token, &snap).Status)
	tf = snap.Tokens[0]
	require.Equal(t, client.ClaimedFees{Token0: feeread.Ether(rel.Amount0), Token1: feeread.Ether(rel.Amount1), Count: 1}, tf.Claimed)
	requireClaimable(t, ch.Pending(l, creator), tf.Claimable)
	released := [2]*big.Int{rel.Amount0, rel.Amount1}[wethSide]
	require.Equal(t, feeread.Ether(released), snap.DailyEarnings[29].Weth)
	require.Equal(t, feeread.Ether(released), snap.LifetimeEarnedWeth)
	require.Equal(t, 1, snap.LifetimeDays)
	require.Equal(t, &client.DailyEarning{Date: snap.DailyEarnings[29].Date, Weth: feeread.Ether(released)}, snap.LifetimeBestDay)
	require.Equal(t, 1, snap.Totals.ClaimCount)
	require.Equal(t, feeread.Ether(released), snap.Totals.ClaimedWeth)

	// The creator's view sums its tokens: a second launch, traded and claimed.
	l2 := ch.Launch(creatorKey, creator, "Second", "SEC")
	ch.Trade(traderKey, l2)
	rel2 := release(t, ch.Collect(creatorKey, l2))
	f.index()
	released2 := rel2.Amount0
	if l2.Token1 == devchain.WETHAddress {
		released2 = rel2.Amount1
	}
	sum := feeread.Ether(new(big.Int).Add(released, released2))
	var mine client.FeeSnapshot
	require.Equal(t, http.StatusOK, f.get("/public/amm/creator-fees/"+creator.Hex()+"?days=90", &mine).Status)
	require.Len(t, mine.Tokens, 2)
	require.Equal(t, []string{token, l2.Token.Hex()}, []string{mine.Tokens[0].TokenAddress, mine.Tokens[1].TokenAddress})
	require.Len(t, mine.DailyEarnings, 90)
	require.Equal(t, client.FeeTotals{ClaimableWeth: "0", ClaimedWeth: sum, ClaimCount: 2}, mine.Totals)
	require.Equal(t, sum, mine.DailyEarnings[89].Weth)
	require.Equal(t, sum, mine.LifetimeEarnedWeth)
	var platform client.FeeSnapshot
	require.Equal(t, http.StatusOK, f.get("/public/amm/beneficiary-fees/"+devchain.PlatformAddress.Hex(), &platform).Status)
	require.Len(t, platform.Tokens, 2, "the platform is a beneficiary of both launches")
	require.Equal(t, "36.1", platform.Tokens[0].Share)
	requireClaimable(t, ch.Pending(l, devchain.PlatformAddress), platform.Tokens[0].Claimable)

	// build-claim: the token builds, the bad entries come back in errors; signed here, it pays on chain.
	ch.Trade(traderKey, l)
	want := ch.Pending(l, creator)
	stranger := common.HexToAddress("0x00000000000000000000000000000000000000aa").Hex()
	viaBuild := sdk.BuildClaim(context.Background(), client.BuildClaimRequest{BeneficiaryAddress: creator.Hex(),
		TokenAddresses: []string{token, "0xnot-an-address", stranger}})
	require.True(t, viaBuild.OK, "%+v", viaBuild.Error)
	require.Empty(t, viaBuild.IdempotencyKey, "a build changes nothing: no Idempotency-Key")
	built := viaBuild.Body
	require.Len(t, built.Transactions, 1)
	tx := built.Transactions[0]
	require.Equal(t, token, tx.TokenAddress)
	require.Equal(t, "Fee Token", tx.TokenName)
	require.Equal(t, "FEE", tx.TokenSymbol)
	require.Equal(t, devchain.FeesManagerAddress.Hex(), tx.To)
	require.Equal(t, int64(devchain.ChainID), tx.ChainID)
	require.NotEmpty(t, tx.Description)
	require.Equal(t, []client.BuildError{
		{TokenAddress: "0xnot-an-address", Code: "invalid_address", Message: "not a 0x address of 40 hex digits"},
		{TokenAddress: stranger, Code: "not_found", Message: built.Errors[1].Message},
	}, built.Errors)
	paid := release(t, f.signAndSend(creatorKey, tx))
	require.Equal(t, want[0].String(), paid.Amount0.String(), "the signed claim pays what the snapshot said, to the wei")
	require.Equal(t, want[1].String(), paid.Amount1.String())
	r = f.post("/public/amm/build-claim", client.BuildClaimRequest{BeneficiaryAddress: heir.Hex(), TokenAddresses: []string{token}}, &built)
	require.Equal(t, http.StatusOK, r.Status)
	require.Empty(t, built.Transactions)
	require.Equal(t, "not_beneficiary", built.Errors[0].Code)

	// build-transfer-beneficiary: 403 for a non-beneficiary; the creator's, signed here, moves its share.
	r = f.post("/public/amm/build-transfer-beneficiary", client.BuildTransferRequest{TokenAddress: token,
		CurrentBeneficiary: heir.Hex(), NewBeneficiary: creator.Hex()}, nil)
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Raw)
	require.Equal(t, client.CodeForbidden, r.ErrorCode())
	var moved client.BuildTransferResult
	r = f.post("/public/amm/build-transfer-beneficiary", client.BuildTransferRequest{TokenAddress: token,
		CurrentBeneficiary: creator.Hex(), NewBeneficiary: heir.Hex()}, &moved)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	f.signAndSend(creatorKey, moved.UnsignedFeeTx)
	f.index()
	require.Equal(t, http.StatusOK, f.get("/public/amm/token-fees/"+token, &snap).Status)
	require.Equal(t, heir.Hex(), snap.Address, "the creator beneficiary follows the transfer")
	require.Equal(t, "57", snap.Tokens[0].Share)
}

// TestTokenFeesRefusals: bad windows, addresses and bodies answer 400 naming the field; an unknown token
// 404; more than 50 tokens 400.
func TestTokenFeesRefusals(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true, NoDatabases: true})
	known := devchain.WETHAddress.Hex() // not a launched token
	cases := []struct {
		method, path string
		body         any
		status       int
		param        string
	}{
		{http.MethodGet, "/public/amm/token-fees/" + known + "?days=0", nil, 400, "days"},
		{http.MethodGet, "/public/amm/token-fees/" + known + "?days=91", nil, 400, "days"},
		{http.MethodGet, "/token-launches/" + known + "/fees?days=abc", nil, 400, "days"},
		{http.MethodGet, "/public/amm/token-fees/0x1234", nil, 400, "tokenAddress"},
		{http.MethodGet, "/public/amm/token-fees/" + known, nil, 404, ""},
		{http.MethodGet, "/public/amm/claimable-fees/" + known, nil, 400, "beneficiary"},
		{http.MethodGet, "/public/amm/creator-fees/nope", nil, 400, "walletAddress"},
		{http.MethodGet, "/public/amm/creator-fees/" + known + "?days=-1", nil, 400, "days"},
		{http.MethodGet, "/public/amm/beneficiary-fees/0x", nil, 400, "walletAddress"},
		{http.MethodPost, "/public/amm/build-claim", client.BuildClaimRequest{BeneficiaryAddress: "x", TokenAddresses: []string{known}}, 400, "beneficiaryAddress"},
		{http.MethodPost, "/public/amm/build-claim", client.BuildClaimRequest{BeneficiaryAddress: known, TokenAddresses: manyTokens(51)}, 400, "tokenAddresses"},
		{http.MethodPost, "/public/amm/build-claim", client.BuildClaimRequest{BeneficiaryAddress: known}, 400, "tokenAddresses"},
		{http.MethodPost, "/public/amm/build-transfer-beneficiary", client.BuildTransferRequest{TokenAddress: known,
			CurrentBeneficiary: known, NewBeneficiary: "0xzz"}, 400, "newBeneficiary"},
		{http.MethodPost, "/public/amm/build-transfer-beneficiary", client.BuildTransferRequest{TokenAddress: known,
			CurrentBeneficiary: known, NewBeneficiary: known}, 400, "newBeneficiary"},
		{http.MethodPost, "/public/amm/build-transfer-beneficiary", map[string]any{"tokenAddress": known,
			"currentBeneficiary": known, "newBeneficiary": devchain.PlatformAddress.Hex(), "extra": 1}, 400, ""},
	}
	for _, c := range cases {
		r := env.Do(t, apptest.Req{Method: c.method, Path: c.path, Body: c.body})
		require.Equal(t, c.status, r.Status, "%s %s: %s", c.method, c.path, r.Raw)
		if c.param != "" {
			e := r.Body["error"].(map[string]any)
			require.Equal(t, c.param, e["param"], "%s %s: %s", c.method, c.path, r.Raw)
		}
	}
}

// manyTokens is n distinct addresses.
func manyTokens(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("0x%040x", i+1)
	}
	return out
}
