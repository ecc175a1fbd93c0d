package x402

import (
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// TestPayIsVerified: a payment made by Pay passes Verify and recovers the payer; one signed under another
// domain name does not.
func TestPayIsVerified(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	want := cfg.Requirements(topUp)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Pay(key, want, &ResourceInfo{URL: "http://svc.test/v1/credits/x402/top-up"}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Verify(cfg, want, p, testNow)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if a.From != crypto.PubkeyToAddress(key.PublicKey) {
		t.Fatalf("recovered %s", a.From)
	}
	wrong := want
	wrong.Extra = map[string]any{"name": "USDC", "version": "2"}
	p, err = Pay(key, wrong, nil, testNow)
	if err != nil {
		t.Fatal(err)
	}
	p.Accepted = &want
	if _, err := Verify(cfg, want, p, testNow); err == nil {
		t.Fatal("a signature under the domain name USDC was accepted")
	} else if ve, ok := AsVerifyError(err); !ok || ve.Reason != ReasonInvalidSignature {
		t.Fatalf("got %v, want %s", err, ReasonInvalidSignature)
	}
}
