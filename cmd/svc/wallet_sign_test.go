package main

import (
	"encoding/json"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
)

// signedBy recovers the address of a 0x r||s||v signature (v 27 or 28) over digest.
func signedBy(t *testing.T, digest []byte, sig string) common.Address {
	t.Helper()
	b, err := hexutil.Decode(sig)
	require.NoError(t, err, sig)
	require.Len(t, b, 65)
	require.Contains(t, []byte{27, 28}, b[64], "v is 27 or 28")
	b[64] -= 27
	pub, err := crypto.SigToPub(digest, b)
	require.NoError(t, err)
	return crypto.PubkeyToAddress(*pub)
}

// typedDataDigest is the EIP-712 digest of typed data, computed here (not by the platform).
func typedDataDigest(t *testing.T, raw []byte) []byte {
	t.Helper()
	var td apitypes.TypedData
	require.NoError(t, json.Unmarshal(raw, &td))
	digest, _, err := apitypes.TypedDataAndHash(td)
	require.NoError(t, err)
	return digest
}

// mailTypedData is an EIP-712 message that moves nothing (no permit).
func mailTypedData(from common.Address) []byte {
	td := map[string]any{
		"types": map[string]any{
			"EIP712Domain": []map[string]string{{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
				{"name": "chainId", "type": "uint256"}},
			"Mail": []map[string]string{{"name": "from", "type": "address"}, {"name": "contents", "type": "string"}},
		},
		"primaryType": "Mail",
		"domain":      map[string]any{"name": "Ether Mail", "version": "1", "chainId": 1337},
		"message":     map[string]any{"from": from.Hex(), "contents": "Hello, Bob"},
	}
	raw, _ := json.Marshal(td)
	return raw
}

// usdcPermit is an EIP-2612 permit of the dev USDC letting spender take atomic units of owner's.
func usdcPermit(owner, spender common.Address, atomic int64) []byte {
	td := map[string]any{
		"types": map[string]any{
			"EIP712Domain": []map[string]string{{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
				{"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}},
			"Permit": []map[string]string{{"name": "owner", "type": "address"}, {"name": "spender", "type": "address"},
				{"name": "value", "type": "uint256"}, {"name": "nonce", "type": "uint256"}, {"name": "deadline", "type": "uint256"}},
		},
		"primaryType": "Permit",
		"domain":      map[string]any{"name": "USD Coin", "version": "2", "chainId": 1337, "verifyingContract": devchain.USDCAddress.Hex()},
		"message":     map[string]any{"owner": owner.Hex(), "spender": spender.Hex(), "value": atomic, "nonce": 0, "deadline": "99999999999"},
	}
	raw, _ := json.Marshal(td)
	return raw
}

// usdcTransferCall is the call data of the dev USDC's transfer(to, atomic).
func usdcTransferCall(to common.Address, atomic int64) string {
	data := append([]byte{0xa9, 0x05, 0x9c, 0xbb}, common.LeftPadBytes(to.Bytes(), 32)...)
	return hexutil.Encode(append(data, common.LeftPadBytes(big.NewInt(atomic).Bytes(), 32)...))
}

// TestWalletSignCommands signs as a user would against the real API and dev chain: "svc wallets sign"
// shows the digest, the message or typed data's domain and the verdict, then prints a signature that
// recovers to the wallet's address (personal_sign over accounts.TextHash, eth_signTypedData_v4 over the
// EIP-712 hash); seed 002's "svc wallet sign" signs with the account's first wallet (or --wallet),
// typed data from stdin, and a transaction that "svc wallet submit tx" then sends on chain; a paused
// wallet signs nothing, naming the rule; flag mistakes are usage errors naming the flag.
func TestWalletSignCommands(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoDatabases: true})
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t)} // no terminal: confirmations need --yes
	svc := func(stdin string, args ...string) result {
		t.Helper()
		return cli(t, vars, stdin, args...)
	}
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r.stdout
	}
	newWallet := func(name string) client.Wallet {
		t.Helper()
		var w client.WalletEnvelope
		out := ok(svc("", "--json", "wallets", "create", "--name", name))
		require.NoError(t, json.Unmarshal([]byte(out), &w), out)
		return w.Wallet
	}
	sigRe := regexp.MustCompile(`(?m)^Signature:\s+(0x[0-9a-f]{130})$`)
	signature := func(out string) string {
		t.Helper()
		m := sigRe.FindStringSubmatch(out)
		require.NotNil(t, m, out)
		require.Regexp(t, `(?m)^ID:\s+sig_\S+$`, out)
		require.Regexp(t, `(?m)^Status:\s+signed$`, out)
		return m[1]
	}
	w, second := newWallet("signer"), newWallet("second")
	addr := common.HexToAddress(w.Address)
	friend := common.HexToAddress("0x52908400098527886E0F7030069857D2E4169EE7")

	// svc wallets sign: personal_sign, with what is signed shown first.
	textDigest := accounts.TextHash([]byte("hello svc"))
	out := ok(svc("", "wallets", "sign", w.ID, "--message", "hello svc", "--yes"))
	require.Contains(t, out, "personal_sign with "+w.Address+" ("+w.ID+")\n")
	require.Regexp(t, `(?m)^  Digest:\s+`+common.BytesToHash(textDigest).Hex()+`$`, out)
	require.Regexp(t, `(?m)^  Message:\s+hello svc$`, out)
	require.Regexp(t, `(?m)^  Policy:\s+allowed`, out)
	require.Equal(t, addr, signedBy(t, textDigest, signature(out)), "the wallet signed the message")

	// eth_signTypedData_v4 from a file: the domain and primary type are shown.
	mail := mailTypedData(addr)
	file := filepath.Join(t.TempDir(), "mail.json")
	require.NoError(t, os.WriteFile(file, mail, 0o600))
	out = ok(svc("", "wallets", "sign", w.ID, "--typed-data", file, "--yes"))
	require.Contains(t, out, "eth_signTypedData_v4 with "+w.Address)
	require.Regexp(t, `(?m)^  Primary type:\s+Mail$`, out)
	require.Regexp(t, `(?m)^  Domain:\s+name Ether Mail, version 1, chainId 1337, verifyingContract -$`, out)
	require.Equal(t, addr, signedBy(t, typedDataDigest(t, mail), signature(out)), "the wallet signed the typed data")

	// A USDC permit is a spend: the quote shows its value against the wallet's limits.
	permit := usdcPermit(addr, friend, 1_500_000)
	file = filepath.Join(t.TempDir(), "permit.json")
	require.NoError(t, os.WriteFile(file, permit, 0o600))
	out = ok(svc("", "wallets", "sign", w.ID, "--typed-data", file, "--yes"))
	require.Regexp(t, `(?m)^  Domain:\s+name USD Coin, version 2, chainId 1337, verifyingContract `+devchain.USDCAddress.Hex()+`$`, out)
	require.Regexp(t, `(?m)^  Spends:\s+permit 1\.5 USDC to `+friend.Hex()+` \(1\.50 USD\)$`, out)
	require.Equal(t, addr, signedBy(t, typedDataDigest(t, permit), signature(out)), "the wallet signed the permit")

	// --json: the answer's envelope on stdout, the quote on stderr.
	r := svc("", "--json", "wallets", "sign", w.ID, "--message", "0x68656c6c6f", "--yes")
	ok(r)
	var env1 client.WalletSignatureEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &env1), r.stdout)
	require.Contains(t, r.stderr, "Digest:")
	require.Equal(t, addr, signedBy(t, accounts.TextHash([]byte("hello")), *env1.Signature.Signature), "0x hex signs the bytes")

	// Seed 002's svc wallet sign: the first wallet, or --wallet; typed data from stdin.
	out = ok(svc("", "wallet", "sign", "--type", "personal_sign", "--message", "hello svc", "--yes"))
	require.Contains(t, out, "personal_sign with "+w.Address+" ("+w.ID+")\n", "the account's first wallet")
	require.Equal(t, addr, signedBy(t, textDigest, signature(out)))
	out = ok(svc("", "wallet", "sign", "--type", "personal_sign", "--message", "hello svc", "--wallet", second.ID, "--yes"))
	require.Equal(t, common.HexToAddress(second.Address), signedBy(t, textDigest, signature(out)), "--wallet signs with that wallet")
	out = ok(svc(string(mail), "wallet", "sign", "--type", "eth_signTypedData_v4", "--typed-data", "-", "--yes"))
	require.Regexp(t, `(?m)^  Primary type:\s+Mail$`, out)
	require.Equal(t, addr, signedBy(t, typedDataDigest(t, mail), signature(out)))

	// eth_signTransaction signs (never broadcasts) a USDC transfer; submit tx sends it on chain.
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 10, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	balance := func() string {
		var b client.WalletBalances
		out := ok(svc("", "--json", "wallets", "balances", w.ID))
		require.NoError(t, json.Unmarshal([]byte(out), &b), out)
		return b.Balances[1].Amount
	}
	require.Eventually(t, func() bool { return balance() == "10" }, 30*time.Second, 100*time.Millisecond)
	txJSON := `{"to":"` + devchain.USDCAddress.Hex() + `","data":"` + usdcTransferCall(friend, 2_000_000) + `"}`
	out = ok(svc("", "wallet", "sign", "--type", "eth_signTransaction", "--transaction", txJSON, "--yes"))
	require.Regexp(t, `(?m)^  Transaction:\s+to `+devchain.USDCAddress.Hex()+`, value 0 wei, nonce \d+, gas \d+, chainId 1337$`, out)
	require.Regexp(t, `(?m)^  Spends:\s+transaction 2 USDC to `+friend.Hex(), out)
	rawTx := regexp.MustCompile(`(?m)^Signed transaction:\s+(0x[0-9a-f]+)$`).FindStringSubmatch(out)
	require.NotNil(t, rawTx, out)
	var tx types.Transaction
	require.NoError(t, tx.UnmarshalBinary(hexutil.MustDecode(rawTx[1])))
	from, err := types.Sender(types.LatestSignerForChainID(big.NewInt(1337)), &tx)
	require.NoError(t, err)
	require.Equal(t, addr, from, "the wallet signed the transaction")
	require.Regexp(t, `(?m)^Transaction hash:\s+`+tx.Hash().Hex()+`$`, out)
	require.Equal(t, "10", balance(), "signing broadcasts nothing")
	out = ok(svc("", "wallet", "submit", "tx", rawTx[1], "--yes", "--interval", "50ms"))
	require.Regexp(t, `(?m)confirmed`, out)
	require.Equal(t, "8", balance(), "the signed transfer moved 2 USDC")
	file = filepath.Join(t.TempDir(), "tx.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"to":"`+friend.Hex()+`","value":"1000"}`), 0o600))
	out = ok(svc("", "wallet", "sign", "--type", "eth_signTransaction", "--transaction", "@"+file, "--yes"))
	require.Regexp(t, `(?m)^  Transaction:\s+to `+friend.Hex()+`, value 1000 wei`, out)

	// A paused wallet signs nothing and the rule is named.
	ok(svc("", "wallets", "policy", w.ID, "--paused", "true"))
	r = svc("", "wallets", "sign", w.ID, "--message", "hello svc", "--yes")
	require.Equal(t, exitAPI, r.code, "%s %s", r.stdout, r.stderr)
	require.Regexp(t, `(?m)^  Policy:\s+refused`, r.stdout)
	require.Contains(t, r.stderr, "paused")
	require.Contains(t, r.stderr, "nothing was signed")
	require.NotRegexp(t, `(?m)^Signature:`, r.stdout)

	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"wallets", "sign", w.ID, "--yes"}, "give exactly one of --message and --typed-data"},
		{"", []string{"wallets", "sign", w.ID, "--message", "m", "--typed-data", file, "--yes"}, "give exactly one of --message and --typed-data"},
		{"", []string{"wallets", "sign", "--message", "m", "--yes"}, "wallets sign takes exactly one wallet id"},
		{"", []string{"wallets", "sign", w.ID, "--message", "m"}, "add --yes"},
		{"", []string{"wallets", "sign", w.ID, "--transaction", txJSON, "--yes"}, "unknown flag --transaction"},
		{"", []string{"wallets", "sign", w.ID, "--typed-data", filepath.Join(t.TempDir(), "missing.json"), "--yes"}, "--typed-data: open"},
		{"not json", []string{"wallets", "sign", w.ID, "--typed-data", "-", "--yes"}, "--typed-data: the file is not JSON"},
		{"", []string{"wallet", "sign", "--message", "m", "--yes"}, "--type is required"},
		{"", []string{"wallet", "sign", "--type", "eth_sign", "--message", "m", "--yes"}, `--type "eth_sign"`},
		{"", []string{"wallet", "sign", "--type", "personal_sign", "--typed-data", file, "--yes"}, "--type personal_sign signs what --message gives"},
		{"", []string{"wallet", "sign", "--type", "eth_signTransaction", "--yes"}, "give exactly one of --message, --typed-data and --transaction"},
		{"", []string{"wallet", "sign", "--type", "eth_signTransaction", "--transaction", "[1]", "--yes"}, "--transaction: not a transaction object"},
		{"", []string{"wallet", "sign", "--type", "personal_sign", "--message", "m"}, "add --yes"},
		{"", []string{"wallet", "sign", "--type", "personal_sign", "--message", "m", "extra", "--yes"}, `unexpected argument "extra"`},
		{"", []string{"wallet", "submit", "tx", rawTx[1], "--to", friend.Hex(), "--yes"}, "--to, --chain-id, --value and --data go with submit json"},
		{"", []string{"wallet", "submit", "tx", "--yes"}, "submit tx takes the raw transaction"},
		{"", []string{"wallet", "submit", "tx", rawTx[1]}, "add --yes"},
	} {
		r := svc(tc.stdin, tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s %s", tc.args, r.stdout, r.stderr)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
		require.NotContains(t, r.stdout, "Signature:", "%v: nothing signed", tc.args)
	}
}

// TestSignLoginKeyFlagsHelp: the help of the signing commands, "svc login siwe" and the key flags is
// reachable and says what the commands do.
func TestSignLoginKeyFlagsHelp(t *testing.T) {
	t.Parallel()
	help := func(args ...string) string {
		t.Helper()
		r := cli(t, testEnv(t, nil), "", args...)
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.stderr)
		return r.stdout
	}
	require.Regexp(t, `(?m)^  wallet sign\s+sign a message, typed data or a transaction`, help("wallet", "--help"))
	require.Contains(t, help("wallet", "--help"), "<portfolio|transfer|sign|submit>")
	overview := help("help")
	require.Regexp(t, `(?m)^  wallets sign\s+`, overview)
	require.Regexp(t, `(?m)^  wallet sign\s+seed 002: sign with the account's wallet \(personal_sign, eth_signTypedData_v4, eth_signTransaction\)$`, overview)
	require.Regexp(t, `(?m)^  login\s+.*login siwe signs in with an Ethereum key$`, overview)
	for _, args := range [][]string{{"wallets", "sign", "--help"}, {"help", "wallets", "sign"}} {
		out := help(args...)
		require.True(t, strings.HasPrefix(out, "Usage: svc wallets sign ID (--message TEXT | --typed-data FILE) [--yes]"), out)
		require.NotContains(t, out, "--transaction", "wallets sign has no --transaction")
	}
	out := help("wallet", "sign", "--help")
	for _, s := range []string{"--type personal_sign|eth_signTypedData_v4|eth_signTransaction", "--transaction JSON|@FILE", "--wallet ID",
		"eth_signTransaction (with --transaction)", `"svc wallet submit tx" sends it`} {
		require.Contains(t, out, s)
	}
	require.Contains(t, help("wallet", "submit", "--help"), `svc wallet
sign --type eth_signTransaction" prints it`)
	out = help("keys", "create", "--help")
	for _, s := range []string{"[--read-only] [--ip-allow A]... [--recipient-allow A]...", "--read-only ", "--ip-allow A ", "--recipient-allow A "} {
		require.Contains(t, out, s)
	}
	require.Contains(t, help("keys", "list", "--help"), "FLAGS shows seed\n002's key flags")
	require.Contains(t, help("login", "--help"), "Usage: svc login siwe --private-key HEX", "svc login's help ends with login siwe's")
}
