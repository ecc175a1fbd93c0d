package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// TestWalletsCreateReadFundPolicy: a wallet is created with a fresh EIP-55 address and the default
// policy; it is listed and read, never with its key; its balances are read from the chain and move when
// the dev faucet funds it; its policy changes field by field (null turns a limit off, 0 is refused
// naming the field); another account sees none of it, and a key without managed-wallets is 403.
func TestWalletsCreateReadFundPolicy(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant, other := newDatabaseAccount(t, env), newDatabaseAccount(t, env)
	c, co := sdkFor(env, tenant), sdkFor(env, other)
	ctx := context.Background()

	created := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "ops"})
	require.True(t, created.OK, "%v", created.Error)
	require.Equal(t, http.StatusCreated, created.StatusCode)
	w := created.Body.Wallet
	require.Regexp(t, `^wal_`, w.ID)
	require.Equal(t, common.HexToAddress(w.Address).Hex(), w.Address, "EIP-55")
	require.Equal(t, client.ChainDev, w.Chain)
	require.Equal(t, 500.0, *w.Policy.DailyLimitUSD)
	require.NotContains(t, string(created.Raw), "sealed")

	list := c.ListWallets(ctx, client.ListParams{})
	require.True(t, list.OK)
	require.Len(t, list.Body.Wallets, 1)
	require.Equal(t, w, list.Body.Wallets[0])
	got := c.GetWallet(ctx, w.ID)
	require.True(t, got.OK)
	require.Equal(t, w, got.Body.Wallet)

	bal := c.GetWalletBalances(ctx, w.ID)
	require.True(t, bal.OK, "%v", bal.Error)
	require.Equal(t, "0", bal.Body.Balances[1].Amount)
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 25.5}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.Eventually(t, func() bool {
		b := c.GetWalletBalances(ctx, w.ID)
		return b.OK && b.Body.Balances[1].Amount == "25.5"
	}, 30*time.Second, 50*time.Millisecond)
	b := c.GetWalletBalances(ctx, w.ID).Body
	require.Equal(t, "usdc", b.Balances[1].Asset)
	require.Equal(t, "25500000", b.Balances[1].Atomic)
	require.Equal(t, 6, b.Balances[1].Decimals)
	require.Equal(t, "native", b.Balances[0].Asset)

	upd := c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{DailyLimitUSD: client.DisableUSD(),
		ApprovalAboveUSD: client.USD(100), Paused: ptr(true)})
	require.True(t, upd.OK, "%v", upd.Error)
	require.Nil(t, upd.Body.Wallet.Policy.DailyLimitUSD)
	require.Equal(t, 100.0, *upd.Body.Wallet.Policy.ApprovalAboveUSD)
	require.True(t, upd.Body.Wallet.Policy.Paused)
	require.Equal(t, 500.0, *upd.Body.Wallet.Policy.PerTransactionLimitUSD)
	raw := env.Do(t, apptest.Req{Method: http.MethodPatch, Path: "/v1/wallets/" + w.ID + "/policy", Key: tenant.key,
		Body: map[string]any{"perTransactionLimitUsd": 0}, Headers: map[string]string{"Idempotency-Key": "zero"}})
	require.Equal(t, http.StatusBadRequest, raw.Status, "%s", raw.Raw)
	require.Equal(t, "perTransactionLimitUsd", raw.Body["error"].(map[string]any)["param"])
	var policy client.WalletPolicy
	require.NoError(t, json.Unmarshal(mustJSON(t, c.GetWallet(ctx, w.ID).Body.Wallet.Policy), &policy))
	require.Equal(t, 500.0, *policy.PerTransactionLimitUSD, "a refused change stores nothing")

	bad := c.CreateWallet(ctx, client.CreateWalletRequest{Chain: "eip155:1"})
	require.Equal(t, http.StatusBadRequest, bad.StatusCode)
	require.Equal(t, "chain", bad.Error.Param)

	for _, r := range []int{co.GetWallet(ctx, w.ID).StatusCode, co.GetWalletBalances(ctx, w.ID).StatusCode,
		co.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{Paused: ptr(false)}).StatusCode} {
		require.Equal(t, http.StatusNotFound, r, "another account's wallet is 404")
	}
	require.Empty(t, co.ListWallets(ctx, client.ListParams{}).Body.Wallets)

	narrow := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: tenant.key,
		Body: map[string]any{"services": []string{"managed-workflows"}}, Headers: map[string]string{"Idempotency-Key": "narrow"}})
	require.Equal(t, http.StatusCreated, narrow.Status, "%s", narrow.Raw)
	cn := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(narrow.Body["apiKey"].(map[string]any)["secret"].(string)))
	require.Equal(t, http.StatusForbidden, cn.GetWallet(ctx, w.ID).StatusCode)
	require.Equal(t, http.StatusForbidden, cn.CreateWallet(ctx, client.CreateWalletRequest{}).StatusCode)
}

func ptr[T any](v T) *T { return &v }

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
