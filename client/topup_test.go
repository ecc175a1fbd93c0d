package client_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

const topUpRoute = "/v1/credits/x402/top-up"

// x402Server answers the top-up route with answers[i] for its i-th request (the last one repeats).
func x402Server(t *testing.T, answers ...http.HandlerFunc) *recorder {
	t.Helper()
	var n atomic.Int32
	return newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		i := min(int(n.Add(1))-1, len(answers)-1)
		answers[i](w, r)
	})
}

// needPayment answers 402 with a Payment-Required header and the reason.
func needPayment(header, reason string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set(client.HeaderPaymentRequired, header)
		writeJSON(w, http.StatusPaymentRequired, map[string]any{"ok": false, "error": map[string]any{
			"code": "payment_required", "message": "pay first", "requestId": "req_test",
			"details": map[string]any{"reason": reason}}})
	}
}

// settling answers 503: the settlement is still being confirmed.
func settling(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "error": map[string]any{
		"code": "unavailable", "message": "the payment is being settled on chain", "requestId": "req_test",
		"details": map[string]any{"topUpId": "topup_1"}}})
}

// paid answers 200 with a top-up result.
func paid(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set(client.HeaderPaymentResponse, "eyJzdWNjZXNzIjp0cnVlfQ==")
	w.Header().Set(client.HeaderPaidAgentReceipt, "rcpt_1")
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "creditedUsd": 25, "creditedCredits": 2500,
		"receiptId": "rcpt_1", "topUpId": "topup_1", "network": "eip155:1337", "payer": "0xPayer", "transaction": "0xabc",
		"balance": map[string]any{"credits": 2500, "heldCredits": 0, "updatedAt": "2026-01-01T00:00:00Z"}})
}

// payer is a pay function that counts its calls and records what it was given.
type payer struct {
	calls    atomic.Int32
	required atomic.Value
	sig      string
	err      error
}

func (p *payer) pay(required string) (string, error) {
	p.calls.Add(1)
	p.required.Store(required)
	return p.sig, p.err
}

// requireSameRequest checks that every recorded request is the same top-up: one Idempotency-Key and one
// body; it returns the key.
func requireSameRequest(t *testing.T, rec *recorder) string {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.NotEmpty(t, rec.reqs)
	key := rec.reqs[0].Header.Get(client.HeaderIdempotencyKey)
	require.NotEmpty(t, key)
	for i, r := range rec.reqs {
		require.Equal(t, http.MethodPost, r.Method, i)
		require.Equal(t, topUpRoute, r.Path, i)
		require.Equal(t, key, r.Header.Get(client.HeaderIdempotencyKey), "request %d", i)
		require.JSONEq(t, `{"amountUsd":25}`, string(r.Body), "request %d", i)
		require.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	}
	return key
}

// signatures returns the Payment-Signature of every recorded request ("" when absent).
func signatures(rec *recorder) []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []string
	for _, r := range rec.reqs {
		out = append(out, r.Header.Get(client.HeaderPaymentSignature))
	}
	return out
}

func testClient(rec *recorder) *client.Client {
	return client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
}

// TestTopUpPaysAfter402: the 402's Payment-Required goes to pay as received, and the retry carries the
// same key and body plus Payment-Signature; the answer's headers are kept.
func TestTopUpPaysAfter402(t *testing.T) {
	t.Parallel()
	rec := x402Server(t, needPayment("UkVRVUlSRUQ=", "payment_missing"), paid)
	p := &payer{sig: "c2lnbmVk"}
	resp := testClient(rec).TopUp(context.Background(), 25, "top-1", p.pay)
	require.True(t, resp.OK, "%+v", resp.Error)
	require.EqualValues(t, 1, p.calls.Load())
	require.Equal(t, "UkVRVUlSRUQ=", p.required.Load())

	require.Equal(t, "top-1", requireSameRequest(t, rec))
	require.Equal(t, []string{"", "c2lnbmVk"}, signatures(rec), "Payment-Signature only on the retry")
	require.Equal(t, "top-1", resp.IdempotencyKey)
	require.Equal(t, 2500.0, resp.Body.CreditedCredits)
	require.Equal(t, 25.0, resp.Body.CreditedUSD)
	require.Equal(t, "rcpt_1", resp.Body.ReceiptID)
	require.Equal(t, 2500.0, resp.Body.Balance.Credits)
	require.Equal(t, "rcpt_1", resp.Header.Get(client.HeaderPaidAgentReceipt))
	require.NotEmpty(t, resp.Header.Get(client.HeaderPaymentResponse))
}

// TestTopUpRetriesSettlementWithTheSamePayment: a 503 on the paid retry is sent again with the same key
// and signature; pay is called once.
func TestTopUpRetriesSettlementWithTheSamePayment(t *testing.T) {
	t.Parallel()
	rec := x402Server(t, needPayment("UkVRVUlSRUQ=", "payment_missing"), settling, paid)
	p := &payer{sig: "c2lnbmVk"}
	resp := testClient(rec).TopUp(context.Background(), 25, "", p.pay)
	require.True(t, resp.OK, "%+v", resp.Error)
	require.EqualValues(t, 1, p.calls.Load(), "never signed again")
	key := requireSameRequest(t, rec)
	require.Regexp(t, uuidRE, key, "a generated key, the same on every request")
	require.Equal(t, key, resp.IdempotencyKey)
	require.Equal(t, []string{"", "c2lnbmVk", "c2lnbmVk"}, signatures(rec))
	require.Equal(t, "rcpt_1", resp.Body.ReceiptID)
}

// TestTopUpRefusedPaymentIsSurfaced: a 402 on the paid retry is the answer, with its reason and a fresh
// Payment-Required; nothing is paid again.
func TestTopUpRefusedPaymentIsSurfaced(t *testing.T) {
	t.Parallel()
	rec := x402Server(t, needPayment("Rmlyc3Q=", "payment_missing"), needPayment("RnJlc2g=", "insufficient_funds"))
	p := &payer{sig: "c2lnbmVk"}
	resp := testClient(rec).TopUp(context.Background(), 25, "top-2", p.pay)
	require.False(t, resp.OK)
	require.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	require.Equal(t, client.CodePaymentRequired, resp.Error.Code)
	require.Equal(t, "insufficient_funds", client.PaymentReason(resp.Error))
	require.Equal(t, "RnJlc2g=", resp.Header.Get(client.HeaderPaymentRequired))
	require.Equal(t, "req_test", resp.RequestID)
	require.EqualValues(t, 1, p.calls.Load())
	requireSameRequest(t, rec)
	require.Equal(t, []string{"", "c2lnbmVk"}, signatures(rec))
}

// TestTopUpPayErrorSendsNothing: when pay fails (or returns no payment) nothing more is sent.
func TestTopUpPayErrorSendsNothing(t *testing.T) {
	t.Parallel()
	for _, p := range []*payer{{err: errors.New("the amount is wrong")}, {sig: " "}} {
		rec := x402Server(t, needPayment("UkVRVUlSRUQ=", "payment_missing"), paid)
		resp := testClient(rec).TopUp(context.Background(), 25, "top-3", p.pay)
		require.False(t, resp.OK)
		require.Equal(t, client.CodePaymentNotSent, resp.Error.Code)
		require.Contains(t, resp.Error.Message, "nothing was paid")
		require.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
		require.Equal(t, []string{""}, signatures(rec))
	}
	rec := x402Server(t, paid)
	resp := testClient(rec).TopUp(context.Background(), 25, "top-4", nil)
	require.Equal(t, client.CodeInvalidRequest, resp.Error.Code)
	require.Equal(t, "pay", resp.Error.Param)
	require.Empty(t, signatures(rec))
}

// TestTopUpReplayedAnswerIsNotPaid: an answer without 402 (a replayed success) is returned as is.
func TestTopUpReplayedAnswerIsNotPaid(t *testing.T) {
	t.Parallel()
	rec := x402Server(t, paid)
	p := &payer{sig: "c2lnbmVk"}
	resp := testClient(rec).TopUp(context.Background(), 25, "top-5", p.pay)
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Zero(t, p.calls.Load())
	require.Equal(t, []string{""}, signatures(rec))
}

// TestTopUpSettlementRetriesStopWithTheContext: a settlement that stays pending is retried with the same
// payment until ctx ends; the last 503 is returned.
func TestTopUpSettlementRetriesStopWithTheContext(t *testing.T) {
	t.Parallel()
	rec := x402Server(t, needPayment("UkVRVUlSRUQ=", "payment_missing"), settling)
	p := &payer{sig: "c2lnbmVk"}
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	start := time.Now()
	resp := testClient(rec).TopUp(ctx, 25, "top-6", p.pay)
	require.Less(t, time.Since(start), 5*time.Second)
	require.False(t, resp.OK)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, client.CodeUnavailable, resp.Error.Code)
	require.EqualValues(t, 1, p.calls.Load())
	sigs := signatures(rec)
	require.GreaterOrEqual(t, len(sigs), 3, "retried after 1 s and 2 s: %v", sigs)
	for _, s := range sigs[1:] {
		require.Equal(t, "c2lnbmVk", s)
	}
	requireSameRequest(t, rec)
}
