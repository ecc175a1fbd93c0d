package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
)

// TestLaunchAndFeesCommands follows "svc launch", "svc fees" and "svc fees claim-wallet" against the real
// API and dev chain: --simulate deploys nothing; a launch with --yes (fee type wallet, a key held here)
// is deployed and listed with its --image, --tweet and --website; after swaps through its pool "svc
// fees" shows the token with fees to claim; claim-wallet signs the creator's collectFees here, it
// confirms and the creator's WETH rises; the flags' mistakes are usage errors naming the flag (a local
// file as --image says it takes a URL).
func TestLaunchAndFeesCommands(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoDatabases: true, FeeCacheTTL: -1})
	ch := feetest.Attach(t, env.Chain)
	keys := ch.Keys(2)
	creatorKey, traderKey := keys[0], keys[1]
	creator := crypto.PubkeyToAddress(creatorKey.PublicKey)
	keyHex := common.Bytes2Hex(crypto.FromECDSA(creatorKey))
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_CHAIN_RPC_URL": env.Chain.RPCURL()} // no terminal: confirmations need --yes
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
	out := ok(svc("--json", "wallets", "create", "--name", "launcher"))
	require.NoError(t, json.Unmarshal([]byte(out), &created), out)
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": created.Wallet.Address, "usdc": 0, "eth": 0.05}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	sdk := client.New(client.WithBaseURL(env.URL))

	out = ok(svc("launch", "--name", "Cli Coin", "--fee-type", "wallet", "--fee", creator.Hex(), "--image", "https://example.com/cc.png", "--simulate"))
	require.Contains(t, out, "Simulated (nothing deployed)")
	require.Regexp(t, `Symbol:\s+CC\n`, out, "the symbol is made from the name")
	require.Regexp(t, `Image:\s+https://example.com/cc.png\n`, out)
	require.NotContains(t, out, "Website:", "a flag left out is not shown")
	list := sdk.TokenLaunches(context.Background())
	require.True(t, list.OK, "%+v", list.Error)
	require.Empty(t, list.Body.Launches, "--simulate deploys nothing")

	logo := filepath.Join(t.TempDir(), "logo.png")
	require.NoError(t, os.WriteFile(logo, []byte("\x89PNG"), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"launch", "--fee", "alice", "--yes"}, "--name is required"},
		{[]string{"launch", "--name", "X", "--symbol", "TOOLONGSYMB", "--fee", "alice", "--yes"}, "--symbol must be"},
		{[]string{"launch", "--name", "X", "--fee-type", "lens", "--fee", "alice", "--yes"}, "--fee-type must be"},
		{[]string{"launch", "--name", "X", "--fee-type", "wallet", "--fee", "0x12", "--yes"}, "--fee must be an address"},
		{[]string{"launch", "--name", "X", "--fee-type", "x", "--yes"}, "--fee is required with --fee-type x"},
		{[]string{"launch", "--name", "X", "--fee", "alice"}, "add --yes"},
		{[]string{"launch", "--name", "X", "--fee", "alice", "--image", logo, "--yes"}, "--image takes a URL of the image"},
		{[]string{"launch", "--name", "X", "--fee", "alice", "--image", "data:image/png;base64,iVBORw0KGgo=", "--yes"}, "--image must be a URL"},
		{[]string{"launch", "--name", "X", "--fee", "alice", "--tweet", "x.com/cli/status/1", "--yes"}, "--tweet must be a URL"},
		{[]string{"launch", "--name", "X", "--fee", "alice", "--website", "ftp://example.com", "--yes"}, "--website must be a URL"},
		{[]string{"launch", "--name", "X", "--fee", "alice", "--website", "https://example.com/" + strings.Repeat("a", 2048), "--yes"}, "--website is at most 2048"},
		{[]string{"fees", "--days", "91"}, "--days must be 1 to 90"},
		{[]string{"fees", "--token", "0x12"}, "--token must be an address"},
		{[]string{"fees", "claim-wallet", "--yes", "--private-key", keyHex}, "--all or --token"},
		{[]string{"fees", "claim-wallet", "--all", "--yes"}, "--private-key (or SVC_PRIVATE_KEY) is required"},
		{[]string{"fees", "claim-wallet", "--all", "--private-key", keyHex}, "add --yes"},
	} {
		r := svc(tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s %s", tc.args, r.stdout, r.stderr)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
		require.NotContains(t, r.stderr, keyHex, "the key is never printed")
	}

	meta := client.LaunchMetadata{Image: "https://example.com/cli.png", Tweet: "https://x.com/cli/status/7", Website: "https://cli.example"}
	r := svc("--json", "launch", "--name", "Cli Coin", "--symbol", "CLI", "--fee-type", "wallet", "--fee", creator.Hex(), "--yes",
		"--interval", "50ms", "--image", meta.Image, "--tweet", meta.Tweet, "--website", meta.Website)
	ok(r)
	var launched client.TokenLaunchEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &launched), r.stdout)
	l := launched.Launch
	require.Equal(t, client.LaunchDeployed, l.Status, "%s", r.stdout)
	require.Equal(t, creator.Hex(), l.FeeAddress)
	require.NotEmpty(t, l.TokenAddress)
	require.NotEmpty(t, l.PoolID)
	require.NotEmpty(t, l.TransactionHash)
	require.Contains(t, r.stderr, "→ deployed", "progress on stderr")
	list = sdk.TokenLaunches(context.Background())
	require.True(t, list.OK, "%+v", list.Error)
	require.Len(t, list.Body.Launches, 1)
	require.Equal(t, l.ID, list.Body.Launches[0].ActivityID)
	require.Equal(t, meta, l.LaunchMetadata, "the launch keeps --image, --tweet and --website")
	require.Equal(t, meta, list.Body.Launches[0].LaunchMetadata, "the public list shows them")

	token := common.HexToAddress(l.TokenAddress)
	pooled := feetest.Launched{Token: token, Pool: common.HexToAddress(l.PoolAddress), PoolID: common.HexToHash(l.PoolID), Creator: creator,
		Token0: devchain.WETHAddress, Token1: token}
	if bytes.Compare(token.Bytes(), devchain.WETHAddress.Bytes()) < 0 {
		pooled.Token0, pooled.Token1 = token, devchain.WETHAddress
	}
	ch.Trade(traderKey, pooled)
	indexer := feeindex.New(env.DB, ch.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID})
	require.NoError(t, indexer.CatchUp(context.Background()), "the worker process's fee indexer, run here")

	out = ok(svc("fees", creator.Hex()))
	require.Contains(t, out, l.TokenAddress)
	out = ok(svc("fees", "--token", l.TokenAddress, "--days", "7"))
	require.Contains(t, out, "Creator fees of "+creator.Hex()+" on eip155:1337, last 7 days")
	require.Regexp(t, `(?m)^`+l.TokenAddress+`\s+CLI\s+57 %`, out)
	require.Contains(t, out, "Totals: claimable ")
	var snap client.FeeSnapshot
	require.NoError(t, json.Unmarshal([]byte(ok(svc("--json", "fees", creator.Hex()))), &snap))
	require.Len(t, snap.Tokens, 1)
	require.NotEqual(t, "0", snap.Totals.ClaimableWeth, "the swaps left WETH to claim")

	before := wethOf(t, ch, creator)
	vars["SVC_PRIVATE_KEY"] = "0x" + keyHex
	r = svc("fees", "claim-wallet", "--all", "--yes")
	out = ok(r)
	require.Regexp(t, `(?m)^`+l.TokenAddress+`\s+CLI\s+0x[0-9a-f]{64}\s+confirmed`, out)
	require.Contains(t, r.stderr, "confirmed in block")
	require.NotContains(t, out+r.stderr, keyHex, "the key is never printed")
	require.Equal(t, 1, wethOf(t, ch, creator).Cmp(before), "the creator's WETH rose")

	out = ok(svc("launch", "--name", "Second Coin", "-y", "--fee-type", "wallet", "--fee", creator.Hex(), "--interval", "50ms",
		"--website", "https://second.example/"))
	require.Regexp(t, `(?m)^Status:\s+deployed$`, out)
	require.Regexp(t, `(?m)^Token:\s+Second Coin \(SC\)$`, out)
	require.Regexp(t, `(?m)^Token address:\s+0x[0-9a-fA-F]{40}$`, out)
	require.Regexp(t, `(?m)^Pool id:\s+0x[0-9a-f]{64}$`, out)
	require.Regexp(t, `(?m)^Initializer:\s+`+devchain.FeesManagerAddress.Hex()+`$`, out)
	require.Regexp(t, `(?m)^Transaction:\s+0x[0-9a-f]{64}$`, out)
	require.Regexp(t, `(?m)^Website:\s+https://second.example/$`, out)
	require.NotContains(t, out, "Image:", "a flag left out is not shown")

	// Without --fee (seed 002: only --name is required headless) the fees go to the deploying wallet.
	out = ok(svc("launch", "--name", "Third Coin", "--simulate", "--ni"))
	require.Regexp(t, `Fee recipient:\s+wallet \(the deploying wallet\)`, out)
	r = svc("--json", "--ni", "launch", "--name", "Third Coin", "--interval", "50ms")
	ok(r)
	launched = client.TokenLaunchEnvelope{}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &launched), r.stdout)
	require.Equal(t, client.LaunchDeployed, launched.Launch.Status, "%s", r.stdout)
	require.Equal(t, common.HexToAddress(created.Wallet.Address).Hex(), launched.Launch.FeeAddress, "the deploying wallet receives the fees")
}

// wethOf reads the WETH balance of who.
func wethOf(t *testing.T, ch *feetest.Env, who common.Address) *big.Int {
	t.Helper()
	weth := devchain.WETHAddress
	data := append(common.FromHex("0x70a08231"), common.LeftPadBytes(who.Bytes(), 32)...)
	out, err := ch.Client.CallContract(context.Background(), ethereum.CallMsg{To: &weth, Data: data}, nil)
	require.NoError(t, err)
	return new(big.Int).SetBytes(out)
}

// TestLaunchAndFeesHelp: "svc help" lists launch and fees; the help of fees claim-wallet is reachable
// both ways and says where the key comes from.
func TestLaunchAndFeesHelp(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir()}
	r := cli(t, vars, "", "help")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `(?m)^  launch\s+launch a token`, r.stdout)
	require.Regexp(t, `(?m)^  fees \[address\]\s+show the creator fees`, r.stdout)
	for _, args := range [][]string{{"help", "fees", "claim-wallet"}, {"fees", "claim-wallet", "--help"}} {
		r := cli(t, vars, "", args...)
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.stderr)
		require.Contains(t, r.stdout, "Usage: svc fees claim-wallet", args)
		require.Contains(t, r.stdout, "SVC_PRIVATE_KEY", args)
	}
	r = cli(t, vars, "", "launch", "--help")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, opt := range []string{"--image URL", "--tweet URL", "--website URL"} {
		require.Regexp(t, `(?m)^  `+opt+`\s+a URL \(http or https\)`, r.stdout, opt)
	}
	require.Contains(t, r.stdout, "they never go on chain")
	for _, args := range [][]string{{"help", "fees", "claim"}, {"fees", "claim", "--help"}} {
		r := cli(t, vars, "", args...)
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.stderr)
		require.Contains(t, r.stdout, "Usage: svc fees claim TOKEN", args)
		require.Contains(t, r.stdout, "--idempotency-key", args)
	}
	r = cli(t, vars, "", "fees", "claim", "0x12")
	require.Equal(t, exitUsage, r.code, r.stderr)
	require.Contains(t, r.stderr, "the token must be an address")
	r = cli(t, vars, "", "fees", "claim")
	require.Equal(t, exitUsage, r.code, r.stderr)
	require.Contains(t, r.stderr, "give the token's address")
}

// TestFeesClaimCommand follows "svc fees claim" against the real API and dev chain: a token launched by
// the account's managed wallet with that wallet as its fee recipient, traded both ways; the claim shows
// its progress on stderr and prints the receipt with exactly the amounts pendingFees showed; after more
// trades a --json claim answers the claim envelope; a wallet that is no beneficiary is refused (403,
// exit 1).
func TestFeesClaimCommand(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoDatabases: true, FeeCacheTTL: -1})
	ch := feetest.Attach(t, env.Chain)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	svc := func(args ...string) result {
		t.Helper()
		return cli(t, vars, "", args...)
	}
	var created client.WalletEnvelope
	r := svc("--json", "wallets", "create", "--name", "creator")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &created), r.stdout)
	me := common.HexToAddress(created.Wallet.Address)
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": me.Hex(), "usdc": 0, "eth": 0.05}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	r = svc("--json", "launch", "--name", "Claim Cli", "--fee-type", "wallet", "--fee", me.Hex(), "--yes", "--interval", "50ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	var launched client.TokenLaunchEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &launched), r.stdout)
	l := launched.Launch
	token := common.HexToAddress(l.TokenAddress)
	pooled := feetest.Launched{Token: token, Pool: common.HexToAddress(l.PoolAddress), PoolID: common.HexToHash(l.PoolID), Creator: me,
		Token0: devchain.WETHAddress, Token1: token}
	if bytes.Compare(token.Bytes(), devchain.WETHAddress.Bytes()) < 0 {
		pooled.Token0, pooled.Token1 = token, devchain.WETHAddress
	}
	require.NoError(t, feeindex.New(env.DB, ch.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID}).
		CatchUp(context.Background()))
	trader := ch.Keys(1)[0]
	ch.Trade(trader, pooled)

	pending := ch.Pending(pooled, me)
	r = svc("fees", "claim", l.TokenAddress, "--interval", "50ms", "--idempotency-key", "cli-claim-1")
	require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Regexp(t, `Claim fclm_\S+ claiming.* → claimed`, r.stderr, "progress on stderr")
	require.Regexp(t, `(?m)^Status:\s+claimed$`, r.stdout)
	require.Regexp(t, `(?m)^Transaction:\s+0x[0-9a-f]{64}$`, r.stdout)
	require.Regexp(t, `(?m)^Released token0:\s+`+pending[0].String()+` wei$`, r.stdout)
	require.Regexp(t, `(?m)^Released token1:\s+`+pending[1].String()+` wei$`, r.stdout)
	zero := ch.Pending(pooled, me)
	require.Zero(t, zero[0].Sign()+zero[1].Sign(), "everything pending was claimed")

	ch.Trade(trader, pooled)
	pending = ch.Pending(pooled, me)
	r = svc("--json", "fees", "claim", l.TokenAddress, "--wallet", created.Wallet.ID, "--interval", "50ms")
	require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	var claim client.FeeClaimEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &claim), r.stdout)
	require.True(t, claim.OK)
	require.Equal(t, client.FeeClaimClaimed, claim.Claim.Status)
	require.Equal(t, []string{pending[0].String(), pending[1].String()}, []string{claim.Claim.Amount0, claim.Claim.Amount1})

	r = svc("--json", "wallets", "create", "--name", "stranger")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &created), r.stdout)
	r = svc("fees", "claim", l.TokenAddress, "--wallet", created.Wallet.ID)
	require.Equal(t, exitAPI, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "is not a beneficiary")
}
