package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// TestTradeParentCommands runs "svc trade twap|dca|pause|resume|cancel" against the real API and dev
// chain: a twap of 2 slices over 2 s is placed (--json) and, once it has filled, "orders ID" shows its
// slices; a dca is placed, paused, resumed and cancelled, each answer showing its state; flag mistakes
// are usage errors naming the flag; pausing a twap is the API's 409 (exit 1).
func TestTradeParentCommands(t *testing.T) {
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

	var twap client.TradingOrderEnvelope
	require.NoError(t, json.Unmarshal([]byte(ok(svc("--json", "trade", "twap", "--side", "sell", "--wallet", walletID, "--base", "ETH",
		"--amount", "0.02", "--slices", "2", "--duration", "2s", "--yes"))), &twap))
	require.Equal(t, client.OrderTypeTWAP, twap.Order.Type)
	require.Equal(t, 2, twap.Order.Slices)
	require.Eventually(t, func() bool { return sdk.Order(ctx, twap.Order.ID).Body.Order.Status == client.OrderFilled },
		30*time.Second, 100*time.Millisecond)
	out := ok(svc("trade", "orders", twap.Order.ID))
	require.Regexp(t, `Type:\s+twap`, out)
	require.Regexp(t, `Slices:\s+2 of 2 filled \(2 placed, 0 failed\)`, out)
	require.Regexp(t, `Remaining:\s+0`, out)

	out = ok(svc("trade", "dca", "--side", "buy", "--wallet", walletID, "--base", "ETH", "--amount", "10", "--slices", "3", "--every", "1h", "--yes"))
	require.Regexp(t, `Type:\s+dca`, out)
	require.Regexp(t, `Next fire:\s+\d{4}-`, out)
	list := sdk.Orders(ctx, client.OrderFilter{}).Body.Orders
	dcaID := list[0].ID
	require.Equal(t, client.OrderTypeDCA, list[0].Type)
	require.Regexp(t, `Paused:\s+true`, ok(svc("trade", "pause", dcaID)))
	require.Regexp(t, `Paused:\s+false`, ok(svc("trade", "resume", dcaID)))
	require.Regexp(t, `Status:\s+cancelled`, ok(svc("trade", "cancel", dcaID)))

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trade", "twap", "--side", "sell", "--wallet", walletID, "--base", "ETH", "--amount", "1", "--duration", "1m", "--yes"}, "--slices must be 1 to 100"},
		{[]string{"trade", "twap", "--side", "sell", "--wallet", walletID, "--base", "ETH", "--amount", "1", "--slices", "2", "--yes"}, "--duration is required"},
		{[]string{"trade", "dca", "--side", "buy", "--wallet", walletID, "--base", "ETH", "--amount", "1", "--slices", "2", "--yes"}, "--every is required"},
		{[]string{"trade", "dca", "--side", "hold", "--wallet", walletID, "--base", "ETH", "--amount", "1", "--slices", "2", "--every", "1h", "--yes"}, "--side must be buy or sell"},
		{[]string{"trade", "twap", "--side", "sell", "--wallet", walletID, "--base", "ETH", "--amount", "1", "--slices", "2", "--duration", "1m"}, "add --yes"},
		{[]string{"trade", "pause"}, "takes one order id"},
	} {
		r := svc(tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s %s", tc.args, r.stdout, r.stderr)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
	}
	r := svc("trade", "pause", twap.Order.ID)
	require.Equal(t, exitAPI, r.code, "%s", r.stderr)
	require.Contains(t, r.stderr, "only dca orders")
}
