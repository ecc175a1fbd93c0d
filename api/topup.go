package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/topup"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/schema"
)

// TopUpWait is how long a paid top-up request waits for its settlement before answering 503 (retry
// with the same Idempotency-Key to get the outcome), unless the top-up service was built with another wait (topup.Options.Wait).
const TopUpWait = topup.DefaultWait

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

// topUp buys credits with an x402 payment (see topup.Service.Buy): without one it answers 402 with what
// to pay; with one it answers the credits once the payment has settled.
func (tu *topUpAPI) topUp(ctx context.Context, in *topUpInput) (*topUpOutput, error) {
	p := principalFrom(ctx)
	header, legacy := in.PaymentSignature, false
	if header == "" && in.LegacyPayment != "" {
		header, legacy = in.LegacyPayment, true
	}
	t, err := tu.topups.Buy(ctx, topup.Purchase{Scope: p.Scope, IdempotencyKey: stateFrom(ctx).idemKey,
		AmountUSD: in.Body.AmountUSD, Payment: header, Legacy: legacy})
	var unpaid *topup.PaymentError
	if errors.As(err, &unpaid) {
		return nil, tu.paymentRequired(ctx, unpaid)
	}
	if err != nil {
		return nil, err
	}
	return tu.topUpAnswer(ctx, t)
}

// topUpAnswer is the answer of a credited top-up: its settlement in Payment-Response, what it credited
// and the balance.
func (tu *topUpAPI) topUpAnswer(ctx context.Context, t *schema.TopUp) (*topUpOutput, error) {
	b, err := tu.ledger.Balance(ctx, t.AccountID)
	if err != nil {
		return nil, err
	}
	tx := topup.Transaction(t)
	settled, err := x402.SettlementSucceeded(t.Network, common.HexToHash(tx), common.HexToAddress(t.Payer)).Header()
	if err != nil {
		return nil, err
	}
	return &topUpOutput{PaymentResponse: settled, Receipt: t.ReceiptID, Body: topup.ResultToWire(t, ledger.BalanceToWire(b))}, nil
}

// paymentRequired is the 402 answer: the envelope with the reason, and Payment-Required saying what to
// pay (with the reason as its error).
func (tu *topUpAPI) paymentRequired(ctx context.Context, unpaid *topup.PaymentError) error {
	resource := stateFrom(ctx).origin + "/v1/credits/x402/top-up"
	pr := x402.NewPaymentRequired(resource, "svc credits", unpaid.Requirements)
	pr.Error = unpaid.Message
	encoded, err := x402.EncodeHeader(pr)
	if err != nil {
		return fmt.Errorf("encode Payment-Required: %w", err)
	}
	e := &svcerr.Error{Code: svcerr.PaymentRequired, Param: unpaid.Field, Message: unpaid.Message}
	e = e.WithDetails("reason", unpaid.Reason)
	ae := envelope(requestIDFrom(ctx), http.StatusPaymentRequired, e)
	ae.headers = http.Header{x402.HeaderPaymentRequired: []string{encoded}}
	return ae
}

// topUpAPI sells credits for x402 payments.
type topUpAPI struct {
	ledger *ledger.Ledger
	topups *topup.Service
}

// routes are the topUp routes.
func (tu *topUpAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpCreditsX402TopUp, Method: http.MethodPost, Path: "/v1/credits/x402/top-up", Summary: "Buy credits with an x402 payment (402 first, then pay)", Tag: "Credits",
			Auth: authKey, Scope: client.ScopeCreditsWrite, Idem: true, Lease: TopUpWait + time.Minute}, tu.topUp),
	}
}
