package main

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/evm"
)

// Environment of "svc fees claim-wallet".
const (
	envChainRPCURL   = "SVC_CHAIN_RPC_URL"
	defaultChainRPC  = "http://127.0.0.1:8545"
	feesClaimWallet  = "claim-wallet"
	feesClaimCommand = "fees " + feesClaimWallet
)

// feesCommands are seed 002's creator-fee commands: "svc fees", which runs "svc fees claim" and "svc
// fees claim-wallet" by its first argument (its help is in subcommandHelp, as "svc login siwe"'s).
func feesCommands() []command {
	return []command{
		{name: "fees", args: "[address]", run: (*app).fees, help: feesHelp,
			brief: "show the creator fees of an address or a token (fees claim, fees claim-wallet collect them)"},
	}
}

// feesHelp is the help of "svc fees".
const feesHelp = `Usage: svc fees [address] [--token ADDR] [--days N]
       svc fees claim TOKEN [--wallet ID]
       svc fees claim-wallet [--all] [--token ADDR]... [--yes] [--private-key HEX] [--rpc-url URL]

Shows the creator-fee snapshot of an address (GET /public/amm/creator-fees/{address}): every token
whose creator beneficiary it is, with what it may claim now and what it has claimed, the totals, and
the WETH it earned each day of the window. Without an address, the account's first wallet's address
(this needs an API key); with --token, the snapshot of that token's creator beneficiary instead.

  --token ADDR    a launched token's address (not with an address)
  --days N        the window of daily earnings, 1 to 90 (default 30)

"svc fees claim-wallet" collects the fees with a key you hold (run it with --help for details).
"svc fees claim" claims with the account's managed wallet, its gas paid by the platform (run it
with --help for details).

` + globalFlagsHelp

// fees shows a fee snapshot, or runs "fees claim-wallet".
func (a *app) fees(args []string) int {
	const cmd = "fees"
	if len(args) > 0 && args[0] == feesClaimWallet {
		return a.feesClaimWallet(args[1:])
	}
	if len(args) > 0 && args[0] == feesClaim {
		return a.feesClaimWithWallet(args[1:])
	}
	var (
		token string
		days  int
	)
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&token, "token", "", "a launched token's address")
	fs.IntVar(&days, "days", client.FeeDaysDefault, "the window in days")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) > 1:
		return a.usageError(cmd, "unexpected argument %q", pos[1])
	case len(pos) == 1 && token != "":
		return a.usageError(cmd, "give an address or --token, not both")
	case len(pos) == 1 && !isAddress(pos[0]):
		return a.usageError(cmd, "the address must be 0x and 40 hex digits, not %q", pos[0])
	case token != "" && !isAddress(token):
		return a.usageError(cmd, "--token must be an address (0x and 40 hex digits), not %q", token)
	case days < 1 || days > client.FeeDaysMax:
		return a.usageError(cmd, "--days must be 1 to %d, not %d", client.FeeDaysMax, days)
	}
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	c := a.newClient(s)
	if token != "" {
		return answer(a, c.TokenFees(a.ctx, token, days), func(r client.Response[client.FeeSnapshot]) { a.printFees(r.Body) })
	}
	addr := ""
	if len(pos) == 1 {
		addr = pos[0]
	} else if addr, code, ok = a.firstWalletAddress(); !ok {
		return code
	}
	return answer(a, c.CreatorFees(a.ctx, addr, days), func(r client.Response[client.FeeSnapshot]) { a.printFees(r.Body) })
}

// firstWalletAddress is the address of the account's first wallet.
func (a *app) firstWalletAddress() (string, int, bool) {
	c, _, code, ok := a.authedClient()
	if !ok {
		return "", code, false
	}
	return a.walletAddress(c, "")
}

// printFees shows a fee snapshot: its tokens, totals and daily earnings.
func (a *app) printFees(s client.FeeSnapshot) {
	fmt.Fprintf(a.stdout, "Creator fees of %s on %s, last %d days\n\n", s.Address, s.Chain, s.Days)
	if len(s.Tokens) == 0 {
		fmt.Fprintln(a.stdout, "No launched token pays this address.")
	} else {
		tw := a.table()
		fmt.Fprintln(tw, "TOKEN\tSYMBOL\tSHARE\tCLAIMABLE\tCLAIMED\tCLAIMS")
		for _, t := range s.Tokens {
			fmt.Fprintf(tw, "%s\t%s\t%s %%\t%s\t%s\t%d\n", t.TokenAddress, t.Symbol, t.Share,
				feePair(t.Claimable.Token0, t.Claimable.Token1, t), feePair(t.Claimed.Token0, t.Claimed.Token1, t), t.Claimed.Count)
		}
		_ = tw.Flush()
	}
	fmt.Fprintf(a.stdout, "\nTotals: claimable %s WETH, claimed %s WETH in %d claim(s).\n", s.Totals.ClaimableWeth, s.Totals.ClaimedWeth,
		s.Totals.ClaimCount)
	earned, active := "0", 0
	for _, d := range s.DailyEarnings {
		if d.Weth != "0" {
			active++
			earned = addEther(earned, d.Weth)
		}
	}
	fmt.Fprintf(a.stdout, "Last %d days: %s WETH earned on %d day(s).", s.Days, earned, active)
	fmt.Fprintf(a.stdout, " Lifetime: %s WETH on %d day(s)", s.LifetimeEarnedWeth, s.LifetimeDays)
	if s.LifetimeBestDay != nil {
		fmt.Fprintf(a.stdout, ", best day %s (%s WETH)", s.LifetimeBestDay.Date, s.LifetimeBestDay.Weth)
	}
	fmt.Fprintln(a.stdout, ".")
}

// feePair shows an amount of each pool token with their labels.
func feePair(a0, a1 string, t client.TokenFees) string {
	return a0 + " " + t.Token0Label + " + " + a1 + " " + t.Token1Label
}

// addEther adds two decimal strings exactly.
func addEther(x, y string) string {
	a, okA := new(big.Rat).SetString(x)
	b, okB := new(big.Rat).SetString(y)
	if !okA || !okB {
		return x
	}
	s := new(big.Rat).Add(a, b).FloatString(18)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// feesClaimWalletHelp is the help of "svc fees claim-wallet".
const feesClaimWalletHelp = `Usage: svc fees claim-wallet (--all | --token ADDR...) [--yes] [--private-key HEX] [--rpc-url URL]

Collects the creator fees of launched tokens with a key you hold: asks the API for unsigned
collectFees transactions for the key's address (POST /public/amm/build-claim), signs them here and
sends them to the chain, then follows each until it confirms. The key never leaves this machine and
is never printed. Asks first unless --yes.

  --all              every token the key's address has shares of (GET /public/amm/beneficiary-fees)
  --token ADDR       a launched token's address; repeat it for several
  --private-key HEX  the beneficiary's key (env ` + envPrivateKey + `, which is safer: flags show in ps)
  --rpc-url URL      the chain's JSON-RPC (env ` + envChainRPCURL + `; default ` + defaultChainRPC + `)
  -y, --yes          send without asking (or without a terminal; --not-interactive skips the question too)

` + globalFlagsHelp

// tokenList is a repeatable --token flag.
type tokenList []string

// String shows the tokens.
func (t *tokenList) String() string { return strings.Join(*t, ",") }

// Set adds a token.
func (t *tokenList) Set(v string) error {
	*t = append(*t, v)
	return nil
}

// feesClaimWallet builds, signs and sends collectFees transactions for the key's address.
func (a *app) feesClaimWallet(args []string) int {
	const cmd = feesClaimCommand
	var (
		tokens         tokenList
		all, yes       bool
		keyHex, rpcURL string
	)
	fs := a.commandFlags(cmd, nil)
	fs.Var(&tokens, "token", "a token's address")
	fs.BoolVar(&all, "all", false, "every token")
	fs.BoolVar(&yes, "yes", false, "send without asking")
	fs.BoolVar(&yes, "y", false, "send without asking")
	fs.StringVar(&keyHex, "private-key", "", "the beneficiary's key")
	fs.StringVar(&rpcURL, "rpc-url", "", "the chain's JSON-RPC")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	keyHex = first(keyHex, a.getenv(envPrivateKey))
	rpcURL = first(rpcURL, a.getenv(envChainRPCURL), defaultChainRPC)
	switch {
	case all == (len(tokens) > 0):
		return a.usageError(cmd, "give --all or --token ADDR (one or more), not both and not neither")
	case keyHex == "":
		return a.usageError(cmd, "--private-key (or %s) is required: the beneficiary's key", envPrivateKey)
	}
	for _, t := range tokens {
		if !isAddress(t) {
			return a.usageError(cmd, "--token must be an address (0x and 40 hex digits), not %q", t)
		}
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimPrefix(keyHex, "0x"), "0X"))
	if err != nil {
		return a.usageError(cmd, "--private-key is not a secp256k1 key in hex (64 hex digits)")
	}
	if code, ok := a.mayProceed(cmd, &yes, "send"); !ok {
		return code
	}
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	c := a.newClient(s)
	addr := crypto.PubkeyToAddress(key.PublicKey).Hex()
	if all {
		r := c.BeneficiaryFees(a.ctx, addr)
		if !r.OK {
			return apiFailure(a, r)
		}
		for _, t := range r.Body.Tokens {
			tokens = append(tokens, t.TokenAddress)
		}
		if len(tokens) == 0 {
			fmt.Fprintf(a.stderr, "%s has no shares of any launched token: nothing to claim.\n", addr)
			return a.finishClaims(nil, nil)
		}
	}
	built := c.BuildClaim(a.ctx, client.BuildClaimRequest{BeneficiaryAddress: addr, TokenAddresses: tokens})
	if !built.OK {
		return apiFailure(a, built)
	}
	for _, e := range built.Body.Errors {
		fmt.Fprintf(a.stderr, "skipped %s: %s: %s\n", e.TokenAddress, e.Code, e.Message)
	}
	if len(built.Body.Transactions) == 0 {
		return a.finishClaims(nil, built.Body.Errors)
	}
	if !yes {
		for _, u := range built.Body.Transactions {
			fmt.Fprintf(a.stderr, "  %s (%s): %s\n", u.TokenSymbol, u.TokenAddress, u.Description)
		}
		sure, err := a.confirm(fmt.Sprintf("Sign and send %d claim(s) from %s?", len(built.Body.Transactions), addr))
		if err != nil {
			return a.localError("prompt_failed", err.Error())
		}
		if !sure {
			fmt.Fprintln(a.stderr, "Not sent.")
			return exitAPI
		}
	}
	rpc, err := ethclient.DialContext(a.ctx, rpcURL)
	if err != nil {
		return a.localError("rpc_unavailable", fmt.Sprintf("connect to the chain's RPC %s: %v", rpcURL, err))
	}
	defer rpc.Close()
	var done []claimDone
	for _, u := range built.Body.Transactions {
		fmt.Fprintf(a.stderr, "%s: signing and sending collectFees of %s...\n", u.TokenSymbol, u.TokenAddress)
		d, err := sendClaim(a.ctx, rpc, key, u)
		if err != nil {
			fmt.Fprintf(a.stderr, "error: claim of %s: %v\n", u.TokenAddress, err)
			_ = a.finishClaims(done, built.Body.Errors)
			return exitAPI
		}
		fmt.Fprintf(a.stderr, "%s: %s %s in block %d\n", u.TokenSymbol, d.Hash, d.Status, d.Block)
		done = append(done, d)
	}
	return a.finishClaims(done, built.Body.Errors)
}

// claimDone is a claim transaction sent and mined.
type claimDone struct {
	TokenAddress string `json:"tokenAddress"`
	TokenSymbol  string `json:"tokenSymbol"`
	Hash         string `json:"transactionHash"`
	Status       string `json:"status"`
	Block        uint64 `json:"blockNumber"`
}

// sendClaim signs u with key, sends it and waits for its receipt.
func sendClaim(ctx context.Context, rpc *ethclient.Client, key *ecdsa.PrivateKey, u client.UnsignedFeeTx) (claimDone, error) {
	d := claimDone{TokenAddress: u.TokenAddress, TokenSymbol: u.TokenSymbol}
	gas, err := strconv.ParseUint(u.GasEstimate, 10, 64)
	if err != nil {
		return d, fmt.Errorf("gas estimate %q: %w", u.GasEstimate, err)
	}
	maxFee, ok1 := new(big.Int).SetString(u.MaxFeePerGas, 10)
	tip, ok2 := new(big.Int).SetString(u.MaxPriorityFeePerGas, 10)
	if !ok1 || !ok2 {
		return d, fmt.Errorf("fees %q/%q are not decimal wei", u.MaxFeePerGas, u.MaxPriorityFeePerGas)
	}
	data, err := hexutil.Decode(u.Data)
	if err != nil {
		return d, fmt.Errorf("calldata: %w", err)
	}
	to := common.HexToAddress(u.To)
	nonce, err := rpc.PendingNonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		return d, fmt.Errorf("read nonce: %w", err)
	}
	tx, err := evm.Send(ctx, rpc, key, big.NewInt(u.ChainID), nonce,
		types.DynamicFeeTx{GasTipCap: tip, GasFeeCap: maxFee, Gas: gas, To: &to, Data: data})
	if err != nil {
		return d, fmt.Errorf("send: %w", err)
	}
	d.Hash = tx.Hash().Hex()
	receipt, err := evm.WaitReceipt(ctx, rpc, tx.Hash(), nil)
	if err != nil {
		return d, fmt.Errorf("wait for %s: %w", d.Hash, err)
	}
	d.Block = receipt.BlockNumber.Uint64()
	d.Status = "confirmed"
	if receipt.Status != types.ReceiptStatusSuccessful {
		d.Status = "reverted"
		return d, fmt.Errorf("transaction %s reverted", d.Hash)
	}
	return d, nil
}

// finishClaims prints the claims sent and the tokens skipped.
func (a *app) finishClaims(done []claimDone, skipped []client.BuildError) int {
	if a.g.json {
		a.printJSON(map[string]any{"ok": true, "claims": nonNil(done), "errors": nonNil(skipped)})
		return exitOK
	}
	if len(done) == 0 {
		fmt.Fprintln(a.stdout, "No claim sent.")
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "TOKEN\tSYMBOL\tTRANSACTION\tSTATUS")
	for _, d := range done {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.TokenAddress, d.TokenSymbol, d.Hash, d.Status)
	}
	_ = tw.Flush()
	return exitOK
}

// nonNil is s, or an empty slice for nil (JSON [] rather than null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
