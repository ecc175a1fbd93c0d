package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
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

// TestWalletQuotes: a quote prices a send (USDC at 1 USD, the native asset at the dev price), estimates
// its fee on the chain and gives the policy's verdict, naming the rule and the amounts, moving nothing;
// bad input is refused naming the field.
func TestWalletQuotes(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 1000, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.Eventually(t, func() bool { return c.GetWalletBalances(ctx, w.ID).Body.Balances[1].Amount == "1000" }, 30*time.Second, 50*time.Millisecond)
	friend := "0x52908400098527886E0F7030069857D2E4169EE7"

	q := c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: friend, Amount: "12.5", Asset: "usdc"})
	require.True(t, q.OK, "%v", q.Error)
	require.Regexp(t, `^quo_`, q.Body.Quote.ID)
	require.Equal(t, 12.5, *q.Body.Quote.USDValue)
	require.Equal(t, "12500000", q.Body.Quote.Atomic)
	require.Equal(t, client.VerdictAllowed, q.Body.Quote.Verdict.Decision)
	require.NotNil(t, q.Body.Quote.Fee, q.Body.Quote.FeeError)
	require.Positive(t, q.Body.Quote.Fee.GasLimit)
	require.False(t, q.Body.Quote.ContractCall)
	require.WithinDuration(t, time.Now().Add(60*time.Second), q.Body.Quote.ExpiresAt, 5*time.Second)

	over := c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: friend, Amount: "600", Asset: "usdc"})
	require.True(t, over.OK, "%v", over.Error)
	require.Equal(t, client.PolicyVerdict{Decision: client.VerdictRefused, Rule: "perTransactionLimitUsd",
		Message: "$600.00 is above the per-transaction limit of $500.00"}, over.Body.Quote.Verdict)
	eth := c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: friend, Amount: "0.1", Asset: "native"})
	require.True(t, eth.OK, "%v", eth.Error)
	require.Equal(t, 300.0, *eth.Body.Quote.USDValue, "0.1 at the dev price of 3000 USD")

	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{Paused: ptr(true)}).OK)
	paused := c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: friend, Amount: "1", Asset: "usdc"})
	require.Equal(t, "paused", paused.Body.Quote.Verdict.Rule)

	for _, tc := range []struct {
		r     client.TransactionQuoteRequest
		param string
	}{
		{client.TransactionQuoteRequest{To: "0x12", Amount: "1", Asset: "usdc"}, "to"},
		{client.TransactionQuoteRequest{To: friend, Amount: "0", Asset: "usdc"}, "amount"},
		{client.TransactionQuoteRequest{To: friend, Amount: "1.0000001", Asset: "usdc"}, "amount"},
		{client.TransactionQuoteRequest{To: friend, Amount: "-1", Asset: "usdc"}, "amount"},
		{client.TransactionQuoteRequest{To: friend, Amount: "1", Asset: "doge"}, "asset"},
		{client.TransactionQuoteRequest{To: friend, Amount: "1", Asset: "usdc", Data: "0x00"}, "data"},
		{client.TransactionQuoteRequest{To: friend, Amount: "1", Asset: "native", Data: "zz"}, "data"},
	} {
		r := c.QuoteTransaction(ctx, w.ID, tc.r)
		require.Equal(t, http.StatusBadRequest, r.StatusCode, "%+v: %s", tc.r, r.Raw)
		require.Equal(t, tc.param, r.Error.Param, "%s", r.Raw)
	}
	require.Equal(t, "1000", c.GetWalletBalances(ctx, w.ID).Body.Balances[1].Amount, "a quote moves nothing")
}

// waitWalletTx polls a wallet transaction until it is done.
func waitWalletTx(t *testing.T, c *client.Client, walletID, id string) client.WalletTransaction {
	t.Helper()
	var last client.WalletTransaction
	require.Eventually(t, func() bool {
		r := c.GetWalletTransaction(context.Background(), walletID, id)
		require.True(t, r.OK, "%v", r.Error)
		last = r.Body.Transaction
		return last.Done()
	}, 60*time.Second, 50*time.Millisecond, "transaction %s never finished (last %+v)", id, last)
	return last
}

// TestWalletSendsOnChain: a send within the limits is signed, broadcast and confirmed on the dev chain
// (balances move, one event); a quote is executed; one over the per-transaction limit is refused naming
// both amounts; 20 concurrent sends of 50 USDC against the 500 USD daily limit send exactly 500.
func TestWalletSendsOnChain(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	to := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "receiver"}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 2000, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.Eventually(t, func() bool { return c.GetWalletBalances(ctx, w.ID).Body.Balances[1].Amount == "2000" }, 30*time.Second, 50*time.Millisecond)

	q := c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: to.Address, Amount: "10", Asset: "usdc"})
	require.True(t, q.OK, "%v", q.Error)
	sent := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{QuoteID: q.Body.Quote.ID})
	require.True(t, sent.OK, "%v", sent.Error)
	require.Equal(t, http.StatusAccepted, sent.StatusCode)
	require.Equal(t, "wallettx/"+sent.Body.Transaction.ID, sent.Body.Transaction.WorkflowID)
	done := waitWalletTx(t, c, w.ID, sent.Body.Transaction.ID)
	require.Equal(t, client.WalletTxConfirmed, done.Status, "%+v", done.Error)
	require.NotNil(t, done.Hash)
	require.Equal(t, "10", c.GetWalletBalances(ctx, to.ID).Body.Balances[1].Amount)
	require.Equal(t, "1990", c.GetWalletBalances(ctx, w.ID).Body.Balances[1].Amount)
	require.Equal(t, 1, countEvents(t, env, tenant.id, "wallet.transaction.confirmed"))

	over := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: to.Address, Amount: "600", Asset: "usdc"})
	require.Equal(t, http.StatusForbidden, over.StatusCode, "%s", over.Raw)
	require.Contains(t, over.Error.Message, "$600.00 is above the per-transaction limit of $500.00")
	require.Equal(t, "perTransactionLimitUsd", over.Error.Details["rule"])

	// 10 USD spent; 49 concurrent sends of 10 USD fit in the 500 USD daily limit, the rest are refused.
	results := make(chan client.Response[client.WalletTransactionEnvelope], 60)
	var wg sync.WaitGroup
	for range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: to.Address, Amount: "10", Asset: "usdc"})
		}()
	}
	wg.Wait()
	close(results)
	var accepted []string
	refused := 0
	for r := range results {
		switch r.StatusCode {
		case http.StatusAccepted:
			accepted = append(accepted, r.Body.Transaction.ID)
		case http.StatusForbidden:
			refused++
			require.Equal(t, "dailyLimitUsd", r.Error.Details["rule"], "%s", r.Raw)
		default:
			t.Fatalf("unexpected %d: %s", r.StatusCode, r.Raw)
		}
	}
	require.Len(t, accepted, 49)
	require.Equal(t, 11, refused)
	nonces := map[int64]bool{}
	for _, id := range accepted {
		d := waitWalletTx(t, c, w.ID, id)
		require.Equal(t, client.WalletTxConfirmed, d.Status, "%+v", d.Error)
		require.False(t, nonces[*d.Nonce], "nonce %d used twice", *d.Nonce)
		nonces[*d.Nonce] = true
	}
	require.Equal(t, "500", c.GetWalletBalances(ctx, to.ID).Body.Balances[1].Amount, "exactly the daily limit was sent")
	list := c.ListWalletTransactions(ctx, w.ID, client.ListParams{Limit: 100})
	require.True(t, list.OK)
	require.Len(t, list.Body.Transactions, 50)
}
