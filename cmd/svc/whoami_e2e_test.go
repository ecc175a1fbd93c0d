package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// TestWhoamiAndUpdateAgainstTheServer: whoami shows the masked key, the URL, the account's wallets and
// its tier and Club status from the real server; update --check reads the server's /health version.
func TestWhoamiAndUpdateAgainstTheServer(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoDatabases: true})
	owner := env.FirstKey(t)
	svc := loggedIn(t, env, owner)

	code, out, stderr := svc("--json", "wallets", "create", "--name", "main")
	require.Equal(t, exitOK, code, stderr)
	var w struct {
		Wallet struct{ Address string } `json:"wallet"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &w), out)

	code, out, stderr = svc("whoami")
	require.Equal(t, exitOK, code, stderr)
	require.Regexp(t, `Base URL:\s+`+env.URL+`/v1`, out)
	require.Contains(t, out, maskKey(owner))
	require.NotContains(t, out, owner, "the whole secret is never shown")
	require.Regexp(t, `Wallets:\s+`+w.Wallet.Address+`\s+main`, out)
	require.Regexp(t, `Tier:\s+standard`, out)
	require.Regexp(t, `Club:\s+none`, out)
	require.NotContains(t, out, "Note:")

	code, out, stderr = svc("--json", "whoami")
	require.Equal(t, exitOK, code, stderr)
	var who struct {
		Wallets []whoamiWallet `json:"wallets"`
		Club    struct {
			Tier   string `json:"tier"`
			Status string `json:"status"`
		} `json:"club"`
		TerminalURL string `json:"terminalUrl"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &who), out)
	require.Equal(t, []whoamiWallet{{Name: "main", Address: w.Wallet.Address, Chain: "eip155:1337"}}, who.Wallets)
	require.Equal(t, "standard", who.Club.Tier)
	require.Equal(t, env.URL+"/docs", who.TerminalURL)

	// A key that may not list wallets: whoami still answers, with a note.
	code, out, stderr = svc("--json", "keys", "create", "--name", "narrow", "--scope", "runs:read")
	require.Equal(t, exitOK, code, stderr)
	var narrow struct {
		APIKey struct{ Secret string } `json:"apiKey"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &narrow), out)
	code, out, stderr = svc("whoami", "--api-key", narrow.APIKey.Secret)
	require.Equal(t, exitOK, code, stderr)
	require.Regexp(t, `Note:\s+wallets unavailable: the key may not read them \(403\)`, out)
	require.Contains(t, out, "Key details:")

	code, out, stderr = svc("update", "--check")
	require.Equal(t, exitOK, code, stderr)
	require.Regexp(t, `Server version:\s+test`, out)
	require.Contains(t, out, "rebuild the CLI with make build", "this test binary's CLI is a dev build")
}
