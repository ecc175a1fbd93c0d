package topup

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/schema"
)

// USDCDecimals are the decimals of the token top-ups are paid in.
const USDCDecimals = 6

// ReasonPaymentMissing is a PaymentError's reason when the purchase carries no payment.
const ReasonPaymentMissing = "payment_missing"

// Purchase is a request to buy credits with an x402 payment.
type Purchase struct {
	// Scope is who buys: its account is credited.
	Scope tenant.Scope
	// IdempotencyKey is the request's key: a retry of a request that paid gets that payment's outcome.
	IdempotencyKey string
	// AmountUSD is what to buy, in US dollars: 5 to 500 with at most two decimal places.
	AmountUSD float64
	// Payment is the x402 payment header as sent (base64 JSON), "" when the request carries none;
	// Legacy says it is the v1 X-PAYMENT header rather than v2 Payment-Signature.
	Payment string
	Legacy  bool
}

// PaymentError says the purchase must be paid (again): what to pay, and why the payment it carried, if
// any, does not pay it.
type PaymentError struct {
	// Requirements are what pays the purchase.
	Requirements x402.PaymentRequirements
	// Reason is a machine reason (ReasonPaymentMissing, an x402 verification reason, a settlement
	// failure's reason); Field the payment field at fault, if one is.
	Reason, Field string
	Message       string
}

func (e *PaymentError) Error() string { return e.Message }

// Buy buys credits with an x402 payment: without one it asks for it (a *PaymentError saying what to
// pay); with one it verifies it against what the amount costs, reserves its authorization (so copies of
// one signature credit once), settles it on chain through the top-up's workflow and returns the
// credited top-up. A purchase with the Idempotency-Key of one that paid gets that payment's outcome
// (waiting for its settlement) and never asks for or takes another payment.
func (s *Service) Buy(ctx context.Context, p Purchase) (*schema.TopUp, error) {
	if s.x402 == nil {
		return nil, svcerr.New(svcerr.Unavailable, "x402 top-ups are not configured on this server (see SVC_CHAIN_RPC_URL in README.md)")
	}
	cents, err := Cents(p.AmountUSD)
	if err != nil {
		return nil, err
	}
	amount, err := x402.CentsToAtomic(cents, USDCDecimals)
	if err != nil {
		return nil, err
	}
	want := s.x402.Requirements(amount)
	prior, err := s.Store.ForKey(ctx, p.Scope.AccountID, p.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	if prior != nil {
		return s.settle(ctx, prior, want)
	}
	if p.Payment == "" {
		return nil, &PaymentError{Requirements: want, Reason: ReasonPaymentMissing,
			Message: "pay the amount in Payment-Required and retry with the payment in Payment-Signature and the same Idempotency-Key"}
	}
	t, err := s.verified(ctx, p, want, cents)
	if err != nil {
		return nil, err
	}
	return s.settle(ctx, t, want)
}

// Cents checks an amount in US dollars (5 to 500 with at most two decimal places) and returns it in
// cents.
func Cents(usd float64) (int64, error) {
	cents := math.Round(usd * 100)
	if math.Abs(usd*100-cents) > 1e-6 || math.IsNaN(usd) {
		return 0, svcerr.Invalid("amountUsd", "amountUsd has at most two decimal places")
	}
	if cents < MinCents || cents > MaxCents {
		return 0, svcerr.Invalid("amountUsd", "amountUsd must be between 5 and 500")
	}
	return int64(cents), nil
}

// verified decodes and verifies the purchase's payment and reserves its authorization.
func (s *Service) verified(ctx context.Context, p Purchase, want x402.PaymentRequirements, cents int64) (*schema.TopUp, error) {
	payload, err := x402.DecodePaymentHeader(p.Payment, p.Legacy)
	if err == nil {
		var auth x402.Authorization
		if auth, err = x402.Verify(*s.x402, want, payload, time.Now()); err == nil {
			return s.reserve(ctx, p, payload, auth, cents)
		}
	}
	if ve, ok := x402.AsVerifyError(err); ok {
		return nil, &PaymentError{Requirements: want, Reason: ve.Reason, Field: ve.Field, Message: ve.Message}
	}
	return nil, &PaymentError{Requirements: want, Reason: x402.ReasonInvalidPayload, Message: err.Error()}
}

// reserve records the verified payment, or finds the top-up an earlier copy of it reserved.
func (s *Service) reserve(ctx context.Context, p Purchase, payload x402.PaymentPayload, a x402.Authorization, cents int64) (*schema.TopUp, error) {
	chainID, asset := s.x402.ChainID.String(), strings.ToLower(s.x402.Asset.Hex())
	t := &schema.TopUp{
		ID:        ID(chainID, asset, a.From.Hex(), hexutil.Encode(a.Nonce[:])),
		AccountID: p.Scope.AccountID, ProjectID: p.Scope.ProjectID,
		AmountCents: cents, Millicredits: cents * 1000 * CreditsPerUSD / 100,
		Network: s.x402.Network, ChainID: chainID, Asset: asset, PayTo: s.x402.PayTo.Hex(), Payer: a.From.Hex(),
		Nonce: hexutil.Encode(a.Nonce[:]), Value: a.Value.String(), ValidAfter: a.ValidAfter.String(),
		ValidBefore: a.ValidBefore.String(), Signature: hexutil.Encode(a.Signature), X402Version: payload.X402Version,
		IdempotencyKey: p.IdempotencyKey,
	}
	stored, _, err := s.Store.Reserve(ctx, t)
	if err != nil {
		return nil, err
	}
	if stored.AccountID != p.Scope.AccountID {
		return nil, (&svcerr.Error{Code: svcerr.Conflict, Param: "Payment-Signature",
			Message: "this payment authorization was already used for another top-up; sign a new payment"})
	}
	return stored, nil
}

// settle waits for the top-up's workflow and returns its outcome: the credited top-up, a *PaymentError
// when the payment could not settle, or unavailable (with the top-up's id) when it is still settling.
func (s *Service) settle(ctx context.Context, t *schema.TopUp, want x402.PaymentRequirements) (*schema.TopUp, error) {
	done, err := s.Await(ctx, t, s.wait)
	if errors.Is(err, ErrPending) {
		return nil, svcerr.New(svcerr.Unavailable, "the payment is being settled on chain; retry with the same Idempotency-Key and payment to get the outcome (do not pay again)").
			WithDetails("topUpId", t.ID)
	}
	if err != nil {
		return nil, err
	}
	if done.Status == Failed {
		reason, msg := Failure(done)
		return nil, &PaymentError{Requirements: want, Reason: reason, Message: "the payment could not be settled: " + msg}
	}
	return done, nil
}
