package x402

import (
	"encoding/json"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/internal/testnode"
)

// Reference client packages the cross-implementation test signs with
// (the versions PROTOCOL.md was researched against).
var x402NodePackages = []string{"@x402/core@2.27.0", "@x402/evm@2.27.0", "viem@2.57.20"}

const x402TopUpURL = "https://svc.test/v1/credits/x402/top-up"

// nodeSigned is the output of testdata/x402evm_sign.mjs.
type nodeSigned struct {
	Address string            `json:"address"`
	Headers map[string]string `json:"headers"`
}

// TestSignedByX402Evm checks that payments built by the reference client
// packages (the code path @x402/fetch uses) decode and verify here.
func TestSignedByX402Evm(t *testing.T) {
	dir := installX402Packages(t)
	t.Run("v2 Payment-Signature on eip155:1337", func(t *testing.T) {
		cfg := testConfig()
		want := cfg.Requirements(topUp)
		header, err := EncodeHeader(NewPaymentRequired(x402TopUpURL, "25 USD of svc credits", want))
		if err != nil {
			t.Fatal(err)
		}
		out := runSigner(t, dir, "X402_PAYMENT_REQUIRED="+header)
		p, err := DecodePaymentHeader(out.Headers["PAYMENT-SIGNATURE"], false)
		if err != nil {
			t.Fatalf("decode the packages' Payment-Signature: %v\nheaders: %v", err, out.Headers)
		}
		a := verifyNodePayment(t, cfg, want, p, out)
		if p.Resource == nil || p.Resource.URL != x402TopUpURL || p.Accepted.Amount != want.Amount {
			t.Fatalf("payload does not echo the offer: resource %+v accepted %+v", p.Resource, p.Accepted)
		}
		t.Logf("@x402/evm v2 signed validAfter=%v validBefore=%v (now %d)", a.ValidAfter, a.ValidBefore, time.Now().Unix())
	})
	t.Run("v1 X-PAYMENT on base-sepolia", func(t *testing.T) {
		cfg := testConfig()
		cfg.Network, cfg.ChainID = "eip155:84532", big.NewInt(84532)
		want := cfg.Requirements(topUp)
		v1, err := want.V1(x402TopUpURL, "25 USD of svc credits")
		if err != nil {
			t.Fatal(err)
		}
		body, err := json.Marshal(map[string]any{"x402Version": 1, "accepts": []PaymentRequirementsV1{v1}})
		if err != nil {
			t.Fatal(err)
		}
		out := runSigner(t, dir, "X402_PAYMENT_REQUIRED_BODY="+string(body))
		p, err := DecodePaymentHeader(out.Headers["X-PAYMENT"], true)
		if err != nil {
			t.Fatalf("decode the packages' X-PAYMENT: %v\nheaders: %v", err, out.Headers)
		}
		if p.X402Version != LegacyVersion || p.LegacyNetwork != "base-sepolia" {
			t.Fatalf("payload = %+v", p)
		}
		verifyNodePayment(t, cfg, want, p, out)
	})
}

func verifyNodePayment(t *testing.T, cfg Config, want PaymentRequirements, p PaymentPayload, out nodeSigned) Authorization {
	t.Helper()
	a, err := Verify(cfg, want, p, time.Now())
	if err != nil {
		t.Fatalf("Verify the packages' payment: %v", err)
	}
	if !common.IsHexAddress(out.Address) || a.From != common.HexToAddress(out.Address) {
		t.Fatalf("from = %s, node account = %s", a.From.Hex(), out.Address)
	}
	return a
}

// installX402Packages installs the pinned reference packages into a temporary
// directory with npm and copies the signing script there.
func installX402Packages(t *testing.T) string {
	t.Helper()
	testnode.Require(t, "this test signs payments with the reference x402 client packages (@x402/evm, viem)")
	dir := t.TempDir()
	if err := testnode.CopyFile(filepath.Join(dir, "sign.mjs"), filepath.Join("testdata", "x402evm_sign.mjs")); err != nil {
		t.Fatal(err)
	}
	if _, err := testnode.Install(t.Context(), dir, x402NodePackages...); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runSigner runs the signing script with extra environment and parses its output.
func runSigner(t *testing.T, dir string, env ...string) nodeSigned {
	t.Helper()
	stdout := testnode.Run(t, dir, "sign.mjs", env...)
	var out nodeSigned
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("signer output %q: %v", stdout, err)
	}
	return out
}
