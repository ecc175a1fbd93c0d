package x402

import (
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

var (
	testAsset = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	testPayTo = common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	testNow   = time.Unix(1_800_000_000, 0)
	topUp     = big.NewInt(25_000_000)
)

// testConfig is a USDC-like token on a local chain 1337.
func testConfig() Config {
	return Config{
		Network: "eip155:1337", ChainID: big.NewInt(1337), Asset: testAsset, PayTo: testPayTo,
		Name: "USD Coin", Version: "2", MaxTimeoutSeconds: 300,
	}
}

// fixture is everything a test payer controls; sign() turns it into a payload.
type fixture struct {
	key      *ecdsa.PrivateKey
	domain   Domain // domain the payer signs under
	auth     EIP3009Authorization
	accepted PaymentRequirements
	version  int
	v1Name   string
}

// newFixture returns a payer paying the 25 USD top-up correctly under cfg at testNow.
func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatalf("generate key: %v", err)
	}
	nonce := make([]byte, 32)
	nonce[31] = 7
	return &fixture{
		key:    key,
		domain: cfg.Domain(),
		auth: EIP3009Authorization{
			From:        crypto.PubkeyToAddress(key.PublicKey).Hex(),
			To:          cfg.PayTo.Hex(),
			Value:       topUp.String(),
			ValidAfter:  "0",
			ValidBefore: strconv.FormatInt(testNow.Unix()+int64(cfg.MaxTimeoutSeconds), 10),
			Nonce:       "0x" + hex.EncodeToString(nonce),
		},
		accepted: cfg.Requirements(topUp),
		version:  Version,
	}
}

// signature signs f.auth under f.domain and returns r ‖ s ‖ v (v 27/28).
// A malformed f.auth (which Verify refuses before the signature) gets a
// signature over an unrelated digest.
func (f *fixture) signature(t *testing.T) []byte {
	t.Helper()
	digest := crypto.Keccak256Hash([]byte("malformed authorization"))
	if a, err := parseAuthorization(f.auth, "0x"+hex.EncodeToString(make([]byte, 65))); err == nil {
		digest = a.Digest(f.domain)
	}
	sig, err := crypto.Sign(digest.Bytes(), f.key)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	sig[64] += 27
	return sig
}

// payload builds the PaymentPayload carrying signature sig.
func (f *fixture) payload(sig []byte) PaymentPayload {
	auth := f.auth
	p := PaymentPayload{
		X402Version: f.version, Scheme: f.accepted.Scheme, Network: f.accepted.Network,
		Payload: ExactEVMPayload{Signature: "0x" + hex.EncodeToString(sig), Authorization: &auth},
	}
	if f.version == LegacyVersion {
		p.LegacyNetwork = f.v1Name
		return p
	}
	accepted := f.accepted
	p.Accepted = &accepted
	p.Resource = &ResourceInfo{URL: "https://svc.test/v1/credits/x402/top-up"}
	return p
}

// header signs and encodes the payment as the client would send it.
func (f *fixture) header(t *testing.T) string {
	t.Helper()
	h, err := EncodeHeader(f.payload(f.signature(t)))
	if err != nil {
		t.Fatalf("encode header: %v", err)
	}
	return h
}

// wantReason asserts err is a *VerifyError with reason and field.
func wantReason(t *testing.T, err error, reason, field string) *VerifyError {
	t.Helper()
	var ve *VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want *VerifyError %s", err, reason)
	}
	if ve.Reason != reason || (field != "" && ve.Field != field) {
		t.Fatalf("got %s/%s (%s), want %s/%s", ve.Reason, ve.Field, ve.Message, reason, field)
	}
	return ve
}
