package api

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/topup"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/schema"
)

// TopUpWait is how long a paid top-up request waits for its settlement before answering 503 (retry
// with the same Idempotency-Key to get the outcome), unless Deps.TopUpWait says otherwise.
const TopUpWait = 60 * time.Second

// reasonPaymentMissing is the 402's reason when the request carries no payment.
const reasonPaymentMissing = "payment_missing"

// USDCDecimals are the decimals of the token top-ups are paid in.
const USDCDecimals = 6

type topUpInput struct {
	PaymentSignature string `header:"Payment-Signature" doc:"The x402 v2 payment (base64 JSON PaymentPayload), on the retry after 402."`
	LegacyPayment    string `header:"X-PAYMENT" doc:"The legacy x402 v1 payment header, accepted instead of Payment-Signature."`
	X402Version      string `header:"X402-Version" doc:"Optional protocol-version hint; the payment header decides."`
	Body             client.TopUpRequest
}

type topUpOutput struct {
	PaymentResponse string `header:"Payment-Response" doc:"The settlement (base64 JSON x402 SettleResponse)."`
	Receipt         string `header:"X-Svc-Paid-Agent-Receipt" doc:"The purchase receipt id."`
	Body            client.TopUpResult
}

// topUp buys credits with an x402 payment: without one it answers 402 with what to pay; with one it
// verifies it, reserves its authorization (so copies of one signature credit once), settles it on chain
// through the top-up's workflow and answers the credits.
func (s *Server) topUp(ctx context.Context, in *topUpInput) (*topUpOutput, error) {
	if s.x402 == nil {
		return nil, svcerr.New(svcerr.Unavailable, "x402 top-ups are not configured on this server (see SVC_CHAIN_RPC_URL in README.md)")
	}
	cents, err := topUpCents(in.Body.AmountUSD)
	if err != nil {
		return nil, err
	}
	amount, err := x402.CentsToAtomic(cents, USDCDecimals)
	if err != nil {
		return nil, err
	}
	want := s.x402.Requirements(amount)
	prior, err := s.topups.Store.ForKey(ctx, principalFrom(ctx).Scope.AccountID, stateFrom(ctx).idemKey)
	if err != nil {
		return nil, err
	}
	if prior != nil {
		// This Idempotency-Key already paid: answer that payment's outcome (waiting for its settlement),
		// never ask for or take another one.
		return s.settleTopUp(ctx, prior, want)
	}
	header, legacy := in.PaymentSignature, false
	if header == "" && in.LegacyPayment != "" {
		header, legacy = in.LegacyPayment, true
	}
	if header == "" {
		return nil, s.paymentRequired(ctx, want, reasonPaymentMissing, "",
			"pay the amount in Payment-Required and retry with the payment in Payment-Signature and the same Idempotency-Key")
	}
	t, err := s.verifiedTopUp(ctx, header, legacy, want, cents)
	if err != nil {
		return nil, err
	}
	return s.settleTopUp(ctx, t, want)
}

// verifiedTopUp decodes and verifies a payment and reserves its authorization.
func (s *Server) verifiedTopUp(ctx context.Context, header string, legacy bool, want x402.PaymentRequirements, cents int64) (*schema.TopUp, error) {
	p, err := x402.DecodePaymentHeader(header, legacy)
	if err == nil {
		var auth x402.Authorization
		if auth, err = x402.Verify(*s.x402, want, p, time.Now()); err == nil {
			return s.reserveTopUp(ctx, p, auth, cents)
		}
	}
	if ve, ok := x402.AsVerifyError(err); ok {
		return nil, s.paymentRequired(ctx, want, ve.Reason, ve.Field, ve.Message)
	}
	return nil, s.paymentRequired(ctx, want, x402.ReasonInvalidPayload, "", err.Error())
}

// reserveTopUp records the verified payment, or finds the top-up an earlier copy of it reserved.
func (s *Server) reserveTopUp(ctx context.Context, p x402.PaymentPayload, a x402.Authorization, cents int64) (*schema.TopUp, error) {
	pr := principalFrom(ctx)
	chainID, asset := s.x402.ChainID.String(), strings.ToLower(s.x402.Asset.Hex())
	t := &schema.TopUp{
		ID:        topup.ID(chainID, asset, a.From.Hex(), hexutil.Encode(a.Nonce[:])),
		AccountID: pr.Scope.AccountID, ProjectID: pr.Scope.ProjectID,
		AmountCents: cents, Millicredits: cents * 1000 * topup.CreditsPerUSD / 100,
		Network: s.x402.Network, ChainID: chainID, Asset: asset, PayTo: s.x402.PayTo.Hex(), Payer: a.From.Hex(),
		Nonce: hexutil.Encode(a.Nonce[:]), Value: a.Value.String(), ValidAfter: a.ValidAfter.String(),
		ValidBefore: a.ValidBefore.String(), Signature: hexutil.Encode(a.Signature), X402Version: p.X402Version,
		IdempotencyKey: stateFrom(ctx).idemKey,
	}
	stored, _, err := s.topups.Store.Reserve(ctx, t)
	if err != nil {
		return nil, err
	}
	if stored.AccountID != pr.Scope.AccountID {
		return nil, (&svcerr.Error{Code: svcerr.Conflict, Param: "Payment-Signature",
			Message: "this payment authorization was already used for another top-up; sign a new payment"})
	}
	return stored, nil
}

// settleTopUp waits for the top-up's workflow and answers its outcome.
func (s *Server) settleTopUp(ctx context.Context, t *schema.TopUp, want x402.PaymentRequirements) (*topUpOutput, error) {
	done, err := s.topups.Await(ctx, t, s.topUpWait)
	if errors.Is(err, topup.ErrPending) {
		return nil, svcerr.New(svcerr.Unavailable, "the payment is being settled on chain; retry with the same Idempotency-Key and payment to get the outcome (do not pay again)").
			WithDetails("topUpId", t.ID)
	}
	if err != nil {
		return nil, err
	}
	if done.Status == topup.Failed {
		reason, msg := topup.Failure(done)
		return nil, s.paymentRequired(ctx, want, reason, "", "the payment could not be settled: "+msg)
	}
	return s.topUpAnswer(ctx, done)
}

func (s *Server) topUpAnswer(ctx context.Context, t *schema.TopUp) (*topUpOutput, error) {
	b, err := s.ledger.Balance(ctx, t.AccountID)
	if err != nil {
		return nil, err
	}
	tx := topup.Transaction(t)
	settled, err := x402.SettlementSucceeded(t.Network, common.HexToHash(tx), common.HexToAddress(t.Payer)).Header()
	if err != nil {
		return nil, err
	}
	ev := topup.EventData(t)
	return &topUpOutput{PaymentResponse: settled, Receipt: t.ReceiptID, Body: client.TopUpResult{OK: true,
		CreditedUSD: ev.CreditedUSD, CreditedCredits: ev.CreditedCredits, ReceiptID: t.ReceiptID, TopUpID: t.ID,
		Network: t.Network, Payer: ev.Payer, Transaction: tx,
		Balance: ledger.BalanceToWire(b)}}, nil
}

// paymentRequired is the 402 answer: the envelope with the reason, and Payment-Required saying what to
// pay (with the reason as its error).
func (s *Server) paymentRequired(ctx context.Context, want x402.PaymentRequirements, reason, field, message string) error {
	resource := stateFrom(ctx).origin + "/v1/credits/x402/top-up"
	pr := x402.NewPaymentRequired(resource, "svc credits", want)
	pr.Error = message
	encoded, err := x402.EncodeHeader(pr)
	if err != nil {
		return fmt.Errorf("encode Payment-Required: %w", err)
	}
	e := &svcerr.Error{Code: svcerr.PaymentRequired, Param: field, Message: message}
	e = e.WithDetails("reason", reason)
	ae := envelope(requestIDFrom(ctx), http.StatusPaymentRequired, e)
	ae.headers = http.Header{x402.HeaderPaymentRequired: []string{encoded}}
	return ae
}

// topUpCents checks amountUsd: 5 to 500 with at most two decimal places.
func topUpCents(usd float64) (int64, error) {
	cents := math.Round(usd * 100)
	if math.Abs(usd*100-cents) > 1e-6 || math.IsNaN(usd) {
		return 0, svcerr.Invalid("amountUsd", "amountUsd has at most two decimal places")
	}
	if cents < topup.MinCents || cents > topup.MaxCents {
		return 0, svcerr.Invalid("amountUsd", "amountUsd must be between 5 and 500")
	}
	return int64(cents), nil
}
