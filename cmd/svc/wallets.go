package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/svcplatform/svc/client"
)

// walletsHelp is the help of "svc wallets".
const walletsHelp = `Usage: svc wallets <create|list|get|balances|policy|send|transactions|transaction> [flags]

Managed wallets (service managed-wallets): the platform makes each wallet's key and keeps it encrypted;
it is never shown. Reading needs scope wallets:read, creating wallets:create, changing a policy
approvals:write, sending wallets:transact. With a project selected (--project) the commands see that
project's wallets, without one those made outside any project.

  wallets create        create a wallet with a fresh key and the default policy
  wallets list          list wallets, newest first
  wallets get           show a wallet and its policy
  wallets balances      show a wallet's ETH and USDC balances, read from the chain
  wallets policy        change a wallet's policy: limits, pause, contract calls, recipients
  wallets send          quote a send, show the policy's verdict, confirm, send and follow it
  wallets transactions  list a wallet's transactions, newest first
  wallets transaction   show one transaction of a wallet

Run "svc wallets <command> --help" for details.`

// walletsCommands are the commands of managed wallets, "svc wallets ...".
func walletsCommands() []command {
	return []command{
		{name: "wallets", help: walletsHelp},
		{name: "wallets create", run: (*app).walletsCreate, help: walletsCreateHelp,
			brief: "create a managed wallet; shows its address and policy"},
		{name: "wallets list", run: (*app).walletsList, help: walletsListHelp,
			brief: "list wallets, newest first"},
		{name: "wallets get", run: (*app).walletsGet, help: walletsGetHelp,
			brief: "show a wallet and its policy"},
		{name: "wallets balances", run: (*app).walletsBalances, help: walletsBalancesHelp,
			brief: "show a wallet's balances, read from the chain"},
		{name: "wallets policy", run: (*app).walletsPolicy, help: walletsPolicyHelp,
			brief: "change a wallet's limits, pause, contract calls and recipients"},
		{name: "wallets send", run: (*app).walletsSend, help: walletsSendHelp,
			brief: "send USDC or ETH from a wallet: quote, confirm, send, follow it"},
		{name: "wallets transactions", run: (*app).walletsTransactions, help: walletsTransactionsHelp,
			brief: "list a wallet's transactions, newest first"},
		{name: "wallets transaction", run: (*app).walletsTransaction, help: walletsTransactionHelp,
			brief: "show one transaction of a wallet"},
	}
}

// walletPolicyDefaults documents a new wallet's policy, for the helps of create and policy.
var walletPolicyDefaults = fmt.Sprintf(`A new wallet's policy: not paused, a daily limit of %d USD (any rolling 24 hours), a per-transaction
limit of %d USD, no approval threshold, contract calls allowed, permitted recipients off (cooldown %d
hours).`, client.DefaultDailyLimitUSD, client.DefaultPerTransactionLimitUSD, client.DefaultRecipientCooldownHours)

// walletsCreateHelp is the help of "svc wallets create".
var walletsCreateHelp = `Usage: svc wallets create [--name N] [--chain CAIP2] [--idempotency-key K]

Creates a managed wallet with a fresh key (scope wallets:create) and prints its id, address, chain and
policy. The key is kept encrypted on the server and never shown.

` + walletPolicyDefaults + `

  --name N              a name, at most 100 characters (default none)
  --chain CAIP2         the chain, a CAIP-2 id (default the platform's chain, ` + client.ChainDev + ` in dev);
                        another chain is refused naming chain (exit 1)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// walletsCreate creates a wallet and shows it.
func (a *app) walletsCreate(args []string) int {
	const cmd = "wallets create"
	var (
		req     client.CreateWalletRequest
		idemKey string
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&req.Name, "name", "", "the wallet's name")
	fs.StringVar(&req.Chain, "chain", "", "CAIP-2 chain id (default the platform's chain)")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	given := flagsGiven(fs)
	switch {
	case given["name"] && strings.TrimSpace(req.Name) == "":
		return a.usageError(cmd, "--name must not be empty (leave it out for none)")
	case given["chain"] && strings.TrimSpace(req.Chain) == "":
		return a.usageError(cmd, "--chain must not be empty (leave it out for the platform's chain)")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.CreateWallet(a.ctx, req, idemOpts(idemKey)...), func(r client.Response[client.WalletEnvelope]) {
		a.printWallet(r.Body.Wallet, r.Replayed)
	})
}

// walletsListHelp is the help of "svc wallets list".
const walletsListHelp = `Usage: svc wallets list [--limit N] [--cursor C] [--all]

Lists wallets, newest first (scope wallets:read): id, name, address, chain and when each was created
(UTC). With a project selected only that project's wallets are shown, without one only those made
outside any project.

  --limit N    page size 1..200 (default 50)
  --cursor C   the nextCursor of the previous page
  --all        follow nextCursor through every page

` + globalFlagsHelp

// walletsList lists wallets as a table.
func (a *app) walletsList(args []string) int {
	const cmd = "wallets list"
	fs := a.commandFlags(cmd, nil)
	var pf pageFlags
	if code, ok := a.parsePaged(cmd, fs, &pf, args); !ok {
		return code
	}
	wallets, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.WalletList] {
			return c.ListWallets(a.ctx, p)
		},
		func(l client.WalletList) ([]client.Wallet, *string) { return l.Wallets, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.WalletList{OK: true, Wallets: orEmpty(wallets), NextCursor: next}, len(wallets), "No wallets.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "ID\tNAME\tADDRESS\tCHAIN\tCREATED")
	for _, w := range wallets {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.ID, orDash(oneLine(w.Name, 40)), w.Address, w.Chain,
			w.CreatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
	var filters []string
	if pf.limit != 0 {
		filters = append(filters, "--limit", strconv.Itoa(pf.limit))
	}
	a.moreHint("wallets", cmd, filters, next)
	return exitOK
}

// walletsGetHelp is the help of "svc wallets get".
const walletsGetHelp = `Usage: svc wallets get ID

Shows a wallet (scope wallets:read): its name, address, chain and policy. The policy's USD limits show
as amounts or "off"; each permitted recipient shows when it was added and from when it may receive
(the cooldown).

` + globalFlagsHelp

// walletsGet shows one wallet and its policy.
func (a *app) walletsGet(args []string) int {
	return oneID(a, idSpec{cmd: "wallets get", what: "wallet"}, args,
		func(c *client.Client, id string, _ []client.CallOption) client.Response[client.WalletEnvelope] {
			return c.GetWallet(a.ctx, id)
		},
		func(r client.Response[client.WalletEnvelope]) { a.printWallet(r.Body.Wallet, false) })
}

// walletsBalancesHelp is the help of "svc wallets balances".
const walletsBalancesHelp = `Usage: svc wallets balances ID

Shows a wallet's balances (scope wallets:read), read from the chain at one block: the native asset
(ETH) and USDC, in whole units, with the token contract of each token, and the block they were read
at. On the dev chain, "svcd dev faucet --to ADDRESS --usdc N" funds a wallet.

` + globalFlagsHelp

// walletsBalances shows a wallet's balances as a table.
func (a *app) walletsBalances(args []string) int {
	return oneID(a, idSpec{cmd: "wallets balances", what: "wallet"}, args,
		func(c *client.Client, id string, _ []client.CallOption) client.Response[client.WalletBalances] {
			return c.GetWalletBalances(a.ctx, id)
		},
		func(r client.Response[client.WalletBalances]) {
			b := r.Body
			fmt.Fprintf(a.stdout, "Wallet %s, %s on %s\n\n", b.WalletID, b.Address, b.Chain)
			tw := a.table()
			fmt.Fprintln(tw, "ASSET\tSYMBOL\tAMOUNT\tTOKEN")
			for _, bal := range b.Balances {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", bal.Asset, bal.Symbol, bal.Amount, orDash(deref(bal.Token)))
			}
			_ = tw.Flush()
			fmt.Fprintf(a.stdout, "\nRead at block %d.\n", b.Block)
		})
}

// walletsPolicyHelp is the help of "svc wallets policy".
var walletsPolicyHelp = `Usage: svc wallets policy ID [--paused true|false] [--daily-limit USD|off]
                          [--per-tx-limit USD|off] [--approval-above USD|off]
                          [--disable-contract-calls true|false] [--recipients on|off]
                          [--cooldown-hours N] [--add-recipient ADDR]... [--remove-recipient ADDR]...
                          [--idempotency-key K]

Changes a wallet's policy (scope approvals:write) and prints the policy as it now is. Give at least one
flag; only the flags given are sent, the others keep their value.

` + walletPolicyDefaults + `

  --paused true|false                  pause every outbound transaction of the wallet, or not
  --daily-limit USD|off                the most USD the wallet sends in any rolling 24 hours
  --per-tx-limit USD|off               the most USD one transaction sends
  --approval-above USD|off             a transaction above this USD value waits for an approval
  --disable-contract-calls true|false  allow only native and known-token transfers, or not
  --recipients on|off                  send only to permitted recipients, or to any address
  --cooldown-hours N                   hours a recipient waits after it is added before it may
                                       receive; a change applies to every recipient
  --add-recipient ADDR                 permit an address (0x and 40 hex digits); repeatable, or
                                       comma-separated; re-adding one restarts its cooldown
  --remove-recipient ADDR              drop a permitted address; repeatable, or comma-separated
  --idempotency-key K                  Idempotency-Key to send (default: random); reuse it to retry safely

` + walletPolicyChecks + `

` + globalFlagsHelp

// walletPolicyChecks documents the values of the policy flags and who checks them, for the help of policy.
var walletPolicyChecks = fmt.Sprintf(`A USD amount is a number such as 250 or 12.50; off turns the limit off (sent as null). The server
checks the values and names the field it refuses (exit 1): a USD limit takes %d..%s with at most two
decimals (0 is refused: use off), the cooldown 0..%d hours, and a mixed-case address must carry a valid
EIP-55 checksum. E.g.:
  svc wallets policy wal_... --daily-limit 250 --approval-above 100 --per-tx-limit off`,
	client.MinLimitUSD, limitText(client.MaxLimitUSD), client.MaxCooldownHours)

// addressSyntax is the syntax of an address flag: 0x and 40 hex digits (the server checks the checksum).
var addressSyntax = regexp.MustCompile(`^0[xX][0-9a-fA-F]{40}$`)

// walletsPolicy sends the policy fields whose flags are given and shows the policy answered.
func (a *app) walletsPolicy(args []string) int {
	const cmd = "wallets policy"
	var (
		idemKey                                     string
		paused, contractCalls, recipients, cooldown string
		dailyLimit, perTxLimit, approvalAbove       string
		addRecipients, removeRecipients             stringList
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&paused, "paused", "", "true or false")
	fs.StringVar(&dailyLimit, "daily-limit", "", "USD in any rolling 24 hours, or off")
	fs.StringVar(&perTxLimit, "per-tx-limit", "", "USD of one transaction, or off")
	fs.StringVar(&approvalAbove, "approval-above", "", "USD above which a transaction waits for an approval, or off")
	fs.StringVar(&contractCalls, "disable-contract-calls", "", "true or false")
	fs.StringVar(&recipients, "recipients", "", "on or off")
	fs.StringVar(&cooldown, "cooldown-hours", "", "hours a new recipient waits")
	fs.Var(&addRecipients, "add-recipient", "address to permit (repeatable)")
	fs.Var(&removeRecipients, "remove-recipient", "address to drop (repeatable)")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	// The flags' values first: a flag given without its value took the next flag as one
	// ("--paused --daily-limit 5"), which is better named than the stray argument it leaves.
	req, msg := policyRequest(fs, policyFlags{paused: paused, dailyLimit: dailyLimit, perTxLimit: perTxLimit,
		approvalAbove: approvalAbove, contractCalls: contractCalls, recipients: recipients, cooldown: cooldown,
		add: addRecipients, remove: removeRecipients})
	if msg != "" && msg != msgNothingToChange {
		return a.usageError(cmd, "%s", msg)
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return a.usageError(cmd, "%s takes exactly one wallet id", cmd)
	}
	if msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	id := pos[0]
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.UpdateWalletPolicy(a.ctx, id, req, idemOpts(idemKey)...), func(r client.Response[client.WalletEnvelope]) {
		w := r.Body.Wallet
		fmt.Fprintln(a.stdout, titleLine("Updated the policy of wallet", w.ID, w.Name, r.Replayed))
		fmt.Fprintln(a.stdout)
		a.printPolicy(w.Policy)
	})
}

// msgNothingToChange is the usage message of a policy command without a policy flag.
const msgNothingToChange = "nothing to change: give --paused, --daily-limit, --per-tx-limit, --approval-above, " +
	"--disable-contract-calls, --recipients, --cooldown-hours, --add-recipient or --remove-recipient"

// policyFlags are the values of the policy command's flags, as typed.
type policyFlags struct {
	paused, dailyLimit, perTxLimit, approvalAbove string
	contractCalls, recipients, cooldown           string
	add, remove                                   []string
}

// policyRequest builds the policy update from the flags given on fs; it returns a usage message naming
// the flag at fault, or "" (also "nothing to change" when no flag is given).
func policyRequest(fs *flag.FlagSet, f policyFlags) (client.UpdateWalletPolicyRequest, string) {
	given := flagsGiven(fs)
	var req client.UpdateWalletPolicyRequest
	var err error
	if given["paused"] {
		if req.Paused, err = boolFlag("paused", f.paused, "true", "false"); err != nil {
			return req, err.Error()
		}
	}
	if given["disable-contract-calls"] {
		if req.DisableContractCalls, err = boolFlag("disable-contract-calls", f.contractCalls, "true", "false"); err != nil {
			return req, err.Error()
		}
	}
	for _, l := range []struct {
		flag, val string
		dst       *client.NullableUSD
	}{{"daily-limit", f.dailyLimit, &req.DailyLimitUSD}, {"per-tx-limit", f.perTxLimit, &req.PerTransactionLimitUSD},
		{"approval-above", f.approvalAbove, &req.ApprovalAboveUSD}} {
		if !given[l.flag] {
			continue
		}
		if *l.dst, err = usdFlag(l.flag, l.val); err != nil {
			return req, err.Error()
		}
	}
	var pr client.PermittedRecipientsUpdate
	if given["recipients"] {
		if pr.Enabled, err = boolFlag("recipients", f.recipients, "on", "off"); err != nil {
			return req, err.Error()
		}
	}
	if given["cooldown-hours"] {
		n, err := strconv.Atoi(strings.TrimSpace(f.cooldown))
		if err != nil {
			return req, fmt.Sprintf("--cooldown-hours must be a whole number of hours, not %q", f.cooldown)
		}
		pr.CooldownHours = &n
	}
	for _, l := range []struct {
		flag  string
		addrs []string
		dst   *[]string
	}{{"add-recipient", f.add, &pr.Add}, {"remove-recipient", f.remove, &pr.Remove}} {
		if given[l.flag] && len(l.addrs) == 0 {
			return req, fmt.Sprintf("--%s must not be empty", l.flag)
		}
		for _, addr := range l.addrs {
			if !addressSyntax.MatchString(addr) {
				return req, fmt.Sprintf("--%s %q is not an address (0x and 40 hex digits)", l.flag, addr)
			}
		}
		*l.dst = l.addrs
	}
	if pr.Enabled != nil || pr.CooldownHours != nil || len(pr.Add) > 0 || len(pr.Remove) > 0 {
		req.PermittedRecipients = &pr
	}
	if req.Paused == nil && req.DisableContractCalls == nil && !req.DailyLimitUSD.Set && !req.PerTransactionLimitUSD.Set &&
		!req.ApprovalAboveUSD.Set && req.PermittedRecipients == nil {
		return req, msgNothingToChange
	}
	return req, ""
}

// boolFlag reads the value of --name, yes or no (e.g. true or false, on or off), in any case.
func boolFlag(name, v, yes, no string) (*bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case yes:
		b := true
		return &b, nil
	case no:
		b := false
		return &b, nil
	}
	return nil, fmt.Errorf("--%s must be %s or %s, not %q", name, yes, no, v)
}

// usdFlag reads the value of --name: a USD amount, or off (null: the limit is turned off). Its range is
// the server's to check.
func usdFlag(name, v string) (client.NullableUSD, error) {
	t := strings.TrimSpace(v)
	if strings.EqualFold(t, "off") {
		return client.DisableUSD(), nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return client.NullableUSD{}, fmt.Errorf("--%s must be a USD amount such as 250 or 12.50, or off; not %q", name, v)
	}
	return client.USD(f), nil
}

// printWallet shows a wallet as aligned lines, then its policy.
func (a *app) printWallet(w client.Wallet, replayed bool) {
	tw := a.table()
	id := w.ID
	if replayed {
		id += "  [replayed answer]"
	}
	fmt.Fprintf(tw, "Wallet:\t%s\n", id)
	fmt.Fprintf(tw, "Name:\t%s\n", orDash(oneLine(w.Name, 0)))
	fmt.Fprintf(tw, "Address:\t%s\n", w.Address)
	fmt.Fprintf(tw, "Chain:\t%s\n", w.Chain)
	if w.ProjectID != nil {
		fmt.Fprintf(tw, "Project:\t%s\n", *w.ProjectID)
	}
	fmt.Fprintf(tw, "Created:\t%s\n", w.CreatedAt.UTC().Format(time.RFC3339))
	_ = tw.Flush()
	fmt.Fprintln(a.stdout)
	a.printPolicy(w.Policy)
}

// printPolicy shows a wallet's policy: the limits in USD or off, the switches, and the permitted
// recipients with when each may receive.
func (a *app) printPolicy(p client.WalletPolicy) {
	fmt.Fprintln(a.stdout, "Policy:")
	tw := a.table()
	fmt.Fprintf(tw, "  Paused:\t%s\n", yesNo(p.Paused))
	fmt.Fprintf(tw, "  Daily limit:\t%s\n", usdLimit(p.DailyLimitUSD, " in any 24 hours"))
	fmt.Fprintf(tw, "  Per-transaction limit:\t%s\n", usdLimit(p.PerTransactionLimitUSD, ""))
	fmt.Fprintf(tw, "  Approval above:\t%s\n", usdLimit(p.ApprovalAboveUSD, ""))
	calls := "allowed"
	if p.DisableContractCalls {
		calls = "disabled (native and known-token transfers only)"
	}
	fmt.Fprintf(tw, "  Contract calls:\t%s\n", calls)
	rec := "off (any address)"
	if p.PermittedRecipients.Enabled {
		rec = "on (only the addresses below)"
	}
	fmt.Fprintf(tw, "  Permitted recipients:\t%s\n", rec)
	fmt.Fprintf(tw, "  Recipient cooldown:\t%d hours\n", p.PermittedRecipients.CooldownHours)
	_ = tw.Flush()
	if len(p.PermittedRecipients.Entries) == 0 {
		fmt.Fprintln(a.stdout, "  No permitted recipients.")
		return
	}
	fmt.Fprintln(a.stdout)
	tw = a.table()
	fmt.Fprintln(tw, "  ADDRESS\tADDED\tUSABLE AT\tSTATUS")
	now := time.Now()
	for _, e := range p.PermittedRecipients.Entries {
		state := "usable"
		if e.UsableAt.After(now) {
			state = "cooling down"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", e.Address, e.AddedAt.UTC().Format(time.RFC3339),
			e.UsableAt.UTC().Format(time.RFC3339), state)
	}
	_ = tw.Flush()
}

// usdLimit shows a USD limit: "off" for none, else the amount (cents when it has them) and suffix.
func usdLimit(v *float64, suffix string) string {
	if v == nil {
		return "off"
	}
	return formatUSD(*v) + " USD" + suffix
}

// formatUSD shows a USD amount: whole dollars plainly (500), others with cents (12.50).
func formatUSD(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// walletsSendHelp is the help of "svc wallets send".
const walletsSendHelp = `Usage: svc wallets send ID --to ADDR --amount N --asset usdc|native [--data 0x...] [--yes]
                        [--no-wait] [--interval D] [--idempotency-key K]

Sends from a wallet (scope wallets:transact). First it quotes the send, which moves nothing, and
prints the quote: the amount, its USD value, the fee estimate and the policy's verdict (allowed, needs
approval, or refused, with the rule and why). A refused send exits 1 naming the rule, and nothing is
sent. Otherwise it asks on the terminal, e.g. "Send 5 USDC (5.00 USD) to 0x...? [y/N]", unless --yes
is given or --not-interactive skips the question (seed 002: as if confirmed); without a terminal
either one is required (exit 2 before anything is sent). Then it sends the quote and follows the transaction, printing each status change (queued,
broadcast, confirmed) on stderr, and prints the final transaction: id, status, hash and nonce. A failed
transaction exits 1 with its error. A send whose verdict is "needs approval" is sent too and the
server decides: for now it refuses it (403 naming the rule, exit 1); a transaction that waits for an
approval is shown with the approval to decide ("svc approvals approve ID"), without waiting.

  --to ADDR             the recipient (0x and 40 hex digits)
  --amount N            the amount in whole units of the asset, e.g. 5 or 12.5
  --asset A             usdc, or native (ETH on the dev chain)
  --data 0x...          call data: the send is then a contract call (only with --asset native)
  --yes                 send without asking
  --no-wait             print the transaction as sent (queued) and do not follow it
  --interval D          poll interval while following (default 500ms)
  --idempotency-key K   Idempotency-Key of the send (default: random); reuse it to retry safely

` + globalFlagsHelp

// hexData is the syntax of --data: 0x and an even number of hex digits.
var hexData = regexp.MustCompile(`^0[xX]([0-9a-fA-F]{2})*$`)

// walletsSend quotes a send, shows the quote, confirms, sends it and follows it to its end.
func (a *app) walletsSend(args []string) int {
	const cmd = "wallets send"
	var (
		req         client.TransactionQuoteRequest
		idemKey     string
		yes, noWait bool
		interval    time.Duration
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&req.To, "to", "", "the recipient's address")
	fs.StringVar(&req.Amount, "amount", "", "the amount in whole units")
	fs.StringVar(&req.Asset, "asset", "", "usdc or native")
	fs.StringVar(&req.Data, "data", "", "hex call data (0x...)")
	fs.BoolVar(&yes, "yes", false, "send without asking")
	fs.BoolVar(&noWait, "no-wait", false, "do not follow the transaction")
	fs.DurationVar(&interval, "interval", 500*time.Millisecond, "poll interval while following")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "wallet"}, fs, args)
	if !ok {
		return code
	}
	if msg := sendFlagsCheck(req, interval); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	if code, ok := a.mayProceed(cmd, &yes, "send"); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	qr := c.QuoteTransaction(a.ctx, id, req)
	if !qr.OK {
		return apiFailure(a, qr)
	}
	q := qr.Body.Quote
	a.printQuote(q)
	if q.Verdict.Decision == client.VerdictRefused {
		return a.localError("policy_refused", fmt.Sprintf("%s: %s; nothing was sent", q.Verdict.Rule, q.Verdict.Message))
	}
	if !yes {
		sure, err := a.confirm(fmt.Sprintf("Send %s%s to %s?", assetAmount(q.Amount, q.Asset), usdSuffix(q.USDValue), q.To))
		if err != nil {
			return a.localError("prompt_failed", err.Error())
		}
		if !sure {
			fmt.Fprintln(a.stderr, "Not sent.")
			return exitAPI
		}
	}
	sent := c.SendTransaction(a.ctx, id, client.CreateTransactionRequest{QuoteID: q.ID}, idemOpts(idemKey)...)
	if !sent.OK {
		return apiFailure(a, sent)
	}
	tx := sent.Body.Transaction
	if noWait || tx.Done() {
		return a.finishTx(sent)
	}
	return a.finishTx(a.followTx(c, sent, interval))
}

// sendFlagsCheck checks the flags of a send; it returns a usage message naming the flag at fault, or "".
func sendFlagsCheck(req client.TransactionQuoteRequest, interval time.Duration) string {
	switch {
	case req.To == "":
		return "--to is required: the recipient's address"
	case !addressSyntax.MatchString(req.To):
		return fmt.Sprintf("--to %q is not an address (0x and 40 hex digits)", req.To)
	case strings.TrimSpace(req.Amount) == "":
		return "--amount is required: the amount in whole units, e.g. 5 or 12.5"
	case req.Asset == "":
		return "--asset is required: usdc or native"
	case req.Asset != client.AssetUSDC && req.Asset != client.AssetNative:
		return fmt.Sprintf("--asset must be usdc or native, not %q", req.Asset)
	case req.Data != "" && !hexData.MatchString(req.Data):
		return fmt.Sprintf("--data must be hex call data (0x and pairs of hex digits), not %q", oneLine(req.Data, 20))
	case req.Data != "" && req.Asset != client.AssetNative:
		return "--data makes a contract call, which sends the native asset: use --asset native"
	case interval <= 0:
		return "--interval must be positive"
	}
	return ""
}

// confirm asks question on the terminal and reports whether the answer is y or yes.
func (a *app) confirm(question string) (bool, error) {
	fmt.Fprint(a.stderr, question+" [y/N] ")
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(a.stderr)
		return false, fmt.Errorf("read the answer from the terminal: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// followTx polls a sent transaction until it is done (through its approval, if it waits for one), printing each status
// change on stderr; it returns the last answer.
func (a *app) followTx(c *client.Client, first client.Response[client.WalletTransactionEnvelope],
	interval time.Duration) client.Response[client.WalletTransactionEnvelope] {
	tx := first.Body.Transaction
	start := time.Now()
	fmt.Fprintf(a.stderr, "%s  %s\n", tx.ID, tx.Status)
	if tx.Status == client.WalletTxPendingApproval && tx.ApprovalID != nil {
		fmt.Fprintf(a.stderr, "Waiting for approval %s (svc approvals approve %s); Ctrl-C stops waiting, not the send\n",
			*tx.ApprovalID, *tx.ApprovalID)
	}
	status, last := tx.Status, first
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-a.ctx.Done():
			return last
		case <-tick.C:
		}
		r := c.GetWalletTransaction(a.ctx, tx.WalletID, tx.ID)
		if !r.OK {
			if a.ctx.Err() != nil {
				return last
			}
			return r
		}
		last = r
		t := r.Body.Transaction
		if t.Status != status {
			status = t.Status
			fmt.Fprintf(a.stderr, "%s  %s  (%s)\n", t.ID, status, time.Since(start).Round(100*time.Millisecond))
		}
		if t.Done() {
			return last
		}
	}
}

// finishTx prints a transaction answer (raw with --json) and returns its exit code: 1 for a failed or
// rejected transaction, with its error on stderr.
func (a *app) finishTx(r client.Response[client.WalletTransactionEnvelope]) int {
	if !r.OK {
		return apiFailure(a, r)
	}
	tx := r.Body.Transaction
	if a.g.json {
		a.printRaw(r.Raw)
	} else {
		fmt.Fprintln(a.stdout)
		a.printWalletTx(tx, r.Replayed)
	}
	switch tx.Status {
	case client.WalletTxFailed, client.WalletTxRejected:
		msg := "transaction " + tx.ID + " " + tx.Status
		if tx.Error != nil {
			msg += ": " + tx.Error.Code + ": " + tx.Error.Message
		}
		fmt.Fprintln(a.stderr, "error: "+msg)
		return exitAPI
	case client.WalletTxPendingApproval:
		hint := "The transaction waits for an approval"
		if tx.ApprovalID != nil {
			hint += ": svc approvals approve " + *tx.ApprovalID
		}
		fmt.Fprintln(a.stderr, hint)
	}
	if !tx.Done() && tx.Status != client.WalletTxPendingApproval && !a.g.json {
		fmt.Fprintf(a.stderr, "Follow it with: svc wallets transaction %s %s\n", tx.WalletID, tx.ID)
	}
	return exitOK
}

// printQuote shows a quote: what would be sent, its USD value and fee, and the policy's verdict; on
// stderr with --json (stdout keeps the transaction's JSON).
func (a *app) printQuote(q client.TransactionQuote) {
	w := a.progress()
	fmt.Fprintf(w, "Quote %s (valid until %s)\n", q.ID, q.ExpiresAt.UTC().Format(time.RFC3339))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  To:\t%s\n", q.To)
	amount := assetAmount(q.Amount, q.Asset)
	if q.ContractCall {
		amount += " (contract call)"
	}
	fmt.Fprintf(tw, "  Amount:\t%s\n", amount)
	usd := "unknown (no price)"
	if q.USDValue != nil {
		usd = usdText(*q.USDValue)
	}
	fmt.Fprintf(tw, "  USD value:\t%s\n", usd)
	fee := "unknown"
	if q.Fee != nil {
		fee = fmt.Sprintf("at most %s ETH (gas limit %d)", q.Fee.Estimate, q.Fee.GasLimit)
	} else if q.FeeError != "" {
		fee += ": " + oneLine(q.FeeError, 0)
	}
	fmt.Fprintf(tw, "  Fee:\t%s\n", fee)
	fmt.Fprintf(tw, "  Sent in 24 hours:\t%s\n", usdText(q.SpentLast24hUSD))
	fmt.Fprintf(tw, "  Policy:\t%s\n", verdictText(q.Verdict))
	if q.Screening != nil && q.Screening.Verdict != client.ScreeningAllow {
		fmt.Fprintf(tw, "  Screening:\t%s: %s (%s)\n", q.Screening.Verdict, q.Screening.Rule, oneLine(q.Screening.Reason, 0))
	}
	_ = tw.Flush()
}

// verdictText shows a policy verdict: allowed, or the decision with its rule and message.
func verdictText(v client.PolicyVerdict) string {
	var s string
	switch v.Decision {
	case client.VerdictAllowed:
		return "allowed"
	case client.VerdictNeedsApproval:
		s = "needs approval"
	case client.VerdictRefused:
		s = "refused"
	default:
		s = orDash(v.Decision)
	}
	if v.Rule != "" {
		s += ": " + v.Rule
	}
	if v.Message != "" {
		s += " (" + oneLine(v.Message, 0) + ")"
	}
	return s
}

// assetSymbols are the symbols of the assets a wallet sends.
var assetSymbols = map[string]string{client.AssetUSDC: "USDC", client.AssetNative: "ETH"}

// assetAmount shows an amount with its asset's symbol (the asset itself when it has none known).
func assetAmount(amount, asset string) string {
	if sym, ok := assetSymbols[asset]; ok {
		asset = sym
	}
	return amount + " " + asset
}

// usdText shows a USD value with cents: 5.00 USD.
func usdText(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + " USD" }

// usdSuffix is " (5.00 USD)", or "" when the value is unknown.
func usdSuffix(v *float64) string {
	if v == nil {
		return ""
	}
	return " (" + usdText(*v) + ")"
}

// walletsTransactionsHelp is the help of "svc wallets transactions".
const walletsTransactionsHelp = `Usage: svc wallets transactions ID [--limit N] [--cursor C] [--all]

Lists a wallet's transactions, newest first (scope wallets:read): id, status, recipient, amount, asset,
the transaction hash (shortened; "svc wallets transaction" shows it whole) and when each was created
(UTC).

  --limit N    page size 1..200 (default 50)
  --cursor C   the nextCursor of the previous page
  --all        follow nextCursor through every page

` + globalFlagsHelp

// walletsTransactions lists a wallet's transactions as a table.
func (a *app) walletsTransactions(args []string) int {
	const cmd = "wallets transactions"
	fs := a.commandFlags(cmd, nil)
	var pf pageFlags
	pf.register(fs)
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "wallet"}, fs, args)
	if !ok {
		return code
	}
	if msg := pf.check(); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	txs, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.WalletTransactionList] {
			return c.ListWalletTransactions(a.ctx, id, p)
		},
		func(l client.WalletTransactionList) ([]client.WalletTransaction, *string) {
			return l.Transactions, l.NextCursor
		})
	if done {
		return code
	}
	if a.listShown(client.WalletTransactionList{OK: true, Transactions: orEmpty(txs), NextCursor: next}, len(txs), "No transactions.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "ID\tSTATUS\tTO\tAMOUNT\tASSET\tHASH\tCREATED")
	for _, t := range txs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Status, t.To, t.Amount, t.Asset,
			orDash(shortHash(deref(t.Hash))), t.CreatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
	filters := []string{shellQuote(id)}
	if pf.limit != 0 {
		filters = append(filters, "--limit", strconv.Itoa(pf.limit))
	}
	a.moreHint("transactions", cmd, filters, next)
	return exitOK
}

// shortHash shortens a transaction hash to its first 10 and last 4 characters.
func shortHash(h string) string {
	if len(h) <= 16 {
		return h
	}
	return h[:10] + "..." + h[len(h)-4:]
}

// walletsTransactionHelp is the help of "svc wallets transaction".
const walletsTransactionHelp = `Usage: svc wallets transaction ID TXID

Shows one transaction of a wallet (scope wallets:read): status, recipient, amount and USD value, hash
and nonce once signed, the policy's verdict, the approval that decides it (if any), its error (if it
failed) and the workflow that runs it.

` + globalFlagsHelp

// walletsTransaction shows one transaction of a wallet.
func (a *app) walletsTransaction(args []string) int {
	const cmd = "wallets transaction"
	fs := a.commandFlags(cmd, nil)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 2 || strings.TrimSpace(pos[0]) == "" || strings.TrimSpace(pos[1]) == "" {
		return a.usageError(cmd, "%s takes a wallet id and a transaction id", cmd)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.GetWalletTransaction(a.ctx, pos[0], pos[1]), func(r client.Response[client.WalletTransactionEnvelope]) {
		a.printWalletTx(r.Body.Transaction, false)
	})
}

// printWalletTx shows a wallet transaction as aligned lines.
func (a *app) printWalletTx(t client.WalletTransaction, replayed bool) {
	tw := a.table()
	id := t.ID
	if replayed {
		id += "  [replayed answer]"
	}
	fmt.Fprintf(tw, "Transaction:\t%s\n", id)
	fmt.Fprintf(tw, "Wallet:\t%s\n", t.WalletID)
	fmt.Fprintf(tw, "Status:\t%s\n", t.Status)
	fmt.Fprintf(tw, "To:\t%s\n", t.To)
	fmt.Fprintf(tw, "Amount:\t%s%s\n", assetAmount(t.Amount, t.Asset), usdSuffix(t.USDValue))
	fmt.Fprintf(tw, "Hash:\t%s\n", orDash(deref(t.Hash)))
	nonce := "-"
	if t.Nonce != nil {
		nonce = strconv.FormatInt(*t.Nonce, 10)
	}
	fmt.Fprintf(tw, "Nonce:\t%s\n", nonce)
	if t.Verdict.Decision != "" && t.Verdict.Decision != client.VerdictAllowed {
		fmt.Fprintf(tw, "Policy:\t%s\n", verdictText(t.Verdict))
	}
	if t.ApprovalID != nil {
		fmt.Fprintf(tw, "Approval:\t%s\n", *t.ApprovalID)
	}
	if t.Error != nil {
		fmt.Fprintf(tw, "Error:\t%s: %s\n", t.Error.Code, oneLine(t.Error.Message, 0))
	}
	fmt.Fprintf(tw, "Workflow:\t%s\n", t.WorkflowID)
	fmt.Fprintf(tw, "Created:\t%s\n", t.CreatedAt.UTC().Format(time.RFC3339))
	if t.Confirmed != nil {
		fmt.Fprintf(tw, "Confirmed:\t%s\n", t.Confirmed.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
}
