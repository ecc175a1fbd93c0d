package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// walletRootHelp is the help of "svc wallet".
const walletRootHelp = `Usage: svc wallet <portfolio|transfer|sign|submit> [flags]

Seed 002's wallet commands, on the routes at the host root (/wallet/...). They act on the account's
first wallet (the oldest) unless --wallet names another; "svc wallets" manages wallets by id. Sends
take the same policy and workflow as "svc wallets send".

  wallet portfolio   show the wallet's balances with their USD values
  wallet transfer    send USDC or ETH to an address or an ENS-style name
  wallet sign        sign a message, typed data or a transaction (never broadcast) with the wallet
  wallet submit      send a raw transaction (submit tx) or its fields (submit json)

Run "svc wallet <command> --help" for details.`

// walletRootCommands are seed 002's wallet commands, "svc wallet ...".
func walletRootCommands() []command {
	return []command{
		{name: "wallet", help: walletRootHelp},
		{name: "wallet portfolio", run: (*app).walletPortfolio, help: walletPortfolioHelp,
			brief: "show the wallet's balances with their USD values"},
		{name: "wallet transfer", run: (*app).walletTransfer, help: walletTransferHelp,
			brief: "send USDC or ETH to an address or an ENS-style name"},
		{name: "wallet submit", run: (*app).walletSubmit, help: walletSubmitHelp,
			brief: "send a raw transaction or its fields (to, chain id, value, data)"},
	}
}

// walletPortfolioHelp is the help of "svc wallet portfolio".
const walletPortfolioHelp = `Usage: svc wallet portfolio [--wallet ID | --all] [--chain C] [--low-value] [--json]

Shows the wallet's balances (scope wallets:read), read from the chain at one block, with their USD
values: USDC at 1 USD, the native asset at the platform's price (none when it has no price).
Balances worth less than 1 USD are left out unless --low-value.

  --wallet ID     the wallet (default: the account's first wallet)
  --all           every wallet of the account, one after the other
  --chain C       the chain, CAIP-2 (eip155:1337) or its numeric id; another chain is refused
  --low-value     also show balances worth less than 1 USD (and empty ones)
  --pnl, --nfts   seed 002's profit-and-loss and NFT views: this platform keeps neither (exit 2)

` + globalFlagsHelp

// walletPortfolio shows one or every wallet's portfolio.
func (a *app) walletPortfolio(args []string) int {
	const cmd = "wallet portfolio"
	var (
		p                   client.PortfolioParams
		all, low, pnl, nfts bool
	)
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&p.WalletID, "wallet", "", "the wallet id")
	fs.StringVar(&p.Chain, "chain", "", "the chain")
	fs.BoolVar(&all, "all", false, "every wallet")
	fs.BoolVar(&low, "low-value", false, "show balances under 1 USD")
	fs.BoolVar(&pnl, "pnl", false, "not served")
	fs.BoolVar(&nfts, "nfts", false, "not served")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	switch {
	case pnl || nfts:
		return a.usageError(cmd, "--pnl and --nfts are not available: this platform keeps no cost basis and no NFTs")
	case all && p.WalletID != "":
		return a.usageError(cmd, "give --wallet or --all, not both")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	ids := []string{p.WalletID}
	if all {
		ids = nil
		for cursor := ""; ; {
			r := c.ListWallets(a.ctx, client.ListParams{Limit: 200, Cursor: cursor})
			if !r.OK {
				return apiFailure(a, r)
			}
			for _, w := range r.Body.Wallets {
				ids = append(ids, w.ID)
			}
			if r.Body.NextCursor == nil {
				break
			}
			cursor = *r.Body.NextCursor
		}
	}
	var out []client.WalletPortfolio
	for _, id := range ids {
		r := c.Portfolio(a.ctx, client.PortfolioParams{WalletID: id, Chain: p.Chain})
		if !r.OK {
			return apiFailure(a, r)
		}
		out = append(out, r.Body.Portfolio)
	}
	if a.g.json {
		if all {
			a.printJSON(map[string]any{"ok": true, "portfolios": out})
		} else {
			a.printJSON(client.WalletPortfolioEnvelope{OK: true, Portfolio: out[0]})
		}
		return exitOK
	}
	for i, pf := range out {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		a.printPortfolio(pf, low)
	}
	return exitOK
}

// printPortfolio shows a portfolio as a table; without low, balances worth less than 1 USD are left out.
func (a *app) printPortfolio(p client.WalletPortfolio, low bool) {
	name := ""
	if p.Name != "" {
		name = " (" + p.Name + ")"
	}
	fmt.Fprintf(a.stdout, "Wallet %s%s, %s on %s\n\n", p.WalletID, name, p.Address, p.Chain)
	tw := a.table()
	fmt.Fprintln(tw, "ASSET\tSYMBOL\tAMOUNT\tPRICE\tVALUE")
	hidden := 0
	for _, b := range p.Balances {
		if !low && (b.Atomic == "0" || b.USDValue != nil && *b.USDValue < 1) {
			hidden++
			continue
		}
		price, value := "-", "-"
		if b.USDPrice != nil {
			price = usdText(*b.USDPrice)
		}
		if b.USDValue != nil {
			value = usdText(*b.USDValue)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", b.Asset, b.Symbol, b.Amount, price, value)
	}
	_ = tw.Flush()
	fmt.Fprintf(a.stdout, "\nTotal %s at block %d.", usdText(p.TotalUSD), p.Block)
	if hidden > 0 {
		fmt.Fprintf(a.stdout, " %d balance(s) under 1 USD left out (--low-value shows them).", hidden)
	}
	fmt.Fprintln(a.stdout)
}

// walletTransferHelp is the help of "svc wallet transfer".
const walletTransferHelp = `Usage: svc wallet transfer --to ADDR|NAME --amount N (--token T | --native) [--chain C]
                           [--wallet ID] [--yes] [--no-wait] [--interval D] [--idempotency-key K]

Sends from the wallet (scope wallets:transact) through the same policy and workflow as "svc wallets
send", asks first (unless --yes), then follows the transaction to its end on stderr and prints it. A
refusal of the policy names its rule (exit 1).

  --to ADDR|NAME        the recipient: an address (0x...) or an ENS-style name (alice.eth) the
                        server's handle resolver knows (SVC_WALLET_NAMES)
  --amount N            the amount in whole units, e.g. 5 or 12.5
  --token T             usdc, or a known token's address
  --native              send the native asset (ETH on the dev chain) instead of a token
  --chain C             the chain, CAIP-2 or numeric id (default: the wallet's)
  --wallet ID           the wallet (default: the account's first wallet)
  --yes                 send without asking (or without a terminal; --not-interactive skips the question too)
  --no-wait             print the transaction as sent (queued) and do not follow it
  --interval D          poll interval while following (default 500ms)
  --idempotency-key K   Idempotency-Key of the send (default: random); reuse it to retry safely

` + globalFlagsHelp

// walletTransfer sends a transfer and follows it.
func (a *app) walletTransfer(args []string) int {
	const cmd = "wallet transfer"
	var (
		req   client.WalletTransferRequest
		flags sendFollow
	)
	fs := a.commandFlags(cmd, &flags.idemKey)
	fs.StringVar(&req.To, "to", "", "the recipient")
	fs.StringVar(&req.Amount, "amount", "", "the amount")
	fs.StringVar(&req.Token, "token", "", "the token")
	fs.BoolVar(&req.Native, "native", false, "the native asset")
	fs.StringVar(&req.Chain, "chain", "", "the chain")
	fs.StringVar(&req.WalletID, "wallet", "", "the wallet id")
	flags.register(fs)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	switch {
	case req.To == "":
		return a.usageError(cmd, "--to is required: an address or an ENS-style name")
	case strings.TrimSpace(req.Amount) == "":
		return a.usageError(cmd, "--amount is required: the amount in whole units, e.g. 5 or 12.5")
	case req.Native == (req.Token != ""):
		return a.usageError(cmd, "give --token T or --native (exactly one)")
	}
	asset := req.Token
	if req.Native {
		asset = client.AssetNative
	}
	return a.sendAndFollow(cmd, flags, fmt.Sprintf("Transfer %s to %s?", assetAmount(req.Amount, asset), req.To),
		func(c *client.Client) client.Response[client.WalletTransactionEnvelope] {
			return c.Transfer(a.ctx, req, idemOpts(flags.idemKey)...)
		})
}

// walletSubmitHelp is the help of "svc wallet submit".
const walletSubmitHelp = `Usage: svc wallet submit tx RAW [flags]
       svc wallet submit json [JSON] [--to ADDR] [--chain-id N] [--value WEI] [--data 0x...] [flags]

Sends a transaction from the wallet (scope wallets:transact) through the same policy and workflow as
"svc wallets send". "submit tx" takes a raw transaction (0x..., signed by the wallet, as "svc wallet
sign --type eth_signTransaction" prints it); "submit json" takes its fields, as a JSON object
{to, chainId, value, data} and/or the flags (the flags win). The platform sends the recipient, value and
data with its own nonce and fees. A call of a contract is refused while the wallet's policy has
disableContractCalls (a USDC transfer(to, amount) is a token transfer and passes).

  --to ADDR             the recipient or contract (0x...)
  --chain-id N          the wallet's chain id (1337 on the dev chain)
  --value WEI           the native value in wei, decimal or 0x hex (default 0)
  --data 0x...          call data
  --wallet ID           the wallet (default: the account's first wallet)
  --yes                 send without asking (or without a terminal; --not-interactive skips the question too)
  --no-wait             print the transaction as sent (queued) and do not follow it
  --interval D          poll interval while following (default 500ms)
  --idempotency-key K   Idempotency-Key of the send (default: random); reuse it to retry safely

` + globalFlagsHelp

// walletSubmit sends a raw transaction or its fields and follows it.
func (a *app) walletSubmit(args []string) int {
	const cmd = "wallet submit"
	if len(args) == 0 || (args[0] != "tx" && args[0] != "json") {
		if slices.ContainsFunc(args, isHelpFlag) { // help, also after global flags (svc wallet submit --ni --help)
			fmt.Fprintln(a.stdout, walletSubmitHelp)
			return exitOK
		}
		return a.usageError(cmd, "say what you submit: svc wallet submit tx RAW, or svc wallet submit json ...")
	}
	form := args[0]
	var (
		req             client.WalletSubmitRequest
		chainID, value  string
		flags           sendFollow
		to, data, walID string
	)
	fs := a.commandFlags(cmd, &flags.idemKey)
	fs.StringVar(&to, "to", "", "the recipient")
	fs.StringVar(&chainID, "chain-id", "", "the chain id")
	fs.StringVar(&value, "value", "", "wei")
	fs.StringVar(&data, "data", "", "call data")
	fs.StringVar(&walID, "wallet", "", "the wallet id")
	flags.register(fs)
	pos, code, ok := a.parse(cmd, fs, args[1:])
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return a.usageError(cmd, "unexpected argument %q", pos[1])
	}
	if form == "tx" {
		if len(pos) != 1 || !hexData.MatchString(pos[0]) {
			return a.usageError(cmd, "submit tx takes the raw transaction: 0x and pairs of hex digits")
		}
		if to != "" || chainID != "" || value != "" || data != "" {
			return a.usageError(cmd, "--to, --chain-id, --value and --data go with submit json, not submit tx")
		}
		req.Transaction = pos[0]
	} else {
		if len(pos) == 1 {
			if err := json.Unmarshal([]byte(pos[0]), &req); err != nil {
				return a.usageError(cmd, "the JSON argument is not an object {to, chainId, value, data}: %v", err)
			}
			if req.Transaction != "" {
				return a.usageError(cmd, "a raw transaction goes to submit tx")
			}
		}
		req.To, req.Value, req.Data = cmp.Or(to, req.To), cmp.Or(value, req.Value), cmp.Or(data, req.Data)
		if chainID != "" {
			n, err := strconv.ParseInt(chainID, 10, 64)
			if err != nil {
				return a.usageError(cmd, "--chain-id must be a whole number, not %q", chainID)
			}
			req.ChainID = &n
		}
		switch {
		case req.To == "":
			return a.usageError(cmd, "--to is required (or to in the JSON)")
		case req.ChainID == nil:
			return a.usageError(cmd, "--chain-id is required (or chainId in the JSON): 1337 on the dev chain")
		case req.Data != "" && !hexData.MatchString(req.Data):
			return a.usageError(cmd, "--data must be hex call data (0x and pairs of hex digits)")
		}
	}
	req.WalletID = walID
	question := "Submit the raw transaction?"
	if req.To != "" {
		question = fmt.Sprintf("Submit to %s (value %s wei, %d bytes of data)?", req.To, cmp.Or(req.Value, "0"), max(0, (len(req.Data)-2)/2))
	}
	return a.sendAndFollow(cmd, flags, question, func(c *client.Client) client.Response[client.WalletTransactionEnvelope] {
		return c.Submit(a.ctx, req, idemOpts(flags.idemKey)...)
	})
}

// sendFollow are the flags every sending command of "svc wallet" shares.
type sendFollow struct {
	idemKey     string
	yes, noWait bool
	interval    time.Duration
}

func (f *sendFollow) register(fs interface {
	BoolVar(*bool, string, bool, string)
	DurationVar(*time.Duration, string, time.Duration, string)
}) {
	fs.BoolVar(&f.yes, "yes", false, "send without asking")
	fs.BoolVar(&f.noWait, "no-wait", false, "do not follow the transaction")
	fs.DurationVar(&f.interval, "interval", 500*time.Millisecond, "poll interval while following")
}

// sendAndFollow asks question (unless --yes), sends, and follows the transaction like "wallets send".
func (a *app) sendAndFollow(cmd string, f sendFollow, question string, sendIt func(*client.Client) client.Response[client.WalletTransactionEnvelope]) int {
	if f.interval <= 0 {
		return a.usageError(cmd, "--interval must be positive")
	}
	if code, ok := a.mayProceed(cmd, &f.yes, "send"); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	if !f.yes {
		sure, err := a.confirm(question)
		if err != nil {
			return a.localError("prompt_failed", err.Error())
		}
		if !sure {
			fmt.Fprintln(a.stderr, "Not sent.")
			return exitAPI
		}
	}
	sent := sendIt(c)
	if !sent.OK {
		return apiFailure(a, sent)
	}
	tx := sent.Body.Transaction
	if f.noWait || tx.Status == client.WalletTxPendingApproval || tx.Done() {
		return a.finishTx(sent)
	}
	return a.finishTx(a.followTx(c, sent, f.interval))
}
