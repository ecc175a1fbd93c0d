package main

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/x402"
)

// newPayerKey returns a fresh private key as hex (without 0x) and its address, funded with usdc dev USDC
// when usdc > 0.
func newPayerKey(t *testing.T, env *apptest.Env, usdc float64) (string, common.Address) {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey)
	if usdc > 0 {
		r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": addr.Hex(), "usdc": usdc}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	}
	return hex.EncodeToString(crypto.FromECDSA(key)), addr
}

// requireNoKey checks that no output holds any of the private keys.
func requireNoKey(t *testing.T, r result, keys ...string) {
	t.Helper()
	for _, k := range keys {
		for _, out := range []string{r.stdout, r.stderr} {
			require.NotContains(t, strings.ToLower(out), k, "a private key was printed")
		}
	}
}

// TestCLICreditsTopUp pays for credits against the real server and its dev chain: the progress, the
// result and the balance; the same Idempotency-Key answers again without paying; --json prints the
// envelope; an unfunded payer is refused with the server's reason; the private key is never printed.
func TestCLICreditsTopUp(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	payerHex, payer := newPayerKey(t, env, 30)
	poorHex, _ := newPayerKey(t, env, 0)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1", "PAYER_KEY": "0x" + payerHex, "POOR_KEY": poorHex}
	svc := func(code int, args ...string) result {
		t.Helper()
		r := cli(t, vars, "", args...)
		require.Equal(t, code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		requireNoKey(t, r, payerHex, poorHex)
		return r
	}

	r := svc(exitOK, "credits", "top-up", "25", "--private-key-env", "PAYER_KEY")
	require.Contains(t, r.stderr, "asking for payment requirements…\n")
	require.Contains(t, r.stderr, "paying 25.00 USDC from "+payer.Hex()+" to "+devchain.PayTo.Hex()+" on eip155:1337…\n")
	require.Contains(t, r.stderr, "settling on chain…\n")
	idem := regexp.MustCompile(`Idempotency-Key: (\S+) `).FindStringSubmatch(r.stderr)
	require.NotNil(t, idem, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, "Topped up 25.00 USD\n"), r.stdout)
	require.Regexp(t, `Credited:\s+2500 credits\n`, r.stdout)
	receipt := regexp.MustCompile(`Receipt:\s+(\S+)\n`).FindStringSubmatch(r.stdout)
	require.NotNil(t, receipt, r.stdout)
	require.Regexp(t, `Transaction:\s+0x[0-9a-fA-F]{64}\n`, r.stdout)
	require.Regexp(t, `Payer:\s+`+payer.Hex()+`\n`, r.stdout)
	require.Regexp(t, `Balance:\s+2500 credits\n`, r.stdout)
	require.Regexp(t, `Available:\s+2500 credits\n`, svc(exitOK, "credits", "balance").stdout)

	// The same key answers the completed top-up again: nothing is signed or paid (5 USDC are left).
	r = svc(exitOK, "credits", "top-up", "25", "--private-key-env", "PAYER_KEY", "--idempotency-key", idem[1])
	require.Contains(t, r.stdout, "Topped up 25.00 USD [replayed answer]\n")
	require.Contains(t, r.stdout, receipt[1])
	require.NotContains(t, r.stderr, "paying")
	require.NotContains(t, r.stderr, "Idempotency-Key:", "a given key is not printed again")

	// --json, with the key written without 0x: the envelope alone on stdout.
	vars["PAYER_KEY"] = payerHex
	r = svc(exitOK, "--json", "credits", "top-up", "5", "--private-key-env", "PAYER_KEY")
	var res struct {
		OK              bool    `json:"ok"`
		CreditedCredits float64 `json:"creditedCredits"`
		ReceiptID       string  `json:"receiptId"`
		Balance         struct {
			Credits float64 `json:"credits"`
		} `json:"balance"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	require.True(t, res.OK)
	require.EqualValues(t, 500, res.CreditedCredits)
	require.EqualValues(t, 3000, res.Balance.Credits)
	require.NotEqual(t, receipt[1], res.ReceiptID)

	// A payer without the USDC: the server's reason, exit 1, nothing credited.
	r = svc(exitAPI, "credits", "top-up", "10", "--private-key-env", "POOR_KEY")
	require.Contains(t, r.stderr, "error: payment_required: ")
	require.Contains(t, r.stderr, "payment refused: insufficient_funds\n")
	require.Empty(t, r.stdout)
	require.Regexp(t, `Available:\s+3000 credits\n`, svc(exitOK, "credits", "balance").stdout)

	// A variable that is not set, or does not hold a key: a usage error naming it, never quoting it.
	r = svc(exitUsage, "credits", "top-up", "25", "--private-key-env", "NO_SUCH_KEY")
	require.Contains(t, r.stderr, "environment variable NO_SUCH_KEY is not set or is empty")
	vars["BAD_KEY"] = "0xfeedbeefzz"
	r = svc(exitUsage, "credits", "top-up", "25", "--private-key-env", "BAD_KEY")
	require.Contains(t, r.stderr, "environment variable BAD_KEY does not hold a secp256k1 private key")
	require.NotContains(t, r.stderr, "feedbeef")
}

// TestCLICreditsTopUpRefusesWrongRequirements: requirements for another amount, or without the exact
// scheme, are refused before anything is signed; only the unpaid request is sent.
func TestCLICreditsTopUpRefusesWrongRequirements(t *testing.T) {
	t.Parallel()
	keyHex := strings.Repeat("11", 32)
	offer := x402.PaymentRequirements{Scheme: x402.SchemeExact, Network: "eip155:1337", Amount: "30000000",
		Asset: devchain.USDCAddress.Hex(), PayTo: devchain.PayTo.Hex(), MaxTimeoutSeconds: 300,
		Extra: map[string]any{"name": "USD Coin", "version": "2"}}
	upto := offer
	upto.Scheme, upto.Amount = "upto", "25000000"
	for _, c := range []struct {
		name  string
		offer x402.PaymentRequirements
		want  string
	}{
		{"another amount", offer, `the server asks for "30000000" atomic units, but 25.00 USD is 25000000`},
		{"not exact", upto, `the server offers no "exact" payment (offered: "upto")`},
	} {
		var requests, paid atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			if r.Header.Get("Payment-Signature") != "" {
				paid.Add(1)
			}
			h, err := x402.EncodeHeader(x402.NewPaymentRequired("http://"+r.Host+r.URL.Path, "svc credits", c.offer))
			require.NoError(t, err)
			w.Header().Set("Payment-Required", h)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusPaymentRequired)
			_, _ = w.Write([]byte(`{"ok":false,"error":{"code":"payment_required","message":"pay","requestId":"req_1","details":{"reason":"payment_missing"}}}`))
		}))
		vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": srv.URL,
			"SVC_API_KEY": goodKey, "PAYER_KEY": keyHex}
		r := cli(t, vars, "", "credits", "top-up", "25", "--private-key-env", "PAYER_KEY")
		srv.Close()
		require.Equal(t, exitAPI, r.code, "%s: %s", c.name, r.stderr)
		require.Contains(t, r.stderr, "error: payment_not_sent: nothing was paid: "+c.want, c.name)
		require.Contains(t, r.stderr, "refusing to sign", c.name)
		require.NotContains(t, r.stderr, "paying", c.name)
		require.EqualValues(t, 1, requests.Load(), c.name)
		require.Zero(t, paid.Load(), c.name)
		requireNoKey(t, r, keyHex)
	}
}

// TestCLICreditsTopUpUsage: command-line mistakes are usage errors found before any request.
func TestCLICreditsTopUpUsage(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	env["SVC_API_KEY"], env["PAYER_KEY"] = goodKey, strings.Repeat("11", 32)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"25"}, "--private-key-env is required"},
		{[]string{"--private-key-env", "PAYER_KEY"}, "takes exactly one AMOUNT"},
		{[]string{"25", "30", "--private-key-env", "PAYER_KEY"}, "takes exactly one AMOUNT"},
		{[]string{"25.001", "--private-key-env", "PAYER_KEY"}, `AMOUNT "25.001" is not an amount`},
		{[]string{"-5", "--private-key-env", "PAYER_KEY"}, "unknown flag -5"},
		{[]string{"ten", "--private-key-env", "PAYER_KEY"}, `AMOUNT "ten" is not an amount`},
		{[]string{"25", "--private-key", "PAYER_KEY"}, "unknown flag --private-key; did you mean --private-key-env?"},
	} {
		r := cli(t, env, "", append([]string{"credits", "top-up"}, c.args...)...)
		require.Equal(t, exitUsage, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.want, c.args)
		require.Contains(t, r.stderr, `Run "svc credits top-up --help" for usage.`)
	}
	r := cli(t, env, "", "help", "credits", "top-up")
	require.Equal(t, exitOK, r.code)
	require.Contains(t, r.stdout, "Usage: svc credits top-up AMOUNT --private-key-env VAR [--idempotency-key K] [--json]")
	r = cli(t, env, "", "credits", "--help")
	require.Contains(t, r.stdout, "credits top-up")
}
