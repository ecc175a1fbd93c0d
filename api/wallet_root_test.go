package api_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/handles"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// usdcTransferData is the call data of USDC transfer(to, atomic).
func usdcTransferData(to string, atomic int64) string {
	data := append([]byte{0xa9, 0x05, 0x9c, 0xbb}, common.LeftPadBytes(common.HexToAddress(to).Bytes(), 32)...)
	return "0x" + common.Bytes2Hex(append(data, common.LeftPadBytes(big.NewInt(atomic).Bytes(), 32)...))
}

// TestWalletRootRoutes: seed 002's /wallet/portfolio answers the account's first wallet's balances with
// their USD values; /wallet/transfer sends USDC to a name the handle resolver knows and the native asset
// to an address, each confirmed on chain through wallettx/<id>; /wallet/submit sends a USDC
// transfer(to, amount) given as fields or as a raw transaction the wallet signed, and refuses a contract
// call while disableContractCalls is on (a token transfer still passes); bad input names its field;
// another account's wallet is 404 and a key without managed-wallets is 403.
func TestWalletRootRoutes(t *testing.T) {
	t.Parallel()
	receiverKey, err := crypto.GenerateKey()
	require.NoError(t, err)
	friend := crypto.PubkeyToAddress(receiverKey.PublicKey)
	env := apptest.NewWith(t, apptest.Options{Chain: true, WalletNames: handles.Names{"friend.eth": friend}})
	tenant, other := newDatabaseAccount(t, env), newDatabaseAccount(t, env)
	c, co := sdkFor(env, tenant), sdkFor(env, other)
	ctx := context.Background()

	none := c.Portfolio(ctx, client.PortfolioParams{})
	require.Equal(t, http.StatusNotFound, none.StatusCode, "no wallet yet: %s", none.Raw)
	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "main"}).Body.Wallet
	second := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "second"}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 100, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.Eventually(t, func() bool {
		p := c.Portfolio(ctx, client.PortfolioParams{})
		return p.OK && p.Body.Portfolio.Balances[1].Amount == "100" && p.Body.Portfolio.Balances[0].Amount == "1"
	}, 30*time.Second, 50*time.Millisecond)

	p := c.Portfolio(ctx, client.PortfolioParams{Chain: "1337"}).Body.Portfolio
	require.Equal(t, w.ID, p.WalletID, "no walletId: the first wallet")
	require.Equal(t, w.Address, p.Address)
	require.Equal(t, "usdc", p.Balances[1].Asset)
	require.Equal(t, 100.0, *p.Balances[1].USDValue)
	require.Equal(t, 1.0, *p.Balances[1].USDPrice)
	require.Equal(t, "native", p.Balances[0].Asset)
	require.Equal(t, 3000.0, *p.Balances[0].USDValue, "1 ETH at the dev price")
	require.Equal(t, 3100.0, p.TotalUSD)
	ps := c.Portfolio(ctx, client.PortfolioParams{WalletID: second.ID})
	require.True(t, ps.OK, "%v", ps.Error)
	require.Equal(t, second.ID, ps.Body.Portfolio.WalletID)
	require.Zero(t, ps.Body.Portfolio.TotalUSD)
	badChain := c.Portfolio(ctx, client.PortfolioParams{Chain: "eip155:1"})
	require.Equal(t, http.StatusBadRequest, badChain.StatusCode)
	require.Equal(t, "chain", badChain.Error.Param)

	sent := c.Transfer(ctx, client.WalletTransferRequest{To: "Friend.eth", Amount: "5", Token: "usdc", Chain: "eip155:1337"})
	require.True(t, sent.OK, "%v", sent.Error)
	require.Equal(t, http.StatusAccepted, sent.StatusCode)
	require.Equal(t, w.ID, sent.Body.Transaction.WalletID)
	require.Equal(t, friend.Hex(), sent.Body.Transaction.To, "the name resolved")
	done := waitWalletTx(t, c, w.ID, sent.Body.Transaction.ID)
	require.Equal(t, client.WalletTxConfirmed, done.Status, "%+v", done.Error)
	eth := c.Transfer(ctx, client.WalletTransferRequest{To: second.Address, Amount: "0.001", Native: true})
	require.True(t, eth.OK, "%v", eth.Error)
	require.Equal(t, 3.0, *eth.Body.Transaction.USDValue)
	require.Equal(t, client.WalletTxConfirmed, waitWalletTx(t, c, w.ID, eth.Body.Transaction.ID).Status)
	require.Equal(t, "0.001", c.GetWalletBalances(ctx, second.ID).Body.Balances[0].Amount)

	for _, tc := range []struct {
		r     client.WalletTransferRequest
		param string
	}{
		{client.WalletTransferRequest{To: "nobody.eth", Amount: "1", Token: "usdc"}, "to"},
		{client.WalletTransferRequest{To: "not a name", Amount: "1", Token: "usdc"}, "to"},
		{client.WalletTransferRequest{To: "friend.eth", Amount: "1", Token: "usdc", Native: true}, "token"},
		{client.WalletTransferRequest{To: "friend.eth", Amount: "1"}, "token"},
		{client.WalletTransferRequest{To: "friend.eth", Amount: "1", Token: "doge"}, "token"},
		{client.WalletTransferRequest{To: "friend.eth", Amount: "x", Token: "usdc"}, "amount"},
		{client.WalletTransferRequest{To: "friend.eth", Amount: "1", Token: "usdc", Chain: "eip155:1"}, "chain"},
	} {
		r := c.Transfer(ctx, tc.r)
		require.Equal(t, http.StatusBadRequest, r.StatusCode, "%+v: %s", tc.r, r.Raw)
		require.Equal(t, tc.param, r.Error.Param, "%s", r.Raw)
	}

	chainID := int64(1337)
	sub := c.Submit(ctx, client.WalletSubmitRequest{To: devchain.USDCAddress.Hex(), ChainID: &chainID, Data: usdcTransferData(friend.Hex(), 2_000_000)})
	require.True(t, sub.OK, "%v", sub.Error)
	require.Equal(t, "usdc", sub.Body.Transaction.Asset, "a USDC transfer call is a token transfer")
	require.Equal(t, friend.Hex(), sub.Body.Transaction.To)
	require.Equal(t, client.WalletTxConfirmed, waitWalletTx(t, c, w.ID, sub.Body.Transaction.ID).Status)

	// A raw transaction the wallet signed (as eth_signTransaction answers it) sends its fields.
	row := new(schema.Wallet)
	require.NoError(t, env.DB.NewSelect().Model(row).Where("id = ?", w.ID).Scan(ctx))
	key, err := wallet.OpenKey(env.Box, w.ID, common.HexToAddress(w.Address), wallet.Sealed{Key: row.SealedKey, DataKey: row.SealedDataKey})
	require.NoError(t, err)
	usdc := devchain.USDCAddress
	sign := func(k *ecdsa.PrivateKey, data string) string {
		tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(chainID), Nonce: 999, To: &usdc, Gas: 100_000,
			GasFeeCap: big.NewInt(1e9), GasTipCap: big.NewInt(1), Data: common.FromHex(data)})
		signed, err := types.SignTx(tx, types.LatestSignerForChainID(big.NewInt(chainID)), k)
		require.NoError(t, err)
		raw, err := signed.MarshalBinary()
		require.NoError(t, err)
		return "0x" + common.Bytes2Hex(raw)
	}
	rawSub := c.Submit(ctx, client.WalletSubmitRequest{Transaction: sign(key, usdcTransferData(friend.Hex(), 3_000_000))})
	require.True(t, rawSub.OK, "%v", rawSub.Error)
	require.Equal(t, "3", rawSub.Body.Transaction.Amount)
	require.Equal(t, client.WalletTxConfirmed, waitWalletTx(t, c, w.ID, rawSub.Body.Transaction.ID).Status)
	foreign := c.Submit(ctx, client.WalletSubmitRequest{Transaction: sign(receiverKey, usdcTransferData(friend.Hex(), 1))})
	require.Equal(t, http.StatusBadRequest, foreign.StatusCode, "%s", foreign.Raw)
	require.Equal(t, "transaction", foreign.Error.Param)
	require.Contains(t, foreign.Error.Message, friend.Hex())

	usdcBalance := func() string {
		p := c.Portfolio(ctx, client.PortfolioParams{})
		require.True(t, p.OK, "%v", p.Error)
		return p.Body.Portfolio.Balances[1].Amount
	}
	require.Equal(t, "90", usdcBalance(), "5 + 2 + 3 USDC left")

	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{DisableContractCalls: ptr(true)}).OK)
	call := c.Submit(ctx, client.WalletSubmitRequest{To: usdc.Hex(), ChainID: &chainID, Data: "0x095ea7b3" + common.Bytes2Hex(make([]byte, 64))})
	require.Equal(t, http.StatusForbidden, call.StatusCode, "%s", call.Raw)
	require.Equal(t, wallet.RuleContractCalls, call.Error.Details["rule"])
	rawCall := c.Submit(ctx, client.WalletSubmitRequest{Transaction: sign(key, "0xdeadbeef")})
	require.Equal(t, http.StatusForbidden, rawCall.StatusCode, "%s", rawCall.Raw)
	require.Equal(t, wallet.RuleContractCalls, rawCall.Error.Details["rule"])
	tokenOK := c.Submit(ctx, client.WalletSubmitRequest{To: usdc.Hex(), ChainID: &chainID, Data: usdcTransferData(friend.Hex(), 1_000_000)})
	require.True(t, tokenOK.OK, "a known-token transfer is no contract call: %v", tokenOK.Error)
	require.Equal(t, client.WalletTxConfirmed, waitWalletTx(t, c, w.ID, tokenOK.Body.Transaction.ID).Status)
	require.Equal(t, "89", usdcBalance())

	for _, tc := range []struct {
		r     client.WalletSubmitRequest
		param string
	}{
		{client.WalletSubmitRequest{To: friend.Hex(), Value: "1"}, "chainId"},
		{client.WalletSubmitRequest{To: friend.Hex(), ChainID: ptr(int64(1)), Value: "1"}, "chainId"},
		{client.WalletSubmitRequest{To: friend.Hex(), ChainID: &chainID, Value: "1.5"}, "value"},
		{client.WalletSubmitRequest{To: "0x12", ChainID: &chainID, Value: "1"}, "to"},
		{client.WalletSubmitRequest{Transaction: "0x1234"}, "transaction"},
		{client.WalletSubmitRequest{Transaction: "0x1234", To: friend.Hex()}, "transaction"},
	} {
		r := c.Submit(ctx, tc.r)
		require.Equal(t, http.StatusBadRequest, r.StatusCode, "%+v: %s", tc.r, r.Raw)
		require.Equal(t, tc.param, r.Error.Param, "%s", r.Raw)
	}

	for _, r := range []int{
		co.Portfolio(ctx, client.PortfolioParams{WalletID: w.ID}).StatusCode,
		co.Portfolio(ctx, client.PortfolioParams{}).StatusCode,
		co.Transfer(ctx, client.WalletTransferRequest{WalletID: w.ID, To: "friend.eth", Amount: "1", Token: "usdc"}).StatusCode,
		co.Submit(ctx, client.WalletSubmitRequest{WalletID: w.ID, To: usdc.Hex(), ChainID: &chainID, Data: usdcTransferData(friend.Hex(), 1)}).StatusCode,
	} {
		require.Equal(t, http.StatusNotFound, r, "another account's wallet is 404")
	}

	narrow := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: tenant.key,
		Body: map[string]any{"services": []string{"managed-workflows"}}, Headers: map[string]string{"Idempotency-Key": "narrow"}})
	require.Equal(t, http.StatusCreated, narrow.Status, "%s", narrow.Raw)
	cn := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(narrow.Body["apiKey"].(map[string]any)["secret"].(string)))
	for _, r := range []int{cn.Portfolio(ctx, client.PortfolioParams{}).StatusCode,
		cn.Transfer(ctx, client.WalletTransferRequest{To: "friend.eth", Amount: "1", Token: "usdc"}).StatusCode,
		cn.Submit(ctx, client.WalletSubmitRequest{To: usdc.Hex(), ChainID: &chainID, Data: usdcTransferData(friend.Hex(), 1)}).StatusCode} {
		require.Equal(t, http.StatusForbidden, r, "a key without managed-wallets")
	}

	// X-API-Key, seed 002's header, works as well as Bearer.
	viaHeader := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/wallet/portfolio", Headers: map[string]string{"X-API-Key": tenant.key}})
	require.Equal(t, http.StatusOK, viaHeader.Status, "%s", viaHeader.Raw)
	require.Equal(t, "89", usdcBalance())
}
