// Package cryptorail describes the payment rails the platform offers (an x402 credit top-up, a managed
// wallet send, the account's credits) for one caller, picks one for an amount and a purpose, and
// prepares the HTTP request the caller would make. It never spends: it only reads the facts the API
// gathered (Facts) and answers with descriptions and requests.
package cryptorail

import (
	"fmt"
	"math"
	"strings"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Bounds of an x402 top-up, in US dollars (topup.MinCents and MaxCents).
const (
	TopUpMinUSD = 5
	TopUpMaxUSD = 500
)

// maxAmountUSD bounds amountUsd.
const maxAmountUSD = 1_000_000

// Facts are what the API knows of the caller: its grants, the platform's configuration, the balance
// and the wallets. A fact the key may not read is left out and says so.
type Facts struct {
	// CreditsPerUSD is what a dollar buys.
	CreditsPerUSD int
	// X402 is what top-ups are paid in; nil when the server sells none.
	X402 *X402Offer
	// CanTopUp: the key holds credits:write.
	CanTopUp bool
	// Balance is the spendable balance in credits; nil when the key lacks credits:read.
	Balance *float64
	// WalletsConfigured: the server runs managed wallets and can send from them.
	WalletsConfigured bool
	// CanSend: the key holds wallets:transact and may use the managed-wallets service.
	CanSend bool
	// Wallets are the account's wallets (nil when the key may not send).
	Wallets []client.CryptoWallet
}

// X402Offer is what an x402 top-up is paid in and to.
type X402Offer struct {
	Network string
	Asset   string
	PayTo   string
}

// Rails lists every rail for f, in a fixed order.
func Rails(f Facts) []client.CryptoRail {
	return []client.CryptoRail{creditsRail(f), topUpRail(f), walletRail(f)}
}

func creditsRail(f Facts) client.CryptoRail {
	r := client.CryptoRail{ID: client.RailCredits, Title: "Account credits",
		Description: fmt.Sprintf("Spend the account's prepaid credits (%d credits a dollar): a paid service call or run draws them itself, nothing to pay separately.", f.CreditsPerUSD),
		Available:   true, Needs: []string{"credits on the account's balance", "scope credits:read to see the balance"},
		Endpoint: client.CryptoEndpoint{Method: "GET", Path: "/v1/credits/balance"}, BalanceCredits: f.Balance}
	if f.Balance == nil {
		r.Available, r.UnavailableReason = false, "this key lacks scope credits:read, so the balance cannot be checked"
	} else {
		r.Limits.MaxUSD = ptr(*f.Balance / float64(f.CreditsPerUSD))
	}
	return r
}

func topUpRail(f Facts) client.CryptoRail {
	r := client.CryptoRail{ID: client.RailX402TopUp, Title: "x402 credit top-up",
		Description: "Buy credits with a USDC payment signed by an x402 v2 client (EIP-3009 transferWithAuthorization): the route answers 402 with what to pay, then credits the account once the payment settles.",
		Needs:       []string{"scope credits:write", "an x402 v2 client with a funded USDC wallet", "an Idempotency-Key"},
		Limits:      client.CryptoLimits{MinUSD: ptr(TopUpMinUSD), MaxUSD: ptr(TopUpMaxUSD)},
		Endpoint:    client.CryptoEndpoint{Method: "POST", Path: "/v1/credits/x402/top-up"}}
	if f.X402 != nil {
		r.Network, r.Asset, r.PayTo = f.X402.Network, f.X402.Asset, f.X402.PayTo
	}
	switch {
	case f.X402 == nil:
		r.UnavailableReason = "this server sells no x402 top-ups (not configured)"
	case !f.CanTopUp:
		r.UnavailableReason = "this key lacks scope credits:write"
	default:
		r.Available = true
	}
	return r
}

func walletRail(f Facts) client.CryptoRail {
	r := client.CryptoRail{ID: client.RailWalletSend, Title: "Managed wallet send",
		Description: "Send USDC (or the native asset) from one of the account's managed wallets to an address; the wallet's policy judges it (limits, permitted recipients, approvals) and the workflow wallettx/<id> signs, broadcasts and confirms it.",
		Needs:       []string{"scope wallets:transact", "access to service managed-wallets", "a managed wallet that is not paused", "the recipient address (to)", "an Idempotency-Key"},
		Endpoint:    client.CryptoEndpoint{Method: "POST", Path: "/v1/wallets/{walletId}/transactions"}, Wallets: f.Wallets}
	usable := usableWallets(f.Wallets)
	switch {
	case !f.WalletsConfigured:
		r.UnavailableReason = "this server runs no managed wallets (not configured)"
	case !f.CanSend:
		r.UnavailableReason = "this key lacks scope wallets:transact or access to service managed-wallets"
	case len(usable) == 0:
		r.UnavailableReason = "the account has no managed wallet that is not paused (create one: POST /v1/wallets)"
	default:
		r.Available = true
		r.Limits.MaxUSD = largestLimit(usable)
	}
	return r
}

// usableWallets are the wallets that are not paused.
func usableWallets(ws []client.CryptoWallet) []client.CryptoWallet {
	var out []client.CryptoWallet
	for _, w := range ws {
		if !w.Paused {
			out = append(out, w)
		}
	}
	return out
}

// largestLimit is the largest per-transaction limit of ws (nil when one has none).
func largestLimit(ws []client.CryptoWallet) *float64 {
	var most float64
	for _, w := range ws {
		if w.PerTransactionLimitUSD == nil {
			return nil
		}
		most = math.Max(most, *w.PerTransactionLimitUSD)
	}
	return &most
}

// CheckRequest validates the fields every action shares and returns the purpose the request means.
func CheckRequest(r client.CryptoActionRequest) (string, error) {
	cents := r.AmountUSD * 100
	switch {
	case r.Action != client.CryptoSelect && r.Action != client.CryptoPrepare:
		return "", svcerr.Invalid("action", "action must be select or prepare")
	case !(r.AmountUSD > 0) || r.AmountUSD > maxAmountUSD:
		return "", svcerr.Invalid("amountUsd", "amountUsd must be more than 0 and at most %d", maxAmountUSD)
	case math.Abs(cents-math.Round(cents)) > 1e-6:
		return "", svcerr.Invalid("amountUsd", "amountUsd has at most two decimal places")
	case r.Rail != "" && r.Action != client.CryptoPrepare:
		return "", svcerr.Invalid("rail", "rail is for prepare: select picks the rail itself")
	}
	purpose := r.Purpose
	if purpose == "" {
		purpose = client.PurposePlatform
		if strings.TrimSpace(r.To) != "" {
			purpose = client.PurposeTransfer
		}
	}
	if purpose == client.PurposeTransfer && strings.TrimSpace(r.To) == "" {
		return "", svcerr.Invalid("to", "to: a transfer needs the recipient address")
	}
	return purpose, nil
}

func ptr(v float64) *float64 { return &v }
