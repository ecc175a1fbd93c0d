package x402

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
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
	requireNode(t)
	dir := t.TempDir()
	manifest := `{"name":"x402-interop-test","private":true,"type":"module"}`
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "x402evm_sign.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sign.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact"}, x402NodePackages...)
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %v: %v\n%s", x402NodePackages, err, out)
	}
	return dir
}

// requireNode fails the test unless Node.js 20+ and npm are installed.
func requireNode(t *testing.T) {
	t.Helper()
	const hint = "this test needs Node.js 20+ and npm: install them (e.g. apt-get install nodejs npm, or from nodejs.org)"
	for _, bin := range []string{"node", "npm"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s not found: %s", bin, hint)
		}
	}
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v: %s", err, hint)
	}
	major, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 2)[0])
	if err != nil || major < 20 {
		t.Fatalf("node %s is too old: %s", strings.TrimSpace(string(out)), hint)
	}
}

// runSigner runs the signing script with extra environment and parses its output.
func runSigner(t *testing.T, dir string, env ...string) nodeSigned {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "sign.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node sign.mjs: %v\n%s", err, stderr.String())
	}
	var out nodeSigned
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("signer output %q: %v", stdout, err)
	}
	return out
}
