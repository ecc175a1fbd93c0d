package api_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm/usdc"
	"github.com/svcplatform/svc/internal/testnode"
	"github.com/svcplatform/svc/internal/x402"
)

// interopNodePackages are the reference x402 client packages the interop test pays with, pinned to the
// versions internal/x402/PROTOCOL.md was written against.
var interopNodePackages = []string{"@x402/fetch@2.27.0", "@x402/evm@2.27.0", "@x402/core@2.27.0", "viem@2.57.20"}

// interopHTTP is one round trip recorded by testdata/x402_topup.mjs.
type interopHTTP struct {
	Request struct {
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	} `json:"request"`
	Response *struct {
		Status          int               `json:"status"`
		Headers         map[string]string `json:"headers"`
		Body            string            `json:"body"`
		PaymentRequired json.RawMessage   `json:"paymentRequired,omitempty"`
		PaymentResponse json.RawMessage   `json:"paymentResponse,omitempty"`
	} `json:"response"`
}

// interopResult is the output of testdata/x402_topup.mjs.
type interopResult struct {
	Payer           string               `json:"payer"`
	Status          int                  `json:"status"`
	Headers         map[string]string    `json:"headers"`
	Body            map[string]any       `json:"body"`
	PaymentResponse *x402.SettleResponse `json:"paymentResponse"`
	Error           string               `json:"error"`
	Exchanges       []interopHTTP        `json:"exchanges"`
}

// dump renders every recorded round trip, for failure messages that show what the reference client
// sent and what svc answered.
func (r interopResult) dump() string {
	raw, err := json.MarshalIndent(r.Exchanges, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(raw)
}

// TestX402InteropFetchPaysTopUp proves that an unmodified reference x402 client (@x402/fetch's
// wrapFetchWithPayment with an @x402/evm exact-scheme x402Client and a viem account, configured only
// through public API: spend controls that allow the dev USDC up to the top-up's price) can buy credits
// from a running svc: its first POST is answered 402 + Payment-Required, it signs an EIP-3009
// authorization and retries the same request (same Idempotency-Key) with Payment-Signature, and svc
// answers 200 with 2,500 credits and a Payment-Response the package's own decoder reads as a success
// naming the settlement transaction. On the dev chain that transaction succeeded and moved exactly
// 25 USDC from the payer to the treasury (balances and the Transfer log agree).
//
// The legacy v1 path (X-PAYMENT) is not exercised: @x402/fetch 2.27.0 picks the protocol version from
// the server's 402 (v2 whenever a Payment-Required header is present, as svc always sends), and its v1
// network table has no entry for chain 1337, so the packages cannot pay svc's dev chain with v1.
func TestX402InteropFetchPaysTopUp(t *testing.T) {
	t.Parallel()
	testnode.Require(t, "this test pays svc with the reference x402 JavaScript client")
	// The paying script sits next to the packages: ESM resolves packages from the script's directory.
	dir := t.TempDir()
	require.NoError(t, testnode.CopyFile(filepath.Join(dir, "x402_topup.mjs"), filepath.Join("testdata", "x402_topup.mjs")))
	// npm install is most of the test's time: run it while the platform starts. It stops with the test
	// (t.Context), and the test waits for it before its temporary directory is removed.
	installed, done := make(chan interopInstall, 1), make(chan struct{})
	go func() {
		defer close(done)
		took, err := testnode.Install(t.Context(), dir, interopNodePackages...)
		installed <- interopInstall{took: took, err: err}
	}()
	t.Cleanup(func() { <-done })

	env := apptest.NewWith(t, apptest.Options{Chain: true})
	key := env.FirstKey(t)
	p := newPayer(t, env, 30)
	const amountUSD, price = 25, 25_000_000
	ec, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	defer ec.Close()
	// The faucet answers once its mint has a receipt; the chain's "latest" head can trail that receipt
	// for a moment, so wait until the funding is visible before taking the starting balances.
	payerBefore := big.NewInt(30_000_000)
	require.Eventually(t, func() bool {
		b, err := usdcBalanceAt(ec, p.addr)
		return err == nil && b.Cmp(payerBefore) == 0
	}, 10*time.Second, 20*time.Millisecond, "the faucet funded the payer with 30 USDC")
	treasuryBefore, err := usdcBalanceAt(ec, devchain.PayTo)
	require.NoError(t, err)

	inst := <-installed
	require.NoError(t, inst.err)
	t.Logf("npm install %s: %s", strings.Join(interopNodePackages, " "), inst.took.Round(time.Millisecond))

	idem := "x402-interop-" + randomHex(t, 8)
	started := time.Now()
	res := runInteropTopUp(t, dir,
		"SVC_URL="+env.URL,
		"SVC_KEY="+key,
		"PAYER_KEY="+hexutil.Encode(crypto.FromECDSA(p.key)),
		"USDC_ADDRESS="+devchain.USDCAddress.Hex(),
		"NETWORK="+devchain.Network,
		"AMOUNT_USD="+strconv.Itoa(amountUSD),
		"MAX_PAYMENT_ATOMIC="+strconv.Itoa(price),
		"IDEMPOTENCY_KEY="+idem,
	)
	t.Logf("node x402_topup.mjs paid in %s", time.Since(started).Round(time.Millisecond))

	// The reference client must have completed the exchange it was built for.
	if res.Error != "" {
		t.Fatalf("@x402/fetch could not pay svc: %s\nHTTP exchanges (what the client sent, what svc answered):\n%s", res.Error, res.dump())
	}
	if res.Status != http.StatusOK {
		t.Fatalf("@x402/fetch paid but svc answered %d (want 200): %v\nHTTP exchanges:\n%s", res.Status, res.Body, res.dump())
	}
	require.Equal(t, p.addr.Hex(), res.Payer, "viem derived the payer from the Go-generated key")
	require.Len(t, res.Exchanges, 2, "one unpaid request and one paid retry:\n%s", res.dump())
	unpaid, paid := res.Exchanges[0], res.Exchanges[1]
	require.Equal(t, http.StatusPaymentRequired, unpaid.Response.Status, res.dump())
	require.NotEmpty(t, unpaid.Response.Headers["payment-required"], res.dump())
	require.Empty(t, unpaid.Request.Headers["payment-signature"], res.dump())
	require.NotEmpty(t, paid.Request.Headers["payment-signature"], "the retry carries the v2 payment:\n%s", res.dump())
	require.Empty(t, paid.Request.Headers["x-payment"], "v2 server, v2 payment")
	for _, ex := range res.Exchanges {
		require.Equal(t, http.MethodPost, ex.Request.Method)
		require.Equal(t, idem, ex.Request.Headers["idempotency-key"], "the retry is a clone of the original request")
		require.JSONEq(t, `{"amountUsd":25}`, ex.Request.Body)
	}
	payment, err := x402.DecodePaymentHeader(paid.Request.Headers["payment-signature"], false)
	require.NoError(t, err)
	require.Equal(t, 2, payment.X402Version)
	require.NotNil(t, payment.Accepted)
	require.Equal(t, devchain.Network, payment.Accepted.Network)

	// The answer: credits, receipt, and the settlement in the package's own decoding.
	body := res.Body
	require.Equal(t, true, body["ok"])
	require.EqualValues(t, amountUSD, body["creditedUsd"])
	require.EqualValues(t, 2500, body["creditedCredits"])
	require.EqualValues(t, 2500, body["balance"].(map[string]any)["credits"])
	require.Equal(t, devchain.Network, body["network"])
	require.Equal(t, p.addr.Hex(), common.HexToAddress(body["payer"].(string)).Hex())
	require.NotEmpty(t, body["receiptId"])
	require.NotEmpty(t, body["topUpId"])
	require.Equal(t, body["receiptId"], res.Headers["x-svc-paid-agent-receipt"])
	txHex, _ := body["transaction"].(string)
	require.Regexp(t, `^0x[0-9a-fA-F]{64}$`, txHex)

	settled := res.PaymentResponse
	require.NotNil(t, settled, "decodePaymentResponseHeader found no PAYMENT-RESPONSE; headers: %v", res.Headers)
	require.True(t, settled.Success, "Payment-Response: %+v", settled)
	require.Equal(t, txHex, settled.Transaction, "Payment-Response and body name one transaction")
	require.Equal(t, devchain.Network, settled.Network)
	require.Equal(t, p.addr.Hex(), common.HexToAddress(settled.Payer).Hex())

	require.EqualValues(t, 2500, balanceCredits(t, env, key))

	// On chain: the settlement succeeded, and exactly the price moved payer → treasury.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	receipt, err := ec.TransactionReceipt(ctx, common.HexToHash(txHex))
	require.NoError(t, err, "receipt of %s", txHex)
	require.Equal(t, types.ReceiptStatusSuccessful, receipt.Status)
	waitForHead(t, ec, receipt.BlockNumber.Uint64())
	payerAfter, err := usdcBalanceAt(ec, p.addr)
	require.NoError(t, err)
	treasuryAfter, err := usdcBalanceAt(ec, devchain.PayTo)
	require.NoError(t, err)
	require.Equal(t, new(big.Int).Sub(payerBefore, big.NewInt(price)), payerAfter, "the payer paid exactly 25 USDC")
	require.Equal(t, new(big.Int).Add(treasuryBefore, big.NewInt(price)), treasuryAfter, "the treasury got exactly 25 USDC")
	binding := usdc.NewUSDC()
	var transfers []*usdc.USDCTransfer
	for _, l := range receipt.Logs {
		if l.Address != devchain.USDCAddress {
			continue
		}
		if tr, err := binding.UnpackTransferEvent(l); err == nil {
			transfers = append(transfers, tr)
		}
	}
	require.Len(t, transfers, 1, "one USDC Transfer in the settlement")
	require.Equal(t, p.addr, transfers[0].From)
	require.Equal(t, devchain.PayTo, transfers[0].To)
	require.Equal(t, big.NewInt(price), transfers[0].Value)
}

// waitForHead waits until the chain's latest block is at least block, so reads at "latest" see it (a
// receipt can be readable a moment before its block becomes the head).
func waitForHead(t *testing.T, ec *ethclient.Client, block uint64) {
	t.Helper()
	require.Eventually(t, func() bool {
		head, err := ec.BlockNumber(context.Background())
		return err == nil && head >= block
	}, 10*time.Second, 20*time.Millisecond, "the chain's head reaches block %d", block)
}

// usdcBalanceAt reads who's dev USDC balance (atomic units) at the chain's latest block. It returns
// errors rather than failing the test, so it can poll.
func usdcBalanceAt(ec *ethclient.Client, who common.Address) (*big.Int, error) {
	token := devchain.USDCAddress
	binding := usdc.NewUSDC()
	out, err := ec.CallContract(context.Background(), ethereum.CallMsg{To: &token, Data: binding.PackBalanceOf(who)}, nil)
	if err != nil {
		return nil, err
	}
	return binding.UnpackBalanceOf(out)
}

// interopInstall is the outcome of the test's npm install.
type interopInstall struct {
	took time.Duration
	err  error
}

// runInteropTopUp runs testdata/x402_topup.mjs (copied into dir) with extra environment and parses its
// one line of output.
func runInteropTopUp(t *testing.T, dir string, env ...string) interopResult {
	t.Helper()
	stdout := testnode.Run(t, dir, "x402_topup.mjs", env...)
	var res interopResult
	if err := json.Unmarshal(stdout, &res); err != nil {
		t.Fatalf("x402_topup.mjs output %q: %v", stdout, err)
	}
	return res
}

// randomHex is n random bytes in hex.
func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}
