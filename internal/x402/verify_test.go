package x402

import (
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// verifyFixture signs, encodes, decodes and verifies f's payment against cfg.
func verifyFixture(t *testing.T, cfg Config, f *fixture, sig []byte, edit func(*PaymentPayload)) (Authorization, error) {
	t.Helper()
	p := f.payload(sig)
	if edit != nil {
		edit(&p)
	}
	h, err := EncodeHeader(p)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	decoded, err := DecodePaymentHeader(h, f.version == LegacyVersion)
	if err != nil {
		return Authorization{}, err
	}
	return Verify(cfg, cfg.Requirements(topUp), decoded, testNow)
}

func TestVerifyAcceptsV2(t *testing.T) {
	cfg := testConfig()
	f := newFixture(t, cfg)
	a, err := verifyFixture(t, cfg, f, f.signature(t), nil)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if a.From != crypto.PubkeyToAddress(f.key.PublicKey) || a.To != testPayTo || a.Value.Cmp(topUp) != 0 {
		t.Fatalf("authorization = %+v", a)
	}
	if a.V != 27 && a.V != 28 || len(a.Signature) != 65 || a.Signature[64] != a.V {
		t.Fatalf("v = %d, signature %x", a.V, a.Signature)
	}
	if got := JoinSignature(a.V, a.R, a.S); string(got) != string(a.Signature) {
		t.Fatalf("JoinSignature(V, R, S) != Signature")
	}
	if a.Nonce[31] != 7 || a.ValidAfter.Sign() != 0 {
		t.Fatalf("nonce %x validAfter %v", a.Nonce, a.ValidAfter)
	}
}

func TestVerifyAcceptsV1Legacy(t *testing.T) {
	cfg := testConfig()
	cfg.Network, cfg.ChainID = "eip155:84532", big.NewInt(84532)
	f := newFixture(t, cfg)
	f.version, f.v1Name = LegacyVersion, "base-sepolia"
	a, err := verifyFixture(t, cfg, f, f.signature(t), nil)
	if err != nil {
		t.Fatalf("Verify v1: %v", err)
	}
	if a.From != crypto.PubkeyToAddress(f.key.PublicKey) {
		t.Fatalf("from = %s", a.From.Hex())
	}
}

func TestVerifyAcceptsRawRecoveryID(t *testing.T) {
	cfg := testConfig()
	f := newFixture(t, cfg)
	sig := f.signature(t)
	sig[64] -= 27
	a, err := verifyFixture(t, cfg, f, sig, nil)
	if err != nil {
		t.Fatalf("Verify with v 0/1: %v", err)
	}
	if a.V != sig[64]+27 {
		t.Fatalf("V = %d, want %d", a.V, sig[64]+27)
	}
}

// refusal is one way a payment is wrong.
type refusal struct {
	name   string
	edit   func(f *fixture)
	sig    func(sig []byte) []byte
	pay    func(p *PaymentPayload)
	reason string
	field  string
	msg    string
}

func refusals() []refusal {
	now := testNow.Unix()
	other := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	return []refusal{
		{name: "another amount", edit: func(f *fixture) { f.auth.Value = "24000000" },
			reason: ReasonAmountMismatch, field: "authorization.value",
			msg: "authorization.value is 24000000, the top-up needs exactly 25000000"},
		{name: "accepted another amount", edit: func(f *fixture) { f.accepted.Amount = "1" },
			reason: ReasonAmountMismatch, field: "accepted.amount"},
		{name: "another payTo", edit: func(f *fixture) { f.auth.To = other.Hex() },
			reason: ReasonRecipientMismatch, field: "authorization.to"},
		{name: "accepted another payTo", edit: func(f *fixture) { f.accepted.PayTo = other.Hex() },
			reason: ReasonRecipientMismatch, field: "accepted.payTo"},
		{name: "expired", edit: func(f *fixture) { f.auth.ValidBefore = strconv.FormatInt(now-10, 10) },
			reason: ReasonExpired, field: "authorization.validBefore"},
		{name: "expires within settlement margin", edit: func(f *fixture) { f.auth.ValidBefore = strconv.FormatInt(now+6, 10) },
			reason: ReasonExpired, field: "authorization.validBefore"},
		{name: "valid too long", edit: func(f *fixture) { f.auth.ValidBefore = strconv.FormatInt(now+3600, 10) },
			reason: ReasonValidityTooLong, field: "authorization.validBefore"},
		{name: "not yet valid", edit: func(f *fixture) { f.auth.ValidAfter = strconv.FormatInt(now+60, 10) },
			reason: ReasonNotYetValid, field: "authorization.validAfter"},
		{name: "wrong domain name", edit: func(f *fixture) { f.domain.Name = "USDC" },
			reason: ReasonInvalidSignature, field: "signature", msg: "not by authorization.from"},
		{name: "wrong domain version", edit: func(f *fixture) { f.domain.Version = "1" },
			reason: ReasonInvalidSignature, field: "signature"},
		{name: "signed for another chain id", edit: func(f *fixture) { f.domain.ChainID = big.NewInt(1) },
			reason: ReasonInvalidSignature, field: "signature"},
		{name: "signed for another token", edit: func(f *fixture) { f.domain.VerifyingContract = other },
			reason: ReasonInvalidSignature, field: "signature"},
		{name: "signed by a stranger", edit: func(f *fixture) { f.auth.From = other.Hex() },
			reason: ReasonInvalidSignature, field: "signature"},
		{name: "another network", edit: func(f *fixture) { f.accepted.Network = "eip155:1" },
			reason: ReasonNetworkMismatch, field: "network"},
		{name: "another asset", edit: func(f *fixture) { f.accepted.Asset = other.Hex() },
			reason: ReasonAssetMismatch, field: "accepted.asset"},
		{name: "another scheme", edit: func(f *fixture) { f.accepted.Scheme = "upto" },
			reason: ReasonUnsupportedScheme, field: "scheme"},
		{name: "accepted another domain", edit: func(f *fixture) { f.accepted.Extra = map[string]any{"name": "USDC", "version": "2"} },
			reason: ReasonRequirementsMismatch, field: "accepted.extra"},
		{name: "accepted another timeout", edit: func(f *fixture) { f.accepted.MaxTimeoutSeconds = 3600 },
			reason: ReasonRequirementsMismatch, field: "accepted.maxTimeoutSeconds"},
		{name: "high-s twin", sig: highS, reason: ReasonInvalidSignature, field: "signature", msg: "high-s"},
		{name: "bad v", sig: func(s []byte) []byte { s[64] = 29; return s },
			reason: ReasonInvalidSignature, field: "signature"},
		{name: "short signature", sig: func(s []byte) []byte { return s[:64] },
			reason: ReasonInvalidSignature, field: "signature", msg: "65-byte"},
		{name: "nonce 31 bytes", edit: func(f *fixture) { f.auth.Nonce = f.auth.Nonce[:64] },
			reason: ReasonInvalidPayload, field: "authorization.nonce"},
		{name: "from not an address", edit: func(f *fixture) { f.auth.From = "alice" },
			reason: ReasonInvalidPayload, field: "authorization.from"},
		{name: "value not decimal", edit: func(f *fixture) { f.auth.Value = "0x17d7840" },
			reason: ReasonInvalidPayload, field: "authorization.value"},
		{name: "permit2 payload", pay: func(p *PaymentPayload) { p.Payload.Authorization = nil },
			reason: ReasonInvalidPayload, field: "payload.authorization"},
	}
}

// highS returns the malleable twin (r, n-s, v^1) of a valid signature.
func highS(sig []byte) []byte {
	s := new(big.Int).SetBytes(sig[32:64])
	s.Sub(crypto.S256().Params().N, s)
	out := append([]byte{}, sig[:32]...)
	out = append(out, common.LeftPadBytes(s.Bytes(), 32)...)
	return append(out, 27+(28-sig[64]))
}

func TestVerifyRefusals(t *testing.T) {
	cfg := testConfig()
	for _, tc := range refusals() {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, cfg)
			if tc.edit != nil {
				tc.edit(f)
			}
			sig := f.signature(t)
			if tc.sig != nil {
				sig = tc.sig(sig)
			}
			_, err := verifyFixture(t, cfg, f, sig, tc.pay)
			ve := wantReason(t, err, tc.reason, tc.field)
			if !strings.Contains(ve.Message, tc.msg) {
				t.Fatalf("message %q does not contain %q", ve.Message, tc.msg)
			}
		})
	}
}

func TestHighSTwinRecoversSameSigner(t *testing.T) {
	f := newFixture(t, testConfig())
	sig := f.signature(t)
	twin := highS(append([]byte{}, sig...))
	twin[64] -= 27
	digest := mustDigest(t, f)
	pub, err := crypto.SigToPub(digest.Bytes(), twin)
	if err != nil || crypto.PubkeyToAddress(*pub) != crypto.PubkeyToAddress(f.key.PublicKey) {
		t.Fatalf("high-s twin should recover the payer (that is why it must be refused): %v", err)
	}
}

func mustDigest(t *testing.T, f *fixture) common.Hash {
	t.Helper()
	sig := f.signature(t)
	a, err := parseAuthorization(f.auth, "0x"+common.Bytes2Hex(sig))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return a.Digest(f.domain)
}

func TestVerifyRejectsV1OnUnlistedChain(t *testing.T) {
	cfg := testConfig()
	f := newFixture(t, cfg)
	f.version, f.v1Name = LegacyVersion, "localnet"
	_, err := verifyFixture(t, cfg, f, f.signature(t), nil)
	ve := wantReason(t, err, ReasonNetworkMismatch, "network")
	if !strings.Contains(ve.Message, `"localnet"`) {
		t.Fatalf("message %q should name the v1 network", ve.Message)
	}
}

func TestVerifyV1OnOtherChain(t *testing.T) {
	cfg := testConfig()
	cfg.Network, cfg.ChainID = "eip155:84532", big.NewInt(84532)
	f := newFixture(t, cfg)
	f.version, f.v1Name = LegacyVersion, "base"
	_, err := verifyFixture(t, cfg, f, f.signature(t), nil)
	wantReason(t, err, ReasonNetworkMismatch, "network")
}

func TestVerifyConfigErrorsAreNotRefusals(t *testing.T) {
	cfg := testConfig()
	f := newFixture(t, cfg)
	p := f.payload(f.signature(t))
	want := cfg.Requirements(topUp)
	want.PayTo = "0x0000000000000000000000000000000000000001"
	_, err := Verify(cfg, want, p, testNow)
	if err == nil {
		t.Fatal("Verify accepted requirements that cfg cannot have made")
	}
	if _, ok := AsVerifyError(err); ok {
		t.Fatalf("a server-side inconsistency must not look like a refused payment: %v", err)
	}
	bad := cfg
	bad.Name = ""
	if _, err := Verify(bad, cfg.Requirements(topUp), p, testNow); err == nil {
		t.Fatal("Verify accepted an invalid config")
	}
}
