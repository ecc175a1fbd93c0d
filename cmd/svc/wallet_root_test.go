package main

import (
	"encoding/json"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/handles"
)

// TestWalletRootCommands follows seed 002's "svc wallet" commands against the real API and dev chain:
// portfolio shows the first wallet's balances with USD values (another wallet with --wallet, every one
// with --all; balances under 1 USD are left out unless --low-value); transfer to a name the handle resolver knows and submit json of a USDC transfer confirm
// on chain; submit json of a contract call is refused under disableContractCalls naming the rule;
// the flags' mistakes are usage errors naming the flag.
func TestWalletRootCommands(t *testing.T) {
	t.Parallel()
	friend := common.HexToAddress("0x52908400098527886E0F7030069857D2E4169EE7")
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoDatabases: true, WalletNames: handles.Names{"friend.eth": friend}})
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t)} // no terminal: confirmations need --yes
	svc := func(args ...string) result {
		t.Helper()
		return cli(t, vars, "", args...)
	}
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r.stdout
	}
	var created client.WalletEnvelope
	out := ok(svc("--json", "wallets", "create", "--name", "main"))
	require.NoError(t, json.Unmarshal([]byte(out), &created), out)
	w := created.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 100, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	portfolio := func() client.WalletPortfolio {
		t.Helper()
		var p client.WalletPortfolioEnvelope
		out := ok(svc("--json", "wallet", "portfolio"))
		require.NoError(t, json.Unmarshal([]byte(out), &p), out)
		return p.Portfolio
	}
	require.Eventually(t, func() bool { return portfolio().Balances[1].Amount == "100" }, 30*time.Second, 100*time.Millisecond)

	var empty client.WalletEnvelope
	out = ok(svc("--json", "wallets", "create", "--name", "empty"))
	require.NoError(t, json.Unmarshal([]byte(out), &empty), out)
	out = ok(svc("wallet", "portfolio"))
	require.Contains(t, out, "Wallet "+w.ID+" (main), "+w.Address+" on eip155:1337\n", "the first wallet")
	require.Regexp(t, `(?m)^usdc\s+USDC\s+100\s+1\.00 USD\s+100\.00 USD$`, out)
	require.Regexp(t, `(?m)^native\s+ETH\s+1\s+3000\.00 USD\s+3000\.00 USD$`, out)
	require.Regexp(t, `(?m)^Total 3100\.00 USD at block \d+\.$`, out)
	out = ok(svc("wallet", "portfolio", "--wallet", empty.Wallet.ID))
	require.NotRegexp(t, `(?m)^(usdc|native)`, out, "empty balances are left out")
	require.Contains(t, out, "2 balance(s) under 1 USD left out")
	out = ok(svc("wallet", "portfolio", "--wallet", empty.Wallet.ID, "--low-value", "--chain", "1337"))
	require.Regexp(t, `(?m)^usdc\s+USDC\s+0\s+1\.00 USD\s+0\.00 USD$`, out)
	out = ok(svc("wallet", "portfolio", "--all"))
	require.Contains(t, out, w.ID)
	require.Contains(t, out, empty.Wallet.ID)

	out = ok(svc("wallet", "transfer", "--to", "friend.eth", "--amount", "5", "--token", "usdc", "--yes", "--interval", "50ms"))
	require.Regexp(t, `(?m)confirmed`, out)
	data := append([]byte{0xa9, 0x05, 0x9c, 0xbb}, common.LeftPadBytes(friend.Bytes(), 32)...)
	data = append(data, common.LeftPadBytes(big.NewInt(2_000_000).Bytes(), 32)...)
	ok(svc("wallet", "submit", "json", `{"to":"`+devchain.USDCAddress.Hex()+`"}`, "--chain-id", "1337", "--data", "0x"+common.Bytes2Hex(data),
		"--yes", "--interval", "50ms"))
	require.Equal(t, "93", portfolio().Balances[1].Amount, "5 and 2 USDC sent")

	ok(svc("wallets", "policy", w.ID, "--disable-contract-calls", "true"))
	r := svc("wallet", "submit", "json", "--to", devchain.USDCAddress.Hex(), "--chain-id", "1337", "--data", "0xdeadbeef", "--yes")
	require.Equal(t, exitAPI, r.code, "%s %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "disableContractCalls")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"wallet", "transfer", "--to", "friend.eth", "--amount", "1", "--yes"}, "--token T or --native"},
		{[]string{"wallet", "transfer", "--to", "friend.eth", "--amount", "1", "--native", "--token", "usdc", "--yes"}, "--token T or --native"},
		{[]string{"wallet", "transfer", "--to", "friend.eth", "--amount", "1", "--native"}, "add --yes"},
		{[]string{"wallet", "transfer", "--amount", "1", "--native", "--yes"}, "--to is required"},
		{[]string{"wallet", "portfolio", "--pnl"}, "--pnl and --nfts"},
		{[]string{"wallet", "submit"}, "submit tx RAW"},
		{[]string{"wallet", "submit", "tx", "nothex", "--yes"}, "raw transaction"},
		{[]string{"wallet", "submit", "json", "--to", friend.Hex(), "--yes"}, "--chain-id is required"},
	} {
		r := svc(tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s %s", tc.args, r.stdout, r.stderr)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
	}
}
