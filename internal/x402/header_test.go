package x402

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

func TestEncodeHeaderIsStandardPaddedBase64(t *testing.T) {
	cfg := testConfig()
	pr := NewPaymentRequired("https://svc.test/v1/credits/x402/top-up?a=1&b=<2>", "25 USD of credits", cfg.Requirements(topUp))
	h, err := EncodeHeader(pr)
	if err != nil {
		t.Fatalf("EncodeHeader: %v", err)
	}
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		t.Fatalf("not standard base64: %v", err)
	}
	want := `{"x402Version":2,"resource":{"url":"https://svc.test/v1/credits/x402/top-up?a=1&b=<2>",` +
		`"description":"25 USD of credits","mimeType":"application/json"},"accepts":[{"scheme":"exact",` +
		`"network":"eip155:1337","amount":"25000000","asset":"0x5FbDB2315678afecb367f032d93F642f64180aa3",` +
		`"payTo":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","maxTimeoutSeconds":300,` +
		`"extra":{"name":"USD Coin","version":"2"}}]}`
	if string(raw) != want {
		t.Fatalf("PaymentRequired JSON\n got %s\nwant %s", raw, want)
	}
}

func TestDecodePaymentHeaderRefusals(t *testing.T) {
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name, value string
		legacy      bool
		reason      string
	}{
		{"empty", "", false, ReasonInvalidPayload},
		{"bad base64", "not*base64!", false, ReasonInvalidPayload},
		{"bad json", enc(`{"x402Version":2,`), false, ReasonInvalidPayload},
		{"json array", enc(`[1,2]`), false, ReasonInvalidPayload},
		{"no version", enc(`{"payload":{}}`), false, ReasonInvalidPayload},
		{"value as number", enc(`{"x402Version":2,"accepted":{"scheme":"exact","network":"eip155:1337"},"payload":{"signature":"0x","authorization":{"value":25000000}}}`), false, ReasonInvalidPayload},
		{"payload not object", enc(`{"x402Version":2,"accepted":{"scheme":"exact","network":"eip155:1337"},"payload":"x"}`), false, ReasonInvalidPayload},
		{"v2 without accepted", enc(`{"x402Version":2,"payload":{}}`), false, ReasonInvalidPayload},
		{"version 3", enc(`{"x402Version":3,"payload":{}}`), true, ReasonUnsupportedVersion},
		{"v1 in Payment-Signature", enc(`{"x402Version":1,"scheme":"exact","network":"base","payload":{}}`), false, ReasonUnsupportedVersion},
		{"v1 unknown network", enc(`{"x402Version":1,"scheme":"exact","network":"localnet","payload":{}}`), true, ReasonNetworkMismatch},
		{"v1 without scheme", enc(`{"x402Version":1,"network":"base","payload":{}}`), true, ReasonInvalidPayload},
		{"too long", strings.Repeat("A", MaxHeaderLength+4), false, ReasonInvalidPayload},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodePaymentHeader(tc.value, tc.legacy)
			wantReason(t, err, tc.reason, "")
		})
	}
}

func TestDecodePaymentHeaderAcceptsURLSafeAndUnpadded(t *testing.T) {
	f := newFixture(t, testConfig())
	raw, err := base64.StdEncoding.DecodeString(f.header(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		p, err := DecodePaymentHeader(" "+enc.EncodeToString(raw)+" ", false)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if _, err := Verify(testConfig(), testConfig().Requirements(topUp), p, testNow); err != nil {
			t.Fatalf("verify: %v", err)
		}
	}
}

func TestDecodeNormalisesBothVersions(t *testing.T) {
	f := newFixture(t, testConfig())
	v2, err := DecodePaymentHeader(f.header(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if v2.Legacy || v2.X402Version != 2 || v2.Scheme != "exact" || v2.Network != "eip155:1337" ||
		v2.Accepted == nil || v2.Resource == nil || v2.Payload.Authorization == nil {
		t.Fatalf("v2 = %+v", v2)
	}
	v2legacy, err := DecodePaymentHeader(f.header(t), true)
	if err != nil || !v2legacy.Legacy || v2legacy.X402Version != 2 {
		t.Fatalf("v2 in X-PAYMENT: %+v, %v", v2legacy, err)
	}
	f.version, f.v1Name = LegacyVersion, "base"
	v1, err := DecodePaymentHeader(f.header(t), true)
	if err != nil {
		t.Fatal(err)
	}
	if !v1.Legacy || v1.X402Version != 1 || v1.Network != "eip155:8453" || v1.LegacyNetwork != "base" || v1.Accepted != nil {
		t.Fatalf("v1 = %+v", v1)
	}
}

func TestPaymentPayloadWireShapes(t *testing.T) {
	f := newFixture(t, testConfig())
	keys := func(p PaymentPayload) map[string]json.RawMessage {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	v2 := keys(f.payload(f.signature(t)))
	for _, k := range []string{"x402Version", "accepted", "payload", "resource"} {
		if _, ok := v2[k]; !ok {
			t.Fatalf("v2 wire lacks %q: %v", k, v2)
		}
	}
	if _, ok := v2["scheme"]; ok {
		t.Fatalf("v2 wire has a top-level scheme")
	}
	f.version, f.v1Name = LegacyVersion, ""
	p := f.payload(f.signature(t))
	p.Network = "eip155:84532"
	v1 := keys(p)
	if string(v1["network"]) != `"base-sepolia"` || string(v1["scheme"]) != `"exact"` || v1["accepted"] != nil {
		t.Fatalf("v1 wire = %v", v1)
	}
	var auth map[string]any
	if err := json.Unmarshal(v1["payload"], &auth); err != nil || auth["signature"] == nil || auth["authorization"] == nil {
		t.Fatalf("v1 payload = %s", v1["payload"])
	}
}

func TestNetworks(t *testing.T) {
	for in, want := range map[string]int64{"eip155:8453": 8453, "eip155:1337": 1337, "eip155:1": 1} {
		id, err := ParseNetwork(in)
		if err != nil || id.Cmp(big.NewInt(want)) != 0 {
			t.Fatalf("ParseNetwork(%q) = %v, %v", in, id, err)
		}
	}
	for _, in := range []string{"", "base", "eip155:", "eip155:0", "eip155:01", "eip155:-1", "eip155:1a", "solana:mainnet", "EIP155:1"} {
		if _, err := ParseNetwork(in); err == nil {
			t.Fatalf("ParseNetwork(%q) accepted", in)
		}
	}
	if n, err := LegacyNetworkCAIP2("base-sepolia"); err != nil || n != "eip155:84532" {
		t.Fatalf("base-sepolia -> %q, %v", n, err)
	}
	if n, err := LegacyNetworkName("eip155:8453"); err != nil || n != "base" {
		t.Fatalf("eip155:8453 -> %q, %v", n, err)
	}
	if _, err := LegacyNetworkName("eip155:1337"); err == nil {
		t.Fatal("eip155:1337 has no v1 name")
	}
}

func TestConfigValidate(t *testing.T) {
	if err := testConfig().Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	edits := map[string]func(*Config){
		"chain id disagrees": func(c *Config) { c.ChainID = big.NewInt(1) },
		"nil chain id":       func(c *Config) { c.ChainID = nil },
		"bad network":        func(c *Config) { c.Network = "base" },
		"zero asset":         func(c *Config) { c.Asset = [20]byte{} },
		"zero payTo":         func(c *Config) { c.PayTo = [20]byte{} },
		"no name":            func(c *Config) { c.Name = "" },
		"no version":         func(c *Config) { c.Version = "" },
		"timeout too short":  func(c *Config) { c.MaxTimeoutSeconds = 5 },
	}
	for name, edit := range edits {
		c := testConfig()
		edit(&c)
		if err := c.Validate(); err == nil {
			t.Fatalf("%s: Validate accepted", name)
		}
	}
}

func TestCentsToAtomic(t *testing.T) {
	got, err := CentsToAtomic(2500, 6)
	if err != nil || got.Cmp(topUp) != 0 {
		t.Fatalf("CentsToAtomic(2500, 6) = %v, %v", got, err)
	}
	if _, err := CentsToAtomic(0, 6); err == nil {
		t.Fatal("zero amount accepted")
	}
}

func TestSettleResponseHeader(t *testing.T) {
	r := SettlementSucceeded("eip155:1337", [32]byte{1}, testPayTo)
	h, err := r.Header()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(h)
	want := `{"success":true,"payer":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8",` +
		`"transaction":"0x0100000000000000000000000000000000000000000000000000000000000000","network":"eip155:1337"}`
	if string(raw) != want {
		t.Fatalf("got %s\nwant %s", raw, want)
	}
	failed := SettlementFailed("eip155:1337", "transaction_failed", "reverted", testPayTo)
	if failed.Success || failed.ErrorReason != "transaction_failed" || failed.Transaction != "" {
		t.Fatalf("failed = %+v", failed)
	}
}
