package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// TestTradeBuyPrompt answers "svc trade buy"'s confirmation on a terminal against the real API: "n"
// places nothing (exit 1, "No order placed."), "y" places the quoted order and follows it to filled.
func TestTradeBuyPrompt(t *testing.T) {
	t.Parallel()
	vars, walletID, sdk := tradeEnv(t)
	delete(vars, "SVC_NOT_INTERACTIVE")
	getenv := func(k string) string { return vars[k] }
	args := []string{"trade", "buy", "--wallet", walletID, "--base", "DEV", "--amount", "5", "--exact-out", "--interval", "50ms"}
	for _, c := range []struct {
		answer string
		code   int
		orders int
	}{{"n\n", exitAPI, 0}, {"y\n", exitOK, 1}} {
		master, tty := openPTY(t)
		_, err := master.Write([]byte(c.answer))
		require.NoError(t, err)
		var out, errOut bytes.Buffer
		code := run(args, tty, &out, &errOut, getenv)
		require.Equal(t, c.code, code, "%q: %s", c.answer, errOut.String())
		require.Regexp(t, `Buy 5 DEV for [0-9.]+ USDC \([0-9.,]+ USD\)\? \[y/N\] `, errOut.String())
		require.Len(t, sdk.Orders(context.Background(), client.OrderFilter{}).Body.Orders, c.orders, c.answer)
		if c.code != exitOK {
			require.Contains(t, errOut.String(), "No order placed.")
			continue
		}
		require.Regexp(t, `Status:\s+filled`, out.String())
	}
}
