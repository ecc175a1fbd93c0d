package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
)

// railsByID indexes the rails of a capabilities answer.
func railsByID(t *testing.T, c *client.Client) map[string]client.CryptoRail {
	t.Helper()
	r := c.CryptoCapabilities(context.Background())
	require.NoError(t, r.Err())
	out := map[string]client.CryptoRail{}
	for _, rail := range r.Body.Rails {
		out[rail.ID] = rail
	}
	require.Len(t, out, 3)
	return out
}

// TestCryptoCapabilitiesSelectAndPrepare: the rails say what the caller can use (the wallet send only
// once the account has a wallet); select prefers credits the balance covers, then a top-up, and only a
// wallet send pays an address; the prepared requests are exact (the platform answers them as it would:
// the top-up with 402, the quote with the policy's verdict) and preparing spends nothing.
func TestCryptoCapabilitiesSelectAndPrepare(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	ctx := context.Background()
	key := fundedKey(t, env, 1_000) // 10 USD of credits
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))

	rails := railsByID(t, c)
	require.True(t, rails[client.RailCredits].Available)
	require.InDelta(t, 1000, *rails[client.RailCredits].BalanceCredits, 0.001)
	require.InDelta(t, 10, *rails[client.RailCredits].Limits.MaxUSD, 0.001)
	top := rails[client.RailX402TopUp]
	require.True(t, top.Available, top.UnavailableReason)
	require.Equal(t, devchain.Network, top.Network)
	require.Equal(t, devchain.PayTo.Hex(), top.PayTo)
	require.InDelta(t, 500, *top.Limits.MaxUSD, 0)
	send := rails[client.RailWalletSend]
	require.False(t, send.Available)
	require.Contains(t, send.UnavailableReason, "no managed wallet")

	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "ops"})
	require.NoError(t, w.Err())
	wid := w.Body.Wallet.ID
	send = railsByID(t, c)[client.RailWalletSend]
	require.True(t, send.Available, send.UnavailableReason)
	require.Len(t, send.Wallets, 1)
	require.InDelta(t, 500, *send.Limits.MaxUSD, 0)

	for _, s := range []struct {
		req  client.CryptoActionRequest
		rail string
		says string
	}{
		{client.CryptoActionRequest{Action: client.CryptoSelect, AmountUSD: 4}, client.RailCredits, "covers 400 credits"},
		{client.CryptoActionRequest{Action: client.CryptoSelect, AmountUSD: 40}, client.RailX402TopUp, "buy 40 USD"},
		{client.CryptoActionRequest{Action: client.CryptoSelect, AmountUSD: 2, Purpose: client.PurposeTopUp}, "", "a top-up is 5 to 500 USD, not 2"},
		{client.CryptoActionRequest{Action: client.CryptoSelect, AmountUSD: 25, To: devchain.PayTo.Hex()}, client.RailWalletSend, wid},
		{client.CryptoActionRequest{Action: client.CryptoSelect, AmountUSD: 600, To: devchain.PayTo.Hex()}, "", "no wallet that is not paused allows 600 USD"},
	} {
		r := c.CryptoAction(ctx, s.req)
		if s.rail == "" {
			require.Equal(t, http.StatusConflict, r.StatusCode, "%+v", s.req)
			require.Contains(t, r.Error.Message, s.says)
			continue
		}
		require.NoError(t, r.Err(), "%+v", s.req)
		require.Equal(t, s.rail, r.Body.Selection.Rail, "%+v", s.req)
		require.Contains(t, r.Body.Selection.Reason, s.says)
		require.Len(t, r.Body.Selection.Verdicts, 3)
		require.Nil(t, r.Body.Prepared, "select prepares nothing")
	}

	// The prepared top-up is the real route's request: sent as is, it answers 402 with what to pay.
	p := c.CryptoAction(ctx, client.CryptoActionRequest{Action: client.CryptoPrepare, AmountUSD: 40})
	require.NoError(t, p.Err())
	pr := p.Body.Prepared
	require.False(t, pr.Executed)
	require.Equal(t, "/v1/credits/x402/top-up", pr.Request.Path)
	require.Equal(t, env.URL+"/v1/credits/x402/top-up", pr.Request.URL)
	require.Contains(t, pr.Then, "402")
	paid := env.Do(t, apptest.Req{Method: pr.Request.Method, Path: pr.Request.Path, Key: key, Body: pr.Request.Body, Headers: pr.Request.Headers})
	require.Equal(t, http.StatusPaymentRequired, paid.Status, "%s", paid.Raw)

	// The prepared wallet send: its quote is answered by the policy, and nothing was sent.
	p = c.CryptoAction(ctx, client.CryptoActionRequest{Action: client.CryptoPrepare, AmountUSD: 25, To: devchain.PayTo.Hex()})
	require.NoError(t, p.Err())
	pr = p.Body.Prepared
	require.Equal(t, "/v1/wallets/"+wid+"/transactions", pr.Request.Path)
	require.Equal(t, map[string]any{"to": devchain.PayTo.Hex(), "amount": "25", "asset": "usdc"}, pr.Request.Body)
	require.NotEmpty(t, pr.Request.Headers["Idempotency-Key"])
	q := env.Do(t, apptest.Req{Method: pr.Preflight.Method, Path: pr.Preflight.Path, Key: key, Body: pr.Preflight.Body, Headers: pr.Preflight.Headers})
	require.Equal(t, http.StatusOK, q.Status, "%s", q.Raw)
	require.Equal(t, "allowed", q.Body["quote"].(map[string]any)["verdict"].(map[string]any)["decision"])
	txs := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/wallets/" + wid + "/transactions", Key: key})
	require.Empty(t, txs.Body["transactions"], "prepare sends nothing")
	require.InDelta(t, 1000, *railsByID(t, c)[client.RailCredits].BalanceCredits, 0.001, "nor spends credits")
}

// TestCryptoCapabilitiesRefusals: bad fields are 400s naming the field; a rail that does not fit is a
// 409 saying why; another account's wallet is not found; a key without runs:write is refused; a key
// without the rails' scopes sees them unavailable, and why.
func TestCryptoCapabilitiesRefusals(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	key := fundedKey(t, env, 100)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	to := "0x000000000000000000000000000000000000dEaD"
	for _, s := range []struct {
		req   client.CryptoActionRequest
		param string
	}{
		{client.CryptoActionRequest{Action: client.CryptoSelect, AmountUSD: 0}, "amountUsd"},
		{client.CryptoActionRequest{Action: client.CryptoSelect, AmountUSD: 1.234}, "amountUsd"},
		{client.CryptoActionRequest{Action: client.CryptoSelect, AmountUSD: 5, Purpose: client.PurposeTransfer}, "to"},
		{client.CryptoActionRequest{Action: client.CryptoSelect, AmountUSD: 5, Rail: client.RailCredits}, "rail"},
		{client.CryptoActionRequest{Action: "spend", AmountUSD: 5}, "action"},
	} {
		r := c.CryptoAction(ctx, s.req)
		require.Equal(t, http.StatusBadRequest, r.StatusCode, "%+v", s.req)
		require.Equal(t, s.param, r.Error.Param, "%+v: %s", s.req, r.Error.Message)
	}

	// No top-ups on this server and the balance (1 USD) is short: nothing fits, and the 409 says why.
	r := c.CryptoAction(ctx, client.CryptoActionRequest{Action: client.CryptoPrepare, AmountUSD: 3})
	require.Equal(t, http.StatusConflict, r.StatusCode)
	require.Contains(t, r.Error.Message, "credits: the balance (100 credits) is short of the 300 credits")
	require.Contains(t, r.Error.Message, "x402-topup: this server sells no x402 top-ups")
	require.Len(t, r.Error.Details["considered"], 3)

	other := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(env.FirstKey(t)))
	ow := other.CreateWallet(ctx, client.CreateWalletRequest{Name: "theirs"})
	require.NoError(t, ow.Err())
	mine := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "mine"})
	require.NoError(t, mine.Err())
	r = c.CryptoAction(ctx, client.CryptoActionRequest{Action: client.CryptoPrepare, AmountUSD: 5, To: to, WalletID: ow.Body.Wallet.ID})
	require.Equal(t, http.StatusConflict, r.StatusCode)
	require.Contains(t, r.Error.Message, "the account has no wallet "+ow.Body.Wallet.ID)
	r = c.CryptoAction(ctx, client.CryptoActionRequest{Action: client.CryptoPrepare, AmountUSD: 5, Rail: client.RailWalletSend, To: "bob", Purpose: client.PurposeTransfer})
	require.Equal(t, http.StatusBadRequest, r.StatusCode)
	require.Equal(t, "to", r.Error.Param)

	narrow := func(scopes ...string) *client.Client {
		resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: key, Body: map[string]any{"scopes": scopes},
			Headers: map[string]string{"Idempotency-Key": "narrow-" + strings.Join(scopes, ",")}})
		require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
		return client.New(client.WithBaseURL(env.URL), client.WithAPIKey(resp.Body["apiKey"].(map[string]any)["secret"].(string)))
	}
	require.Equal(t, http.StatusForbidden, narrow(client.ScopeRunsRead).CryptoCapabilities(ctx).StatusCode)
	rails := railsByID(t, narrow(client.ScopeRunsWrite))
	require.False(t, rails[client.RailCredits].Available)
	require.Nil(t, rails[client.RailCredits].BalanceCredits)
	require.Contains(t, rails[client.RailCredits].UnavailableReason, "credits:read")
	require.Contains(t, rails[client.RailWalletSend].UnavailableReason, "wallets:transact")
	require.Empty(t, rails[client.RailWalletSend].Wallets, "a key that may not send sees no wallets")
}

// TestHandoffMachinesListsCards: GET /api/handoff/machines lists the vault's machine cards.
func TestHandoffMachinesListsCards(t *testing.T) {
	t.Parallel()
	h := newHandoffEnv(t)
	r := h.c.HandoffMachineCards(context.Background())
	require.NoError(t, r.Err())
	require.Len(t, r.Body.Machines, 2)
	mac := r.Body.Machines[0]
	require.Equal(t, "studio-mac", mac.MachineID)
	require.Equal(t, "studio.local", mac.Host)
	require.True(t, mac.FileTransfers)
	require.Equal(t, []string{"code"}, mac.Agents[0].WorkerClasses)
	require.NotEmpty(t, mac.LastSeen)
}
