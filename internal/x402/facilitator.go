package x402

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Facilitator outcome classes; test with errors.Is.
var (
	// ErrRefused: the facilitator answered that the payment is invalid or was
	// not settled, and nothing reached the chain. The payer may pay again.
	ErrRefused = errors.New("x402: facilitator refused the payment")
	// ErrAmbiguous: the outcome is unknown (timeout, connection error, 5xx,
	// 408/429, unreadable answer, a pending or failed transaction). For
	// Settle the transfer may have happened: reconcile from the chain (the
	// authorization's nonce, or FacilitatorError.Transaction), never ask the
	// payer to pay again.
	ErrAmbiguous = errors.New("x402: facilitator outcome unknown")
)

// SettlementPendingReason is the errorReason of a settlement whose
// transaction was broadcast but not yet confirmed.
const SettlementPendingReason = "settlement_pending"

// DefaultFacilitatorTimeout bounds one facilitator call when HTTPFacilitator.Client
// is nil (the reference client's default is 90 s; settle waits for mining).
const DefaultFacilitatorTimeout = 90 * time.Second

// maxFacilitatorBody bounds how much of a facilitator answer is read.
const maxFacilitatorBody = 1 << 20

// FacilitatorError describes a facilitator call that did not succeed. It
// matches ErrAmbiguous or ErrRefused with errors.Is.
type FacilitatorError struct {
	// Op is "verify" or "settle".
	Op string
	// StatusCode is the HTTP status, 0 when no answer arrived.
	StatusCode int
	// Reason is the facilitator's invalidReason/errorReason, or "http_<status>".
	Reason string
	// Message is the facilitator's invalidMessage/errorMessage or an excerpt.
	Message string
	// Payer and Transaction echo the facilitator's answer when it gave them.
	Payer       string
	Transaction string
	// Ambiguous is true when the outcome is unknown (see ErrAmbiguous).
	Ambiguous bool
	// Err is the underlying transport or decoding error, if any.
	Err error
}

// Error describes the failure.
func (e *FacilitatorError) Error() string {
	kind := "refused"
	if e.Ambiguous {
		kind = "outcome unknown"
	}
	msg := fmt.Sprintf("x402 facilitator %s %s", e.Op, kind)
	if e.StatusCode != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", e.StatusCode)
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *FacilitatorError) Unwrap() error { return e.Err }

// Is reports whether target is ErrAmbiguous (for ambiguous outcomes) or ErrRefused.
func (e *FacilitatorError) Is(target error) bool {
	return (e.Ambiguous && target == ErrAmbiguous) || (!e.Ambiguous && target == ErrRefused)
}

// HTTPFacilitator is a client for a remote x402 facilitator:
// POST {BaseURL}/verify, POST {BaseURL}/settle, GET {BaseURL}/supported.
type HTTPFacilitator struct {
	// BaseURL is the facilitator root, e.g. "https://x402.org/facilitator".
	BaseURL string
	// Client sends the requests; nil means a client with DefaultFacilitatorTimeout.
	// Add facilitator authentication through its Transport.
	Client *http.Client
}

// Verify asks the facilitator whether p pays r. A v1 payload needs
// p.Resource.URL set (v1 requirements carry the resource URL).
func (f HTTPFacilitator) Verify(ctx context.Context, p PaymentPayload, r PaymentRequirements) (VerifyResponse, error) {
	status, body, err := f.post(ctx, "verify", p, r)
	if err != nil {
		return VerifyResponse{}, err
	}
	return classifyVerify(status, body)
}

// Settle asks the facilitator to execute payment p for r on chain.
func (f HTTPFacilitator) Settle(ctx context.Context, p PaymentPayload, r PaymentRequirements) (SettleResponse, error) {
	status, body, err := f.post(ctx, "settle", p, r)
	if err != nil {
		return SettleResponse{}, err
	}
	return classifySettle(status, body)
}

// Supported returns the facilitator's supported kinds, extensions and signers.
func (f HTTPFacilitator) Supported(ctx context.Context) (SupportedResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url("supported"), nil)
	if err != nil {
		return SupportedResponse{}, fmt.Errorf("x402 facilitator supported: %w", err)
	}
	status, body, err := f.do(req)
	if err != nil {
		return SupportedResponse{}, fmt.Errorf("x402 facilitator supported: %w", err)
	}
	if status/100 != 2 {
		return SupportedResponse{}, fmt.Errorf("x402 facilitator supported: HTTP %d: %s", status, excerpt(body))
	}
	var out SupportedResponse
	if err := json.Unmarshal(body, &out); err != nil {
		return SupportedResponse{}, fmt.Errorf("x402 facilitator supported: decode: %w", err)
	}
	return out, nil
}

// post sends {x402Version, paymentPayload, paymentRequirements} to op.
// Transport failures come back as an ambiguous *FacilitatorError.
func (f HTTPFacilitator) post(ctx context.Context, op string, p PaymentPayload, r PaymentRequirements) (int, []byte, error) {
	payload, err := facilitatorBody(p, r)
	if err != nil {
		return 0, nil, fmt.Errorf("x402 facilitator %s: %w", op, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url(op), bytes.NewReader(payload))
	if err != nil {
		return 0, nil, fmt.Errorf("x402 facilitator %s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	status, body, err := f.do(req)
	if err != nil {
		return 0, nil, &FacilitatorError{Op: op, StatusCode: status, Ambiguous: true, Err: err}
	}
	return status, body, nil
}

// facilitatorBody marshals the request body, in v1 shape for v1 payloads.
func facilitatorBody(p PaymentPayload, r PaymentRequirements) ([]byte, error) {
	req := FacilitatorRequest{X402Version: p.X402Version, PaymentPayload: p, PaymentRequirements: r}
	if p.X402Version == LegacyVersion {
		if p.Resource == nil || p.Resource.URL == "" {
			return nil, errors.New("a v1 payload needs Resource.URL set to build v1 requirements")
		}
		v1, err := r.V1(p.Resource.URL, p.Resource.Description)
		if err != nil {
			return nil, fmt.Errorf("v1 requirements: %w", err)
		}
		req.PaymentRequirements = v1
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("marshal request: %w", err)
	}
	return b, nil
}

func (f HTTPFacilitator) url(op string) string {
	return strings.TrimRight(f.BaseURL, "/") + "/" + op
}

// do sends req and reads at most maxFacilitatorBody bytes of the answer.
func (f HTTPFacilitator) do(req *http.Request) (int, []byte, error) {
	client := f.Client
	if client == nil {
		client = &http.Client{Timeout: DefaultFacilitatorTimeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("send: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFacilitatorBody))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("read answer: %w", err)
	}
	return resp.StatusCode, body, nil
}

// unsureStatus reports statuses after which the request may or may not have
// been acted upon, or may be retried as is.
func unsureStatus(status int) bool {
	return status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests
}

// classifyVerify maps a /verify answer to a result or a *FacilitatorError.
func classifyVerify(status int, body []byte) (VerifyResponse, error) {
	var w struct {
		VerifyResponse
		IsValid *bool `json:"isValid"`
	}
	parseErr := json.Unmarshal(body, &w)
	parsed := parseErr == nil && w.IsValid != nil
	if parsed {
		w.VerifyResponse.IsValid = *w.IsValid
	}
	fe := &FacilitatorError{Op: "verify", StatusCode: status, Reason: w.InvalidReason, Message: w.InvalidMessage, Payer: w.Payer}
	switch {
	case unsureStatus(status) || (status/100 == 2 && !parsed):
		fe.Ambiguous = true
		fillUnparsed(fe, status, body, parsed)
		return VerifyResponse{}, fe
	case status/100 == 2 && w.VerifyResponse.IsValid:
		return w.VerifyResponse, nil
	}
	fillUnparsed(fe, status, body, parsed)
	return w.VerifyResponse, fe
}

// classifySettle maps a /settle answer to a result or a *FacilitatorError.
func classifySettle(status int, body []byte) (SettleResponse, error) {
	var w struct {
		SettleResponse
		Success *bool `json:"success"`
	}
	parseErr := json.Unmarshal(body, &w)
	parsed := parseErr == nil && w.Success != nil
	if parsed {
		w.SettleResponse.Success = *w.Success
	}
	r := w.SettleResponse
	fe := &FacilitatorError{Op: "settle", StatusCode: status, Reason: r.ErrorReason, Message: r.ErrorMessage,
		Payer: r.Payer, Transaction: r.Transaction}
	switch {
	case status/100 == 2 && parsed && r.Success && r.Transaction != "":
		return r, nil
	case unsureStatus(status) || (status/100 == 2 && !parsed) || r.Success || r.Transaction != "" ||
		r.ErrorReason == SettlementPendingReason:
		// No answer we can trust, a success without a transaction, or a
		// transaction that exists but is pending or failed: check the chain.
		fe.Ambiguous = true
	}
	fillUnparsed(fe, status, body, parsed)
	return r, fe
}

// fillUnparsed gives an answer without a facilitator reason a stand-in
// reason ("http_<status>", or "unspecified" for a parsed answer) and an
// unparsed one a body excerpt.
func fillUnparsed(fe *FacilitatorError, status int, body []byte, parsed bool) {
	switch {
	case fe.Reason != "":
	case parsed:
		fe.Reason = "unspecified"
	default:
		fe.Reason = fmt.Sprintf("http_%d", status)
	}
	if !parsed && fe.Message == "" {
		fe.Message = excerpt(body)
	}
}

// excerpt returns at most 200 characters of a body, whitespace collapsed.
func excerpt(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if s == "" {
		return "<empty answer>"
	}
	if len(s) > 200 {
		return s[:197] + "..."
	}
	return s
}
