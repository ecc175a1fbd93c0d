package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWalletsSendPrompt answers the confirmation on a terminal: "n" sends nothing (exit 1), "y" sends
// the quote and follows the transaction.
func TestWalletsSendPrompt(t *testing.T) {
	t.Parallel()
	f := newFakeWalletTxAPI(t, "confirmed")
	env := testEnv(t, nil)
	env["SVC_API_KEY"], env["SVC_BASE_URL"] = "svc_sk_unused", f.url
	getenv := func(k string) string { return env[k] }
	args := []string{"wallets", "send", "wal_1", "--to", fakeTo, "--amount", "5", "--asset", "usdc", "--interval", "10ms"}

	for _, c := range []struct {
		answer string
		code   int
		sent   bool
	}{{"n\n", exitAPI, false}, {"\n", exitAPI, false}, {"y\n", exitOK, true}} {
		master, tty := openPTY(t)
		_, err := master.Write([]byte(c.answer))
		require.NoError(t, err)
		var out, errOut bytes.Buffer
		code := run(args, tty, &out, &errOut, getenv)
		require.Equal(t, c.code, code, "%q: %s", c.answer, errOut.String())
		require.Contains(t, errOut.String(), "Send 5 USDC (5.00 USD) to "+fakeTo+"? [y/N] ")
		require.Contains(t, out.String(), "Policy:")
		require.Equal(t, c.sent, f.sends() > 0, c.answer)
		if !c.sent {
			require.Contains(t, errOut.String(), "Not sent.")
			continue
		}
		require.Regexp(t, `(?m)^Status:\s+confirmed$`, out.String())
	}
}
