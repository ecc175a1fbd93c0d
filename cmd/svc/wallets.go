package main

import (
	"flag"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// walletsHelp is the help of "svc wallets".
const walletsHelp = `Usage: svc wallets <create|list|get|balances|policy> [flags]

Managed wallets (service managed-wallets): the platform makes each wallet's key and keeps it encrypted;
it is never shown. Reading needs scope wallets:read, creating wallets:create, changing a policy
approvals:write. With a project selected (--project) the commands see that project's wallets, without
one those made outside any project.

  wallets create     create a wallet with a fresh key and the default policy
  wallets list       list wallets, newest first
  wallets get        show a wallet and its policy
  wallets balances   show a wallet's ETH and USDC balances, read from the chain
  wallets policy     change a wallet's policy: limits, pause, contract calls, recipients

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
