package x402

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// FuzzPaymentHeader feeds any Payment-Signature / X-PAYMENT value to DecodePaymentHeader and what it
// accepts to Verify: neither panics, every refusal is a *VerifyError, and an accepted payment survives
// a round trip through EncodeHeader unchanged.
func FuzzPaymentHeader(f *testing.F) {
	cfg := testConfig()
	key, err := crypto.GenerateKey()
	if err != nil {
		f.Fatal(err)
	}
	good, err := Pay(key, cfg.Requirements(topUp), &ResourceInfo{URL: "https://svc.test/v1/credits/x402/top-up"}, testNow)
	if err != nil {
		f.Fatal(err)
	}
	goodHeader, err := EncodeHeader(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(goodHeader, false)
	f.Add(goodHeader, true)
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, doc := range []string{
		``, `{}`, `[1]`, `{"x402Version":2,"payload":{}}`, `{"x402Version":1,"scheme":"exact","network":"base","payload":{}}`,
		`{"x402Version":2,"accepted":{"scheme":"exact","network":"eip155:1337"},"payload":{"signature":"0x00","authorization":{"value":"1","nonce":"0x"}}}`,
		`{"x402Version":2,"accepted":{"scheme":"exact","network":"eip155:99999999999999999999"},"payload":{"signature":"0x","authorization":{}}}`,
		`{"x402Version":1,"scheme":"exact","network":"base-sepolia","payload":{"signature":"0x` + "ff" + `","authorization":{"from":"0x1","validBefore":"-1"}}}`,
	} {
		f.Add(enc(doc), false)
		f.Add(enc(doc), true)
	}
	f.Add("not*base64!", false)
	f.Fuzz(func(t *testing.T, value string, legacy bool) {
		p, err := DecodePaymentHeader(value, legacy)
		if err != nil {
			if _, ok := AsVerifyError(err); !ok {
				t.Fatalf("refusal is not a *VerifyError: %T %v", err, err)
			}
			return
		}
		if _, err := Verify(cfg, cfg.Requirements(topUp), p, testNow); err != nil {
			if _, ok := AsVerifyError(err); !ok {
				t.Fatalf("Verify refusal is not a *VerifyError: %T %v", err, err)
			}
		}
		again, err := EncodeHeader(p)
		if err != nil {
			t.Fatalf("accepted payment does not encode: %v", err)
		}
		p2, err := DecodePaymentHeader(again, legacy)
		if err != nil {
			t.Fatalf("accepted payment refused after a round trip: %v", err)
		}
		a, _ := json.Marshal(p)
		b, _ := json.Marshal(p2)
		if string(a) != string(b) {
			t.Fatalf("round trip changed the payment:\n%s\n%s", a, b)
		}
	})
}
