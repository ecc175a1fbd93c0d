package main

import (
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/x402"
)

// topUpRequestTimeout bounds each top-up request: the server waits up to a minute for the settlement
// before it answers 503.
const topUpRequestTimeout = 90 * time.Second

// atomicPerCent is the number of USDC atomic units (6 decimals) in one US cent.
const atomicPerCent = 10_000

// usdRE is an amount of US dollars with at most two decimal places.
var usdRE = regexp.MustCompile(`^[0-9]{1,9}(\.[0-9]{1,2})?$`)

// topUpCommands are the x402 top-up, "svc credits top-up".
func topUpCommands() []command {
	return []command{
		{name: "credits top-up", run: (*app).creditsTopUp, help: creditsTopUpHelp,
			brief: "buy credits with a USDC payment (x402) signed with a local key"},
	}
}

// creditsTopUpHelp is the help of "svc credits top-up".
const creditsTopUpHelp = `Usage: svc credits top-up AMOUNT --private-key-env VAR [--idempotency-key K] [--json]

Buys credits for AMOUNT US dollars (5 to 500, at most two decimal places; 100 credits per dollar) with
an x402 payment in USDC (scope credits:write), e.g.
  PAYER_KEY=0x... svc credits top-up 25 --private-key-env PAYER_KEY

svc asks the server what to pay, checks it is exactly AMOUNT USDC in the exact scheme (otherwise it
refuses to sign and nothing is paid), signs the EIP-3009 transfer authorization locally with the key and
sends it; the server settles it on chain and credits the account. Progress goes to stderr, then the
credited dollars and credits, the receipt, the transaction hash and the new balance go to stdout (with
--json, the API's envelope). A refused payment prints the server's reason (insufficient_funds,
invalid_signature, ...). While the settlement is being confirmed the same payment is sent again for up
to 2 minutes; it is never signed twice.

  --private-key-env VAR   the environment variable holding the payer's hex secp256k1 private key, with
                          or without 0x (required; the key is never taken on the command line, printed
                          or sent: only the signature leaves this machine)
  --idempotency-key K     Idempotency-Key to send (default: random, printed on stderr); rerunning with the
                          key of a completed top-up shows its answer again instead of paying again

Exit status: 0 when the credits were added; 1 when the payment was refused (or not made, or is still
being settled) or the API refused the call; 2 for a usage error.

` + globalFlagsHelp

// creditsTopUp buys credits with an x402 USDC payment signed locally with the key in --private-key-env.
func (a *app) creditsTopUp(args []string) int {
	const cmd = "credits top-up"
	var keyEnv, idemKey string
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&keyEnv, "private-key-env", "", "the environment variable holding the payer's hex private key")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return a.usageError(cmd, "%s takes exactly one AMOUNT in US dollars, such as 25 or 12.50", cmd)
	}
	cents, err := parseUSDCents(pos[0])
	if err != nil {
		return a.usageError(cmd, "%v", err)
	}
	key, err := a.payerKey(keyEnv)
	if err != nil {
		return a.usageError(cmd, "%v", err)
	}
	c, code, ok := a.topUpClient()
	if !ok {
		return code
	}
	if idemKey == "" {
		idemKey = client.NewIdempotencyKey()
		fmt.Fprintf(a.stderr, "Idempotency-Key: %s (to retry safely, rerun with --idempotency-key %s)\n", idemKey, idemKey)
	}
	fmt.Fprintln(a.stderr, "asking for payment requirements…")
	p := &topUpPayer{a: a, key: key, cents: cents}
	return a.topUpAnswer(c.TopUp(a.ctx, float64(cents)/100, idemKey, p.pay))
}

// parseUSDCents parses an AMOUNT of US dollars with at most two decimal places into cents.
func parseUSDCents(s string) (int64, error) {
	if !usdRE.MatchString(s) {
		return 0, fmt.Errorf("AMOUNT %q is not an amount of US dollars with at most two decimal places, such as 25 or 12.50", s)
	}
	whole, frac, _ := strings.Cut(s, ".")
	dollars, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("AMOUNT %q: %w", s, err)
	}
	cents, _ := strconv.ParseInt((frac + "00")[:2], 10, 64) // two digits, checked by usdRE
	return dollars*100 + cents, nil
}

// payerKey reads the payer's private key from the environment variable named by --private-key-env. Its
// errors name the variable and never quote its value.
func (a *app) payerKey(envName string) (*ecdsa.PrivateKey, error) {
	if strings.TrimSpace(envName) == "" {
		return nil, errors.New("--private-key-env is required: the environment variable holding the payer's hex private key")
	}
	v := strings.TrimSpace(a.getenv(envName))
	if v == "" {
		return nil, fmt.Errorf("--private-key-env: the environment variable %s is not set or is empty", envName)
	}
	if len(v) > 2 && (v[:2] == "0x" || v[:2] == "0X") {
		v = v[2:]
	}
	key, err := crypto.HexToECDSA(v)
	if err != nil {
		// The cause is left out on purpose: go-ethereum's message may quote characters of the key.
		return nil, fmt.Errorf("--private-key-env: the environment variable %s does not hold a secp256k1 private key "+
			"(64 hex digits, with or without 0x)", envName)
	}
	return key, nil
}

// topUpClient is the authenticated client of a top-up, whose requests may wait for a settlement.
func (a *app) topUpClient() (*client.Client, int, bool) {
	_, s, code, ok := a.authedClient()
	if !ok {
		return nil, code, false
	}
	return a.newClient(s, client.WithHTTPClient(&http.Client{Timeout: topUpRequestTimeout})), 0, true
}

// topUpPayer pays the top-up's 402 with a locally signed payment, after checking what is asked.
type topUpPayer struct {
	a     *app
	key   *ecdsa.PrivateKey
	cents int64
}

// pay checks the Payment-Required header against the amount asked for, signs the payment and returns
// the Payment-Signature header value.
func (p *topUpPayer) pay(required string) (string, error) {
	pr, err := decodePaymentRequired(required)
	if err != nil {
		return "", err
	}
	req, err := p.offer(pr)
	if err != nil {
		return "", err
	}
	from := crypto.PubkeyToAddress(p.key.PublicKey)
	fmt.Fprintf(p.a.stderr, "paying %s USDC from %s to %s on %s…\n", formatCents(p.cents), from.Hex(),
		checksummed(req.PayTo), req.Network)
	payment, err := x402.Pay(p.key, req, &pr.Resource, time.Now())
	if err != nil {
		return "", fmt.Errorf("sign the payment: %w", err)
	}
	header, err := x402.EncodeHeader(payment)
	if err != nil {
		return "", fmt.Errorf("encode the payment: %w", err)
	}
	fmt.Fprintln(p.a.stderr, "settling on chain…")
	return header, nil
}

// offer picks the exact-scheme offer of pr and refuses it unless it asks for exactly the amount asked
// for, to a payTo address.
func (p *topUpPayer) offer(pr x402.PaymentRequired) (x402.PaymentRequirements, error) {
	if pr.X402Version != x402.Version {
		return x402.PaymentRequirements{}, fmt.Errorf("the server speaks x402 version %d, not %d; refusing to sign", pr.X402Version, x402.Version)
	}
	var schemes []string
	for _, req := range pr.Accepts {
		if req.Scheme != x402.SchemeExact {
			schemes = append(schemes, strconv.Quote(req.Scheme))
			continue
		}
		want := big.NewInt(p.cents * atomicPerCent)
		got, err := x402.AtomicAmount(req)
		if err != nil || got.Cmp(want) != 0 {
			return req, fmt.Errorf("the server asks for %q atomic units, but %s USD is %s (6 decimals); refusing to sign",
				req.Amount, formatCents(p.cents), want)
		}
		if !common.IsHexAddress(req.PayTo) {
			return req, fmt.Errorf("the server asks to pay %q, which is not an address; refusing to sign", req.PayTo)
		}
		return req, nil
	}
	return x402.PaymentRequirements{}, fmt.Errorf("the server offers no %q payment (offered: %s); refusing to sign",
		x402.SchemeExact, orDash(strings.Join(schemes, ", ")))
}

// decodePaymentRequired decodes a Payment-Required header: base64 JSON x402 PaymentRequired.
func decodePaymentRequired(header string) (x402.PaymentRequired, error) {
	var pr x402.PaymentRequired
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(header))
	if err != nil {
		return pr, fmt.Errorf("the Payment-Required header is not base64: %w", err)
	}
	if err := json.Unmarshal(raw, &pr); err != nil {
		return pr, fmt.Errorf("the Payment-Required header is not x402 JSON: %w", err)
	}
	return pr, nil
}

// topUpAnswer prints the outcome of a top-up and returns the exit code.
func (a *app) topUpAnswer(r client.Response[client.TopUpResult]) int {
	if !r.OK {
		return a.topUpFailure(r)
	}
	return answer(a, r, func(r client.Response[client.TopUpResult]) {
		b := r.Body
		fmt.Fprintln(a.stdout, titleLine("Topped up", formatCents(int64(math.Round(b.CreditedUSD*100)))+" USD", "", r.Replayed))
		tw := a.table()
		fmt.Fprintf(tw, "Credited:\t%s credits\n", formatCredits(b.CreditedCredits))
		fmt.Fprintf(tw, "Receipt:\t%s\n", b.ReceiptID)
		fmt.Fprintf(tw, "Top-up:\t%s\n", b.TopUpID)
		fmt.Fprintf(tw, "Transaction:\t%s\n", b.Transaction)
		fmt.Fprintf(tw, "Network:\t%s\n", b.Network)
		fmt.Fprintf(tw, "Payer:\t%s\n", checksummed(b.Payer))
		fmt.Fprintf(tw, "Balance:\t%s credits\n", formatCredits(b.Balance.Credits))
		_ = tw.Flush()
	})
}

// topUpFailure reports a top-up that did not credit: a payment svc refused to make, a payment the server
// refused (with its reason), or a settlement still being confirmed (which must not be paid again).
func (a *app) topUpFailure(r client.Response[client.TopUpResult]) int {
	e := r.Error
	if e == nil {
		return apiFailure(a, r)
	}
	if e.Code == client.CodePaymentNotSent {
		return a.localError(e.Code, e.Message)
	}
	code := apiFailure(a, r)
	if reason := client.PaymentReason(e); reason != "" && r.StatusCode == http.StatusPaymentRequired {
		fmt.Fprintf(a.stderr, "payment refused: %s\n", reason)
	}
	if id, _ := e.Details["topUpId"].(string); id != "" && e.Code == client.CodeUnavailable {
		fmt.Fprintf(a.stderr, "The payment of top-up %s is still being settled on chain. Do not pay again: the credits are "+
			"added when it settles; check with \"svc credits balance\".\n", id)
	}
	return code
}

// formatCents shows an amount of cents as dollars with two decimals.
func formatCents(cents int64) string {
	return fmt.Sprintf("%d.%02d", cents/100, cents%100)
}

// checksummed shows a hex address with its EIP-55 checksum, and anything else as it is.
func checksummed(addr string) string {
	if !common.IsHexAddress(addr) {
		return addr
	}
	return common.HexToAddress(addr).Hex()
}
