package main

import (
	"crypto/ecdsa"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/siwe"
)

// flagsEnv is a dev chain API with a funded wallet, for the tests of key flags and sign-in.
type flagsEnv struct {
	env    *apptest.Env
	owner  string // the account's first key
	wallet client.Wallet
}

// newFlagsEnv starts the API and dev chain and funds the account's first wallet with 20 USDC and 1 ETH.
func newFlagsEnv(t *testing.T) flagsEnv {
	t.Helper()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoDatabases: true})
	f := flagsEnv{env: env, owner: env.FirstKey(t)}
	vars := f.vars(t, f.owner)
	r := cli(t, vars, "", "--json", "wallets", "create", "--name", "main")
	require.Equal(t, exitOK, r.code, r.stderr)
	var w client.WalletEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &w), r.stdout)
	f.wallet = w.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": f.wallet.Address, "usdc": 20, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.Eventually(t, func() bool {
		r := cli(t, vars, "", "--json", "wallets", "balances", f.wallet.ID)
		var b client.WalletBalances
		return r.code == exitOK && json.Unmarshal([]byte(r.stdout), &b) == nil && b.Balances[1].Amount == "20"
	}, 30*time.Second, 100*time.Millisecond)
	return f
}

// vars is the environment of a CLI using key ("" uses the config file), with a config directory of
// its own.
func (f flagsEnv) vars(t *testing.T, key string) map[string]string {
	t.Helper()
	v := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": f.env.URL, "SVC_NOT_INTERACTIVE": "1"}
	if key != "" {
		v["SVC_API_KEY"] = key
	}
	return v
}

// transferArgs sends amount USDC from the first wallet to to, following it.
func transferArgs(to, amount string) []string {
	return []string{"wallet", "transfer", "--to", to, "--amount", amount, "--token", "usdc", "--yes", "--interval", "50ms"}
}

var secretRe = regexp.MustCompile(`svc_sk_[A-Za-z0-9_-]+`)

// TestKeysCreateFlags creates keys with seed 002's flags through "svc keys create" against the real API
// and dev chain: the flags show on the created key and in "svc keys list" (FLAGS, and --json); a
// read-only key reads but its writes (svc wallet transfer, svc wallet sign) answer 403 naming readOnly;
// a key used from outside its IP allowlist is refused naming the address; a recipient allowlist refuses
// other recipients and lets its own through (the transfer confirms); the server's refusal of a too-wide
// range names ipAllowlist; flag mistakes are usage errors naming the flag.
func TestKeysCreateFlags(t *testing.T) {
	t.Parallel()
	f := newFlagsEnv(t)
	owner := f.vars(t, f.owner)
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r.stdout
	}
	friend := "0x52908400098527886E0F7030069857D2E4169EE7"
	stranger := "0x1111111111111111111111111111111111111111"
	const sol = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"

	out := ok(cli(t, owner, "", "keys", "create", "--name", "ro", "--read-only", "--ip-allow", "127.0.0.0/8",
		"--recipient-allow", friend, "--recipient-allow", sol))
	require.Regexp(t, `(?m)^  Read-only:\s+yes$`, out)
	require.Regexp(t, `(?m)^  IP allowlist:\s+127\.0\.0\.0/8$`, out)
	require.Regexp(t, `(?m)^  Recipient allowlist:\s+evm `+friend+`; solana `+sol+`$`, out)
	ro := secretRe.FindString(out)
	require.NotEmpty(t, ro, out)
	out = ok(cli(t, owner, "", "keys", "create", "--name", "narrow", "--recipient-allow", friend))
	require.NotContains(t, out, "Read-only")
	require.NotContains(t, out, "IP allowlist")
	narrow := secretRe.FindString(out)
	out = ok(cli(t, owner, "", "keys", "create", "--name", "elsewhere", "--ip-allow", "10.0.0.0/8"))
	elsewhere := secretRe.FindString(out)

	out = ok(cli(t, owner, "", "keys", "list"))
	require.Regexp(t, `(?m)^ID\s+NAME\s+PREFIX\s+STATUS\s+SCOPES\s+SERVICES\s+PARENT\s+PROJECT\s+CREATED\s+FLAGS$`, out)
	require.Regexp(t, `(?m)^key_\S+\s+ro\s+.*\s+read-only; ip 127\.0\.0\.0/8; recipients evm `+friend+`; solana `+sol+`$`, out)
	require.Regexp(t, `(?m)^key_\S+\s+narrow\s+.*\s+recipients evm `+friend+`; solana any$`, out)
	require.Regexp(t, `(?m)^key_\S+\s+elsewhere\s+.*\s+ip 10\.0\.0\.0/8$`, out)
	var list client.APIKeyList
	out = ok(cli(t, owner, "", "--json", "keys", "list"))
	require.NoError(t, json.Unmarshal([]byte(out), &list), out)
	byName := map[string]client.APIKey{}
	for _, k := range list.APIKeys {
		byName[k.Name] = k
	}
	require.True(t, byName["ro"].ReadOnly)
	require.Equal(t, []string{"127.0.0.0/8"}, byName["ro"].IPAllowlist)
	require.Equal(t, &client.RecipientAllowlist{EVM: []string{friend}, Solana: []string{sol}}, byName["ro"].RecipientAllowlist)
	require.False(t, byName["narrow"].ReadOnly)
	require.Nil(t, byName["narrow"].IPAllowlist)

	// The read-only key reads; its writes answer 403 naming why.
	roVars := f.vars(t, ro)
	out = ok(cli(t, roVars, "", "wallet", "portfolio"))
	require.Contains(t, out, f.wallet.ID)
	r := cli(t, roVars, "", transferArgs(friend, "1")...)
	require.Equal(t, exitAPI, r.code, "%s %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "error: forbidden: this API key is read-only: POST /wallet/transfer is a write")
	r = cli(t, roVars, "", "wallet", "sign", "--type", "personal_sign", "--message", "m", "--yes")
	require.Equal(t, exitAPI, r.code, "%s %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "read-only")

	// Outside its IP allowlist the key is refused before anything runs.
	r = cli(t, f.vars(t, elsewhere), "", "wallet", "portfolio")
	require.Equal(t, exitAPI, r.code, "%s %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "may not be used from 127.0.0.1")

	// The recipient allowlist: another recipient is refused, the listed one receives.
	narrowVars := f.vars(t, narrow)
	r = cli(t, narrowVars, "", transferArgs(stranger, "1")...)
	require.Equal(t, exitAPI, r.code, "%s %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "recipientAllowlist")
	out = ok(cli(t, narrowVars, "", transferArgs(friend, "1")...))
	require.Regexp(t, `(?m)confirmed`, out)

	// The server refuses a range wider than /8, naming the field; nothing is created.
	r = cli(t, owner, "", "keys", "create", "--name", "wide", "--ip-allow", "10.0.0.0/4")
	require.Equal(t, exitAPI, r.code, "%s %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "ipAllowlist")
	require.NotContains(t, ok(cli(t, owner, "", "keys", "list")), "wide")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"keys", "create", "--read-only=maybe"}, "-read-only"},
		{[]string{"keys", "create", "--ip-allow"}, "flag needs an argument: -ip-allow"},
		{[]string{"keys", "create", "--recipient-alow", friend}, "--recipient-allow"},
		{[]string{"keys", "create", "--readonly"}, "--read-only"},
		{[]string{"keys", "create", "ro2"}, `unexpected argument "ro2"`},
	} {
		r := cli(t, owner, "", tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s %s", tc.args, r.stdout, r.stderr)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
		require.NotContains(t, r.stdout, "svc_sk_", "%v: no key created", tc.args)
	}
}

// linkAddress links the address of key to the account of owner through POST /auth/siwe/link.
func linkAddress(t *testing.T, env *apptest.Env, owner string, key *ecdsa.PrivateKey) {
	t.Helper()
	n := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/siwe/nonce"})
	require.Equal(t, http.StatusOK, n.Status, "%s", n.Raw)
	m := &siwe.Message{Domain: n.Body["domain"].(string), Address: crypto.PubkeyToAddress(key.PublicKey), Statement: "Link",
		URI: "http://" + n.Body["domain"].(string), Version: "1", ChainID: int64(n.Body["chainId"].(float64)),
		Nonce: n.Body["nonce"].(string), IssuedAt: time.Now().UTC()}
	text := m.String()
	sig, err := siwe.Sign(text, key)
	require.NoError(t, err)
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/siwe/link", Key: owner,
		Body: map[string]any{"message": text, "signature": sig}, Headers: map[string]string{"Idempotency-Key": "link-" + sig[2:34]}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
}

// TestLoginSIWE signs in with "svc login siwe" against the real API: with a linked address it creates
// a read-only key named SIWE-<date>, stores it in the CLI's config and later commands use it (reads
// pass, a transfer answers 403 naming readOnly); --read-write with the key from SVC_PRIVATE_KEY and
// --key-name makes a key that sends; an unlinked address is refused and nothing is stored; flag
// mistakes are usage errors naming the flag; the help is reachable.
func TestLoginSIWE(t *testing.T) {
	t.Parallel()
	f := newFlagsEnv(t)
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r.stdout
	}
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey).Hex()
	hexKey := hexutil.Encode(crypto.FromECDSA(key))
	linkAddress(t, f.env, f.owner, key)
	friend := "0x52908400098527886E0F7030069857D2E4169EE7"

	// Default: a read-only key named SIWE-<date>, stored in the config file.
	user := f.vars(t, "")
	before := time.Now().UTC().Format(time.DateOnly)
	out := ok(cli(t, user, "", "login", "siwe", "--private-key", hexKey))
	after := time.Now().UTC().Format(time.DateOnly)
	m := regexp.MustCompile(`^Signed in as (0x[0-9a-fA-F]{40}) \(account (acct_\S+)\) and created API key (key_\S+) \((SIWE-\S+), read-only\)\.\n`).
		FindStringSubmatch(out)
	require.NotNil(t, m, out)
	require.Equal(t, addr, m[1])
	require.Contains(t, []string{"SIWE-" + before, "SIWE-" + after}, m[4])
	require.Contains(t, out, "Credentials saved to ")
	cfg, fi := readConfig(t, user)
	require.Regexp(t, `^svc_sk_`, cfg.APIKey)
	require.Equal(t, f.env.URL+"/v1", cfg.BaseURL)
	require.Equal(t, "-rw-------", fi.Mode().Perm().String())
	require.NotContains(t, out, cfg.APIKey, "the secret is stored, not printed")
	require.NotContains(t, out, strings.TrimPrefix(hexKey, "0x"), "the private key is never printed")

	// Later commands use the stored key: it reads, and its writes are refused as read-only.
	out = ok(cli(t, user, "", "keys", "list"))
	require.Regexp(t, `(?m)^`+m[3]+`\s+`+m[4]+`\s+.*\s+read-only$`, out)
	out = ok(cli(t, user, "", "whoami"))
	require.Regexp(t, `(?m)^Key ID:\s+`+m[3]+`$`, out)
	require.Regexp(t, `(?m)^Name:\s+`+m[4]+`$`, out)
	require.Regexp(t, `(?m)^Flags:\s+read-only$`, out)
	require.Contains(t, out, "(from "+filepath.Join(user["XDG_CONFIG_HOME"], "svc", "config.json")+")", "the key comes from the config file")
	require.Contains(t, ok(cli(t, user, "", "wallet", "portfolio")), f.wallet.ID)
	r := cli(t, user, "", transferArgs(friend, "1")...)
	require.Equal(t, exitAPI, r.code, "%s %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "error: forbidden: this API key is read-only: POST /wallet/transfer is a write")

	// --read-write, the key from SVC_PRIVATE_KEY (without 0x) and --key-name: a key that sends.
	user["SVC_PRIVATE_KEY"] = strings.TrimPrefix(hexKey, "0x")
	var made map[string]any
	out = ok(cli(t, user, "", "--json", "login", "siwe", "--read-write", "--key-name", "agent"))
	require.NoError(t, json.Unmarshal([]byte(out), &made), out)
	require.Equal(t, "agent", made["keyName"])
	require.Equal(t, false, made["readOnly"])
	require.Equal(t, addr, made["address"])
	cfg2, _ := readConfig(t, user)
	require.NotEqual(t, cfg.APIKey, cfg2.APIKey, "the new key replaced the stored one")
	require.NotContains(t, ok(cli(t, user, "", "whoami")), "Flags:", "a read-write key without allowlists has no flags")
	require.Regexp(t, `(?m)confirmed`, ok(cli(t, user, "", transferArgs(friend, "1")...)))

	// An address not linked to any account: 401 naming the address, nothing stored.
	other, err := crypto.GenerateKey()
	require.NoError(t, err)
	r = cli(t, user, "", "login", "siwe", "--private-key", hexutil.Encode(crypto.FromECDSA(other)))
	require.Equal(t, exitAPI, r.code, "%s %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "unauthenticated")
	require.Contains(t, r.stderr, "The API key was not stored.")
	cfg3, _ := readConfig(t, user)
	require.Equal(t, cfg2.APIKey, cfg3.APIKey)

	delete(user, "SVC_PRIVATE_KEY")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"login", "siwe"}, "login siwe needs --private-key HEX (or SVC_PRIVATE_KEY)"},
		{[]string{"login", "siwe", "--private-key", "0xnothex"}, "--private-key is not a secp256k1 private key"},
		{[]string{"login", "siwe", "--private-key"}, "flag needs an argument: -private-key"},
		{[]string{"login", "siwe", "--private-key", hexKey, "--readwrite"}, "--read-write"},
		{[]string{"login", "siwe", "--private-key", hexKey, "extra"}, `unexpected argument "extra"`},
	} {
		r := cli(t, user, "", tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s %s", tc.args, r.stdout, r.stderr)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
		require.Contains(t, r.stderr, `Run "svc login siwe --help" for usage.`, "%v", tc.args)
	}
	for _, args := range [][]string{{"login", "siwe", "--help"}, {"help", "login", "siwe"}} {
		out := ok(cli(t, user, "", args...))
		require.True(t, strings.HasPrefix(out, "Usage: svc login siwe --private-key HEX"), "%v: %s", args, out)
		require.Contains(t, out, "default SIWE-<date>")
	}
	cfg4, _ := readConfig(t, user)
	require.Equal(t, cfg2.APIKey, cfg4.APIKey, "no mistake stored anything")
}
