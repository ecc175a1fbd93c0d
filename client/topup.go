package client

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Headers of an x402 top-up (POST /v1/credits/x402/top-up).
const (
	// HeaderPaymentRequired carries, on a 402 answer, what to pay: base64 JSON x402 v2 PaymentRequired.
	HeaderPaymentRequired = "Payment-Required"
	// HeaderPaymentSignature carries the payment on the retry: base64 JSON x402 v2 PaymentPayload.
	HeaderPaymentSignature = "Payment-Signature"
	// HeaderPaymentResponse carries, on the paid answer, the settlement: base64 JSON x402 SettleResponse.
	HeaderPaymentResponse = "Payment-Response"
	// HeaderPaidAgentReceipt carries the purchase receipt id of a paid top-up.
	HeaderPaidAgentReceipt = "X-Svc-Paid-Agent-Receipt"
)

// CodePaymentNotSent is the SDK's code (never the server's) for a TopUp whose pay function returned an
// error or no payment: nothing was paid. StatusCode, Header and Raw are those of the server's 402.
const CodePaymentNotSent = "payment_not_sent"

// TopUpSettleTimeout bounds how long TopUp keeps retrying a paid request whose settlement is still being
// confirmed (503 unavailable), or whose answer was lost, with the same key and payment.
const TopUpSettleTimeout = 2 * time.Minute

// Backoff between retries of a paid top-up.
const (
	topUpFirstBackoff = time.Second
	topUpMaxBackoff   = 5 * time.Second
)

// PayFunc pays for a top-up: given the Payment-Required header of the 402 answer (base64, as received),
// it returns the Payment-Signature header value to send, or an error to send nothing.
type PayFunc func(paymentRequired string) (paymentSignature string, err error)

// TopUp buys credits with an x402 payment of amountUSD US dollars (scope credits:write). It asks for the
// top-up; on 402 with Payment-Required it calls pay once and retries with the same Idempotency-Key and
// body plus Payment-Signature. A paid request answered 503 (the settlement is still being confirmed),
// 409 idempotency_in_flight, 429 or a transport error is sent again with the same key and payment, never
// signed again, for up to TopUpSettleTimeout (backoff 1 s to 5 s, stopping when ctx ends). An empty
// idempotencyKey gets a random one (see Response.IdempotencyKey). The final Response is returned: on
// success Body is the result and Header carries Payment-Response and X-Svc-Paid-Agent-Receipt; a refused
// payment is a 402 whose reason PaymentReason reads.
func (c *Client) TopUp(ctx context.Context, amountUSD float64, idempotencyKey string, pay PayFunc) Response[TopUpResult] {
	if pay == nil {
		return invalidArg[TopUpResult]("pay", "the pay function is nil")
	}
	if idempotencyKey == "" {
		idempotencyKey = NewIdempotencyKey()
	}
	first := c.TopUpOnce(ctx, amountUSD, idempotencyKey, "")
	required := first.Header.Get(HeaderPaymentRequired)
	if first.StatusCode != http.StatusPaymentRequired || required == "" {
		return first
	}
	signature, err := pay(required)
	if err == nil && strings.TrimSpace(signature) == "" {
		err = errEmptyPayment{}
	}
	if err != nil {
		return paymentNotSent(first, err)
	}
	return c.paidTopUp(ctx, amountUSD, idempotencyKey, signature)
}

// TopUpOnce sends POST /v1/credits/x402/top-up once: without paymentSignature it asks what to pay (a 402
// with Payment-Required); with one it pays. Nothing is retried. Send the paid request with the same
// idempotencyKey and amountUSD as the unpaid one.
func (c *Client) TopUpOnce(ctx context.Context, amountUSD float64, idempotencyKey, paymentSignature string) Response[TopUpResult] {
	opts := []CallOption{WithIdempotencyKey(idempotencyKey)}
	if paymentSignature != "" {
		opts = append(opts, WithHeader(HeaderPaymentSignature, paymentSignature))
	}
	return send[TopUpResult](ctx, c, call{method: http.MethodPost, path: "/credits/x402/top-up",
		body: TopUpRequest{AmountUSD: amountUSD}, auth: authKey, idem: true, opts: opts})
}

// PaymentReason is the reason of a refused payment (error.details.reason of a 402, such as
// insufficient_funds or invalid_signature), "" when e carries none.
func PaymentReason(e *Error) string {
	if e == nil {
		return ""
	}
	reason, _ := e.Details["reason"].(string)
	return reason
}

// paidTopUp sends the paid request until it has a final answer, TopUpSettleTimeout has passed or ctx ends.
func (c *Client) paidTopUp(ctx context.Context, amountUSD float64, idempotencyKey, signature string) Response[TopUpResult] {
	if ctx == nil {
		ctx = context.Background()
	}
	deadline := time.Now().Add(TopUpSettleTimeout)
	backoff := topUpFirstBackoff
	for {
		r := c.TopUpOnce(ctx, amountUSD, idempotencyKey, signature)
		if r.OK || !paidRetryable(r.Error) || ctx.Err() != nil {
			return r
		}
		wait := max(backoff, r.RetryAfter())
		if time.Now().Add(wait).After(deadline) || !sleepCtx(ctx, wait) {
			return r
		}
		backoff = min(2*backoff, topUpMaxBackoff)
	}
}

// paidRetryable reports whether a paid top-up may get its outcome by sending the same payment again.
func paidRetryable(e *Error) bool {
	return transient(e) || e != nil && e.Code == CodeIdempotencyInFlight
}

// sleepCtx waits d, or less when ctx ends first (then it returns false).
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// paymentNotSent turns the 402 answer into the failure of a payment the pay function did not make.
func paymentNotSent(r Response[TopUpResult], err error) Response[TopUpResult] {
	r.OK = false
	r.Error = &Error{Code: CodePaymentNotSent, Message: "nothing was paid: " + err.Error(), RequestID: r.RequestID}
	return r
}

// errEmptyPayment is the error of a pay function that returned no payment and no error.
type errEmptyPayment struct{}

// Error implements error.
func (errEmptyPayment) Error() string { return "the pay function returned an empty Payment-Signature" }
