package x402

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// fakeFacilitator answers each path with a fixed status and body and keeps
// the last request body it saw.
type fakeFacilitator struct {
	status int
	body   string
	delay  time.Duration
	seen   map[string]any
	path   string
}

func (f *fakeFacilitator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.path = r.Method + " " + r.URL.Path
	raw, _ := io.ReadAll(r.Body)
	f.seen = nil
	_ = json.Unmarshal(raw, &f.seen)
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = io.WriteString(w, f.body)
}

func newFacilitator(t *testing.T, status int, body string) (*fakeFacilitator, HTTPFacilitator) {
	t.Helper()
	fake := &fakeFacilitator{status: status, body: body}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	return fake, HTTPFacilitator{BaseURL: srv.URL + "/facilitator/", Client: &http.Client{Timeout: 2 * time.Second}}
}

func validPayment(t *testing.T) (PaymentPayload, PaymentRequirements) {
	t.Helper()
	cfg := testConfig()
	f := newFixture(t, cfg)
	p, err := DecodePaymentHeader(f.header(t), false)
	if err != nil {
		t.Fatal(err)
	}
	return p, cfg.Requirements(topUp)
}

func TestFacilitatorVerifyValid(t *testing.T) {
	fake, fac := newFacilitator(t, 200, `{"isValid":true,"payer":"0xabc"}`)
	p, r := validPayment(t)
	res, err := fac.Verify(context.Background(), p, r)
	if err != nil || !res.IsValid || res.Payer != "0xabc" {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
	if fake.path != "POST /facilitator/verify" {
		t.Fatalf("path = %s", fake.path)
	}
	pp, _ := fake.seen["paymentPayload"].(map[string]any)
	pr, _ := fake.seen["paymentRequirements"].(map[string]any)
	if fake.seen["x402Version"] != float64(2) || pp["accepted"] == nil || pp["payload"] == nil || pr["amount"] != "25000000" {
		t.Fatalf("request body = %v", fake.seen)
	}
}

func TestFacilitatorVerifyRefused(t *testing.T) {
	for _, status := range []int{200, 400} {
		_, fac := newFacilitator(t, status, `{"isValid":false,"invalidReason":"invalid_exact_evm_insufficient_balance","payer":"0xabc"}`)
		p, r := validPayment(t)
		res, err := fac.Verify(context.Background(), p, r)
		wantFacilitatorErr(t, err, ErrRefused, "invalid_exact_evm_insufficient_balance")
		if res.IsValid || res.InvalidReason != "invalid_exact_evm_insufficient_balance" {
			t.Fatalf("result = %+v", res)
		}
	}
}

func TestFacilitatorSettleSuccess(t *testing.T) {
	fake, fac := newFacilitator(t, 200, `{"success":true,"transaction":"0x01","network":"eip155:1337","payer":"0xabc"}`)
	p, r := validPayment(t)
	res, err := fac.Settle(context.Background(), p, r)
	if err != nil || !res.Success || res.Transaction != "0x01" || res.Network != "eip155:1337" {
		t.Fatalf("Settle = %+v, %v", res, err)
	}
	if fake.path != "POST /facilitator/settle" {
		t.Fatalf("path = %s", fake.path)
	}
}

func TestFacilitatorSettleOutcomes(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		class  error
		reason string
	}{
		{"refused", 200, `{"success":false,"errorReason":"invalid_exact_evm_nonce_already_used","transaction":"","network":"eip155:1337"}`, ErrRefused, "invalid_exact_evm_nonce_already_used"},
		{"refused 400", 400, `{"success":false,"errorReason":"invalid_payload","transaction":"","network":"eip155:1337"}`, ErrRefused, "invalid_payload"},
		{"refused without body", 403, `forbidden`, ErrRefused, "http_403"},
		{"pending", 200, `{"success":false,"errorReason":"settlement_pending","transaction":"0x02","network":"eip155:1337"}`, ErrAmbiguous, "settlement_pending"},
		{"failed with transaction", 200, `{"success":false,"errorReason":"invalid_exact_evm_transaction_failed","transaction":"0x03","network":"eip155:1337"}`, ErrAmbiguous, "invalid_exact_evm_transaction_failed"},
		{"success without transaction", 200, `{"success":true,"transaction":"","network":"eip155:1337"}`, ErrAmbiguous, "unspecified"},
		{"500", 500, `{"error":"boom"}`, ErrAmbiguous, "http_500"},
		{"500 with settle body", 502, `{"success":false,"errorReason":"unexpected_settle_error","transaction":"","network":"eip155:1337"}`, ErrAmbiguous, "unexpected_settle_error"},
		{"429", 429, `slow down`, ErrAmbiguous, "http_429"},
		{"200 garbage", 200, `<html>`, ErrAmbiguous, "http_200"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, fac := newFacilitator(t, tc.status, tc.body)
			p, r := validPayment(t)
			_, err := fac.Settle(context.Background(), p, r)
			wantFacilitatorErr(t, err, tc.class, tc.reason)
		})
	}
}

func TestFacilitatorTransportFailuresAreAmbiguous(t *testing.T) {
	fake, fac := newFacilitator(t, 200, `{"success":true,"transaction":"0x01","network":"eip155:1337"}`)
	fake.delay = time.Second
	fac.Client = &http.Client{Timeout: 100 * time.Millisecond}
	p, r := validPayment(t)
	_, err := fac.Settle(context.Background(), p, r)
	wantFacilitatorErr(t, err, ErrAmbiguous, "")

	fac.Client = nil
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = fac.Verify(ctx, p, r)
	wantFacilitatorErr(t, err, ErrAmbiguous, "")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v should wrap context.DeadlineExceeded", err)
	}

	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	_, err = HTTPFacilitator{BaseURL: srv.URL}.Settle(context.Background(), p, r)
	wantFacilitatorErr(t, err, ErrAmbiguous, "")
}

func TestFacilitatorVerify500IsAmbiguous(t *testing.T) {
	_, fac := newFacilitator(t, 503, `unavailable`)
	p, r := validPayment(t)
	_, err := fac.Verify(context.Background(), p, r)
	wantFacilitatorErr(t, err, ErrAmbiguous, "http_503")
}

func TestFacilitatorV1Body(t *testing.T) {
	cfg := testConfig()
	cfg.Network = "eip155:8453"
	cfg.ChainID.SetInt64(8453)
	f := newFixture(t, cfg)
	f.version, f.v1Name = LegacyVersion, "base"
	p, err := DecodePaymentHeader(f.header(t), true)
	if err != nil {
		t.Fatal(err)
	}
	fake, fac := newFacilitator(t, 200, `{"isValid":true}`)
	if _, err := fac.Verify(context.Background(), p, cfg.Requirements(topUp)); err == nil {
		t.Fatal("a v1 payload without Resource must be refused locally")
	}
	p.Resource = &ResourceInfo{URL: "https://svc.test/v1/credits/x402/top-up"}
	if _, err := fac.Verify(context.Background(), p, cfg.Requirements(topUp)); err != nil {
		t.Fatalf("Verify v1: %v", err)
	}
	pp, _ := fake.seen["paymentPayload"].(map[string]any)
	pr, _ := fake.seen["paymentRequirements"].(map[string]any)
	if fake.seen["x402Version"] != float64(1) || pp["network"] != "base" || pp["scheme"] != "exact" ||
		pr["maxAmountRequired"] != "25000000" || pr["network"] != "base" || pr["resource"] == "" {
		t.Fatalf("v1 request body = %v", fake.seen)
	}
}

func TestFacilitatorSupported(t *testing.T) {
	fake, fac := newFacilitator(t, 200, `{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:1337"}],"extensions":[],"signers":{"eip155:*":["0xabc"]}}`)
	res, err := fac.Supported(context.Background())
	if err != nil || len(res.Kinds) != 1 || res.Kinds[0].Network != "eip155:1337" || res.Signers["eip155:*"][0] != "0xabc" {
		t.Fatalf("Supported = %+v, %v", res, err)
	}
	if fake.path != "GET /facilitator/supported" {
		t.Fatalf("path = %s", fake.path)
	}
}

func wantFacilitatorErr(t *testing.T, err error, class error, reason string) {
	t.Helper()
	var fe *FacilitatorError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want *FacilitatorError", err)
	}
	if !errors.Is(err, class) {
		t.Fatalf("err = %v, want class %v", err, class)
	}
	other := ErrRefused
	if class == ErrRefused {
		other = ErrAmbiguous
	}
	if errors.Is(err, other) {
		t.Fatalf("err = %v is both refused and ambiguous", err)
	}
	if reason != "" && fe.Reason != reason {
		t.Fatalf("reason = %q, want %q (%v)", fe.Reason, reason, err)
	}
}
