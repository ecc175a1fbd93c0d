package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// tradeEnv is a real API on the dev chain, an account with 100 credits (orders hold their fee), a funded wallet (1 ETH, 500 USDC) made with the CLI, and the
// CLI's environment (no terminal).
func tradeEnv(t *testing.T) (map[string]string, string, *client.Client) {
	t.Helper()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoDatabases: true})
	created, err := env.Accounts.Create(context.Background(), "trader", 100, 0)
	require.NoError(t, err)
	first := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": created.CreditToken, "Idempotency-Key": "first-key"}})
	require.Equal(t, http.StatusCreated, first.Status, "%s", first.Raw)
	key := first.Body["apiKey"].(map[string]any)["secret"].(string)
	// No terminal (cli's stdin is not one): nothing prompts, and confirmations need --yes.
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL, "SVC_API_KEY": key}
	r := cli(t, vars, "", "--json", "wallets", "create", "--name", "trader")
	require.Equal(t, exitOK, r.code, "%s %s", r.stdout, r.stderr)
	var w client.WalletEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &w), r.stdout)
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Wallet.Address, "usdc": 500, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	return vars, w.Wallet.ID, client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
}

// TestTradeCommands runs "svc trade" against the real API and dev chain: a quote moves nothing; "buy
// --yes" shows the quote, follows the order on stderr to filled and prints it; "sell --json" prints the
// filled order's envelope; "orders" lists both and shows one; "positions" shows the DEV bought less the
// DEV sold; flag mistakes (and no terminal without --yes) are usage errors naming the flag; an unknown
// token is the API's error naming base (exit 1).
func TestTradeCommands(t *testing.T) {
	t.Parallel()
	vars, walletID, sdk := tradeEnv(t)
	svc := func(args ...string) result {
		t.Helper()
		return cli(t, vars, "", args...)
	}
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r.stdout
	}
	ctx := context.Background()

	out := ok(svc("trade", "quote", "--side", "buy", "--wallet", walletID, "--base", "DEV", "--amount", "10", "--exact-out"))
	require.Regexp(t, `Receive:\s+10 DEV`, out)
	require.Regexp(t, `Maximum paid:\s+[0-9.]+ USDC`, out)
	require.Regexp(t, `Policy:\s+allowed`, out)
	require.Empty(t, sdk.Orders(ctx, client.OrderFilter{}).Body.Orders, "a quote places nothing")

	r := svc("trade", "buy", "--wallet", walletID, "--base", "DEV", "--amount", "10", "--exact-out", "--yes", "--interval", "50ms")
	out = ok(r)
	require.Contains(t, r.stderr, "Receive:", "the quote is shown before the order")
	require.Regexp(t, `ord_\S+  filled`, r.stderr, "progress on stderr")
	require.Regexp(t, `Status:\s+filled`, out)
	require.Regexp(t, `Received:\s+10 DEV`, out)

	r = svc("--json", "trade", "sell", "--wallet", walletID, "--base", "DEV", "--amount", "4", "--yes", "--interval", "50ms")
	var sold client.TradingOrderEnvelope
	require.NoError(t, json.Unmarshal([]byte(ok(r)), &sold), r.stdout)
	require.Equal(t, client.OrderFilled, sold.Order.Status)
	require.Equal(t, "4", sold.Order.FilledIn)

	out = ok(svc("trade", "orders", "--pair", "DEV/USDC"))
	require.Regexp(t, `(?m)^ord_\S+\s+filled\s+sell\s+DEV/USDC`, out)
	require.Regexp(t, `(?m)^ord_\S+\s+filled\s+buy\s+DEV/USDC`, out)
	out = ok(svc("trade", "orders", sold.Order.ID))
	require.Regexp(t, `Order:\s+`+sold.Order.ID, out)

	out = ok(svc("trade", "positions", "--wallet", walletID))
	require.Regexp(t, `(?m)^`+walletID+`\s+DEV\s+6\s`, out, "10 bought, 4 sold")
	var positions client.TradingPositionList
	require.NoError(t, json.Unmarshal([]byte(ok(svc("--json", "trade", "positions"))), &positions))
	require.NotEmpty(t, positions.Positions)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trade", "quote", "--wallet", walletID, "--base", "DEV", "--amount", "1"}, "--side must be buy or sell"},
		{[]string{"trade", "buy", "--base", "DEV", "--amount", "1", "--yes"}, "--wallet is required"},
		{[]string{"trade", "buy", "--wallet", walletID, "--amount", "1", "--yes"}, "--base is required"},
		{[]string{"trade", "sell", "--wallet", walletID, "--base", "DEV", "--yes"}, "--amount is required"},
		{[]string{"trade", "buy", "--wallet", walletID, "--base", "DEV", "--amount", "1", "--slippage-bps", "6000", "--yes"}, "--slippage-bps must be 0 to 5000"},
		{[]string{"trade", "buy", "--wallet", walletID, "--base", "DEV", "--amount", "1"}, "add --yes"},
		{[]string{"trade", "orders", "a", "b"}, "at most one order id"},
	} {
		r := svc(tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s %s", tc.args, r.stdout, r.stderr)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
	}
	r = svc("trade", "buy", "--wallet", walletID, "--base", "NOPE", "--amount", "1", "--yes")
	require.Equal(t, exitAPI, r.code, "%s", r.stderr)
	require.Contains(t, r.stderr, "base")
	require.Len(t, sdk.Orders(ctx, client.OrderFilter{}).Body.Orders, 2, "only the two orders confirmed were placed")
}
