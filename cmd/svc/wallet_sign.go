package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/svcplatform/svc/client"
)

// walletSignCommands are the signature commands: "svc wallets sign" and seed 002's "svc wallet sign".
func walletSignCommands() []command {
	return []command{
		{name: "wallets sign", run: (*app).walletsSign, help: walletsSignHelp,
			brief: "sign a message or typed data with a wallet: shows what is signed and the verdict, confirms"},
		{name: "wallet sign", run: (*app).walletSign, help: walletSignHelp,
			brief: "seed 002: sign with the account's wallet (personal_sign, eth_signTypedData_v4, eth_signTransaction)"},
	}
}

// walletsSignHelp is the help of "svc wallets sign".
const walletsSignHelp = `Usage: svc wallets sign ID (--message TEXT | --typed-data FILE) [--yes] [--idempotency-key K]

Signs with a wallet (scope wallets:sign). First it quotes the signature, which signs nothing, and prints
what is signed: the digest, the message (personal_sign, EIP-191) or the typed data's domain (name,
version, chainId, verifyingContract) and primary type (eth_signTypedData_v4, EIP-712), what it lets
move (a token permit counts as a spend of its value against the wallet's limits), and the policy's
verdict. A refused signature exits 1 naming the rule. Otherwise it asks on the terminal unless --yes
is given or --not-interactive skips the question (seed 002: as if confirmed); without a terminal
either one is required (exit 2 before anything is signed). Then it prints the signature (0x r||s||v, v 27 or 28); --json prints the answer's JSON (and
what is signed on stderr).

  --message TEXT        personal_sign: the message (0x-prefixed hex signs those bytes)
  --typed-data FILE     eth_signTypedData_v4: a file with {types, primaryType, domain, message} (- for stdin)
  --yes                 sign without asking
  --idempotency-key K   Idempotency-Key of the signature (default: random); reuse it to get the same one

` + globalFlagsHelp

// walletSignHelp is the help of "svc wallet sign".
const walletSignHelp = `Usage: svc wallet sign --type personal_sign|eth_signTypedData_v4|eth_signTransaction
                        [--message TEXT] [--typed-data FILE] [--transaction JSON|@FILE] [--wallet ID]
                        [--yes] [--idempotency-key K]

Seed 002's signing command (POST /wallet/sign, scope wallets:sign): signs with the account's first
wallet, or --wallet. It shows what is signed and the policy's verdict first, like "svc wallets sign",
and asks unless --yes (without a terminal, --yes or --not-interactive is required; --not-interactive proceeds as if confirmed). eth_signTransaction
also prints the signed transaction and its hash; "svc wallet submit tx" sends it.

  --type T              personal_sign (with --message), eth_signTypedData_v4 (with --typed-data) or
                        eth_signTransaction (with --transaction)
  --message TEXT        personal_sign: the message (0x-prefixed hex signs those bytes)
  --typed-data FILE     eth_signTypedData_v4: a file with the typed data (- for stdin)
  --transaction JSON    eth_signTransaction: {to, value?, data?, nonce?, gas?, maxFeePerGas?,
                        maxPriorityFeePerGas?} (wei), or @FILE; signed, never broadcast. Left out, the
                        nonce is the wallet's next one (not reserved), gas is estimated, fees are the chain's
  --wallet ID           the wallet (default: the account's first wallet)
  --yes                 sign without asking
  --idempotency-key K   Idempotency-Key of the signature (default: random)

` + globalFlagsHelp

// signFlags are the flags both sign commands share.
type signFlags struct {
	typ, message, typedData, transaction, idemKey string
	yes                                           bool
}

// signContent names the flag that carries what each signature type signs.
var signContent = map[string]string{client.SignPersonal: "--message", client.SignTypedData: "--typed-data",
	client.SignTransaction: "--transaction"}

// request builds the signature request of the flags, or a usage message naming the flag at fault;
// withTx is true for the command that has --transaction ("svc wallet sign").
func (f signFlags) request(a *app, withTx bool) (client.SignatureRequest, string) {
	r := client.SignatureRequest{Type: f.typ, Message: f.message}
	given := map[string]bool{"--message": f.message != "", "--typed-data": f.typedData != "", "--transaction": f.transaction != ""}
	count := 0
	for _, v := range given {
		if v {
			count++
		}
	}
	if count != 1 {
		if withTx {
			return r, "give exactly one of --message, --typed-data and --transaction"
		}
		return r, "give exactly one of --message and --typed-data"
	}
	if f.typ != "" {
		want, known := signContent[f.typ]
		switch {
		case !known:
			return r, fmt.Sprintf("--type %q: use personal_sign, eth_signTypedData_v4 or eth_signTransaction", f.typ)
		case !given[want]:
			return r, fmt.Sprintf("--type %s signs what %s gives", f.typ, want)
		}
	}
	switch {
	case f.message != "":
		if r.Type == "" {
			r.Type = client.SignPersonal
		}
	case f.typedData != "":
		raw, err := a.readInputFile(f.typedData)
		if err != nil {
			return r, fmt.Sprintf("--typed-data: %v", err)
		}
		if !json.Valid(raw) {
			return r, "--typed-data: the file is not JSON"
		}
		r.TypedData = raw
		if r.Type == "" {
			r.Type = client.SignTypedData
		}
	case f.transaction != "":
		raw := []byte(f.transaction)
		if f.transaction[0] == '@' {
			var err error
			if raw, err = a.readInputFile(f.transaction[1:]); err != nil {
				return r, fmt.Sprintf("--transaction: %v", err)
			}
		}
		var tx client.UnsignedTransaction
		if err := json.Unmarshal(raw, &tx); err != nil {
			return r, fmt.Sprintf("--transaction: not a transaction object: %v", err)
		}
		r.Transaction = &tx
		if r.Type == "" {
			r.Type = client.SignTransaction
		}
	}
	return r, ""
}

// walletsSign quotes a signature of wallet ID, shows it, confirms and signs.
func (a *app) walletsSign(args []string) int {
	const cmd = "wallets sign"
	var f signFlags
	fs := a.commandFlags(cmd, &f.idemKey)
	fs.StringVar(&f.message, "message", "", "personal_sign: the message")
	fs.StringVar(&f.typedData, "typed-data", "", "eth_signTypedData_v4: the typed data's file")
	fs.BoolVar(&f.yes, "yes", false, "sign without asking")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "wallet"}, fs, args)
	if !ok {
		return code
	}
	return a.signWith(cmd, id, f)
}

// walletSign is seed 002's "svc wallet sign".
func (a *app) walletSign(args []string) int {
	const cmd = "wallet sign"
	var (
		f        signFlags
		walletID string
	)
	fs := a.commandFlags(cmd, &f.idemKey)
	fs.StringVar(&f.typ, "type", "", "personal_sign, eth_signTypedData_v4 or eth_signTransaction")
	fs.StringVar(&f.message, "message", "", "personal_sign: the message")
	fs.StringVar(&f.typedData, "typed-data", "", "eth_signTypedData_v4: the typed data's file")
	fs.StringVar(&f.transaction, "transaction", "", "eth_signTransaction: the transaction (JSON or @FILE)")
	fs.StringVar(&walletID, "wallet", "", "the wallet (default: the account's first)")
	fs.BoolVar(&f.yes, "yes", false, "sign without asking")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if f.typ == "" {
		return a.usageError(cmd, "--type is required: personal_sign, eth_signTypedData_v4 or eth_signTransaction")
	}
	return a.signWith(cmd, walletID, f)
}

// signWith quotes, shows, confirms and signs; walletID "" is seed 002's account's first wallet (the
// quote then needs it: it is read from the wallet list).
func (a *app) signWith(cmd, walletID string, f signFlags) int {
	req, msg := f.request(a, cmd == "wallet sign")
	if msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	if code, ok := a.mayProceed(cmd, &f.yes, "sign"); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	quoteWallet := walletID
	if quoteWallet == "" {
		first, code, ok := a.firstWallet(c)
		if !ok {
			return code
		}
		quoteWallet = first
	}
	qr := c.QuoteSignature(a.ctx, quoteWallet, req)
	if !qr.OK {
		return apiFailure(a, qr)
	}
	q := qr.Body.Quote
	a.printSignatureQuote(q)
	if q.Verdict.Decision == client.VerdictRefused {
		return a.localError("policy_refused", fmt.Sprintf("%s: %s; nothing was signed", q.Verdict.Rule, q.Verdict.Message))
	}
	if !f.yes {
		sure, err := a.confirm(fmt.Sprintf("Sign %s with %s?", q.Digest, q.Address))
		if err != nil {
			return a.localError("prompt_failed", err.Error())
		}
		if !sure {
			fmt.Fprintln(a.stderr, "Not signed.")
			return exitAPI
		}
	}
	var r client.Response[client.WalletSignatureEnvelope]
	if cmd == "wallet sign" {
		r = c.WalletSign(a.ctx, client.RootSignRequest{WalletID: walletID, SignatureRequest: req}, idemOpts(f.idemKey)...)
	} else {
		r = c.Sign(a.ctx, walletID, req, idemOpts(f.idemKey)...)
	}
	if !r.OK {
		return apiFailure(a, r)
	}
	if a.g.json {
		a.printRaw(r.Raw)
		return exitOK
	}
	s := r.Body.Signature
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Signature:\t%s\n", orDash(deref(s.Signature)))
	fmt.Fprintf(tw, "ID:\t%s\n", s.ID)
	fmt.Fprintf(tw, "Status:\t%s\n", s.Status)
	if s.SignedTransaction != nil {
		fmt.Fprintf(tw, "Signed transaction:\t%s\n", *s.SignedTransaction)
		fmt.Fprintf(tw, "Transaction hash:\t%s\n", deref(s.TransactionHash))
	}
	if s.ApprovalID != nil {
		fmt.Fprintf(tw, "Approval:\t%s\n", *s.ApprovalID)
	}
	_ = tw.Flush()
	if s.Status == client.WalletSigPendingApproval && s.ApprovalID != nil {
		fmt.Fprintf(a.stderr, "Waiting for approval %s (svc approvals approve %s); read the signature later with its id\n",
			*s.ApprovalID, *s.ApprovalID)
	}
	if (s.Status == client.WalletSigFailed || s.Status == client.WalletSigRejected) && s.Error != nil {
		fmt.Fprintln(a.stderr, "error: "+s.Error.Code+": "+s.Error.Message)
		return exitAPI
	}
	return exitOK
}

// firstWallet is the id of the account's first (oldest) wallet, the one seed 002's routes sign with.
func (a *app) firstWallet(c *client.Client) (string, int, bool) {
	var last string
	cursor := ""
	for {
		r := c.ListWallets(a.ctx, client.ListParams{Limit: 100, Cursor: cursor})
		if !r.OK {
			return "", apiFailure(a, r), false
		}
		if n := len(r.Body.Wallets); n > 0 {
			last = r.Body.Wallets[n-1].ID // newest first: the page's last is the oldest so far
		}
		if r.Body.NextCursor == nil {
			break
		}
		cursor = *r.Body.NextCursor
	}
	if last == "" {
		return "", a.localError("no_wallet", "this account has no wallet: create one with svc wallets create"), false
	}
	return last, 0, true
}

// printSignatureQuote shows what a signature signs and the policy's verdict (on stderr with --json).
func (a *app) printSignatureQuote(q client.SignatureQuote) {
	w := a.progress()
	fmt.Fprintf(w, "%s with %s (%s)\n", q.Type, q.Address, q.WalletID)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  Digest:\t%s\n", q.Digest)
	s := q.Subject
	if s.Message != nil {
		fmt.Fprintf(tw, "  Message:\t%s\n", oneLine(*s.Message, 200))
	} else if s.MessageHex != "" {
		fmt.Fprintf(tw, "  Message (hex):\t%s\n", oneLine(s.MessageHex, 200))
	}
	if td := s.TypedData; td != nil {
		fmt.Fprintf(tw, "  Primary type:\t%s\n", td.PrimaryType)
		fmt.Fprintf(tw, "  Domain:\tname %s, version %s, chainId %s, verifyingContract %s\n", orDash(td.Domain.Name),
			orDash(td.Domain.Version), orDash(deref(td.Domain.ChainID)), orDash(td.Domain.VerifyingContract))
	}
	if tx := s.Transaction; tx != nil {
		fmt.Fprintf(tw, "  Transaction:\tto %s, value %s wei, nonce %d, gas %d, chainId %d\n", tx.To, tx.Value, tx.Nonce, tx.Gas, tx.ChainID)
	}
	if sp := s.Spend; sp != nil {
		amount := sp.Atomic + " (smallest units) of " + sp.Asset
		if sp.Amount != "" {
			amount = assetAmount(sp.Amount, sp.Asset)
		}
		fmt.Fprintf(tw, "  Spends:\t%s %s to %s%s\n", sp.Kind, amount, sp.To, usdSuffix(sp.USDValue))
		fmt.Fprintf(tw, "  Sent in 24 hours:\t%s\n", usdText(q.SpentLast24hUSD))
	}
	fmt.Fprintf(tw, "  Policy:\t%s\n", verdictText(q.Verdict))
	_ = tw.Flush()
}
