package api_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/evm/usdc"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/x402"
)

const topUpPath = "/v1/credits/x402/top-up"

// payer is a funded address on the test's dev chain.
type payer struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

func newPayer(t *testing.T, env *apptest.Env, usdc float64) payer {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	p := payer{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
	if usdc > 0 {
		r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": p.addr.Hex(), "usdc": usdc}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	}
	return p
}

// requirements asks for a top-up without paying and returns the decoded Payment-Required.
func requirements(t *testing.T, env *apptest.Env, key, idem string, usd float64) x402.PaymentRequired {
	t.Helper()
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: topUpPath, Key: key, Body: map[string]any{"amountUsd": usd},
		Headers: map[string]string{"Idempotency-Key": idem}})
	require.Equal(t, http.StatusPaymentRequired, r.Status, "%s", r.Raw)
	require.Equal(t, "payment_required", r.ErrorCode())
	raw, err := base64.StdEncoding.DecodeString(r.Header.Get("Payment-Required"))
	require.NoError(t, err)
	var pr x402.PaymentRequired
	require.NoError(t, json.Unmarshal(raw, &pr))
	return pr
}

func paymentHeader(t *testing.T, p x402.PaymentPayload) string {
	t.Helper()
	h, err := x402.EncodeHeader(p)
	require.NoError(t, err)
	return h
}

func pay(t *testing.T, env *apptest.Env, key, idem string, usd float64, header string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: topUpPath, Key: key, Body: map[string]any{"amountUsd": usd},
		Headers: map[string]string{"Idempotency-Key": idem, "Payment-Signature": header}})
}

func usdcBalance(t *testing.T, env *apptest.Env, who common.Address) *big.Int {
	t.Helper()
	ch, err := evm.Dial(context.Background(), env.Chain.RPCURL(), big.NewInt(devchain.ChainID), devchain.USDCAddress, nil)
	require.NoError(t, err)
	defer ch.Close()
	b, err := ch.BalanceOf(context.Background(), who)
	require.NoError(t, err)
	return b
}

func balanceCredits(t *testing.T, env *apptest.Env, key string) float64 {
	t.Helper()
	r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: key})
	return r.Body["balance"].(map[string]any)["credits"].(float64)
}

// TestTopUpPaysOnChainAndCreditsOnce: 402 with the x402 v2 requirements, then the paid retry settles on
// the dev chain and credits 2,500 credits once; the answer replays; USDC moved payer → treasury; the
// outbox has credits.topped_up.
func TestTopUpPaysOnChainAndCreditsOnce(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	key := env.FirstKey(t)
	p := newPayer(t, env, 30)
	treasuryBefore := usdcBalance(t, env, devchain.PayTo)

	pr := requirements(t, env, key, "top-1", 25)
	require.Equal(t, 2, pr.X402Version)
	require.Len(t, pr.Accepts, 1)
	req := pr.Accepts[0]
	require.Equal(t, "exact", req.Scheme)
	require.Equal(t, "eip155:1337", req.Network)
	require.Equal(t, "25000000", req.Amount)
	require.Equal(t, devchain.USDCAddress.Hex(), common.HexToAddress(req.Asset).Hex())
	require.Equal(t, devchain.PayTo.Hex(), common.HexToAddress(req.PayTo).Hex())
	require.Equal(t, map[string]any{"name": "USD Coin", "version": "2"}, req.Extra)
	require.Positive(t, req.MaxTimeoutSeconds)

	payment, err := x402.Pay(p.key, req, &pr.Resource, time.Now())
	require.NoError(t, err)
	header := paymentHeader(t, payment)
	r := pay(t, env, key, "top-1", 25, header)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.EqualValues(t, 25, r.Body["creditedUsd"])
	require.EqualValues(t, 2500, r.Body["creditedCredits"])
	receipt := r.Body["receiptId"].(string)
	require.Equal(t, receipt, r.Header.Get("X-Svc-Paid-Agent-Receipt"))
	require.EqualValues(t, 2500, r.Body["balance"].(map[string]any)["credits"])
	raw, err := base64.StdEncoding.DecodeString(r.Header.Get("Payment-Response"))
	require.NoError(t, err)
	var settled x402.SettleResponse
	require.NoError(t, json.Unmarshal(raw, &settled))
	require.True(t, settled.Success)
	require.Equal(t, r.Body["transaction"], settled.Transaction)

	again := pay(t, env, key, "top-1", 25, header)
	require.Equal(t, http.StatusOK, again.Status)
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	require.Equal(t, receipt, again.Body["receiptId"])

	require.EqualValues(t, 2500, balanceCredits(t, env, key))
	require.Equal(t, big.NewInt(5_000_000), usdcBalance(t, env, p.addr), "30 - 25 USDC left")
	require.Equal(t, new(big.Int).Add(treasuryBefore, big.NewInt(25_000_000)), usdcBalance(t, env, devchain.PayTo))

	var accountID string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM topups").Scan(context.Background(), &accountID))
	events, err := outbox.List(context.Background(), env.DB, accountID)
	require.NoError(t, err)
	var topped []string
	for _, e := range events {
		if e.Type == outbox.CreditsToppedUp {
			topped = append(topped, string(e.Data))
		}
	}
	require.Len(t, topped, 1)
	require.Contains(t, topped[0], receipt)
}

// TestTopUpOneSignatureSentTwentyTimesCreditsOnce: 20 concurrent copies of one Payment-Signature (each
// with its own Idempotency-Key) find one top-up: one transfer, one credit, one receipt.
func TestTopUpOneSignatureSentTwentyTimesCreditsOnce(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	key := env.FirstKey(t)
	p := newPayer(t, env, 100)
	pr := requirements(t, env, key, "probe", 10)
	payment, err := x402.Pay(p.key, pr.Accepts[0], nil, time.Now())
	require.NoError(t, err)
	header := paymentHeader(t, payment)

	var wg sync.WaitGroup
	answers := make([]*apptest.Response, 20)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = pay(t, env, key, "copy-"+strconv.Itoa(i), 10, header)
		}()
	}
	wg.Wait()
	receipts := map[string]bool{}
	for _, a := range answers {
		require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
		receipts[a.Body["receiptId"].(string)] = true
	}
	require.Len(t, receipts, 1, "every copy answers the one top-up")
	require.EqualValues(t, 1000, balanceCredits(t, env, key))
	require.Equal(t, big.NewInt(90_000_000), usdcBalance(t, env, p.addr), "paid once")
	var rows, entries int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM topups").Scan(context.Background(), &rows))
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM ledger_transactions WHERE kind = 'top_up'").Scan(context.Background(), &entries))
	require.Equal(t, 1, rows)
	require.Equal(t, 1, entries)

	other := env.FirstKey(t)
	stolen := pay(t, env, other, "stolen", 10, header)
	require.Equal(t, http.StatusConflict, stolen.Status, "another account cannot reuse the signature: %s", stolen.Raw)
}

// TestTopUpRefusesBadPayments: another amount, another payTo, an expired window, the wrong EIP-712
// domain name, a payer without the USDC: each is refused with its reason and nothing is credited.
func TestTopUpRefusesBadPayments(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	key := env.FirstKey(t)
	rich := newPayer(t, env, 100)
	poor := newPayer(t, env, 1)
	pr := requirements(t, env, key, "probe", 25)
	want := pr.Accepts[0]
	domain, err := x402.RequirementsDomain(want)
	require.NoError(t, err)

	resign := func(p payer, d x402.Domain, edit func(a *x402.EIP3009Authorization)) string {
		payment, err := x402.Pay(p.key, want, nil, time.Now())
		require.NoError(t, err)
		a := *payment.Payload.Authorization
		edit(&a)
		payment.Payload.Authorization = &a
		payment.Payload.Signature, err = x402.SignAuthorization(p.key, d, a)
		require.NoError(t, err)
		return paymentHeader(t, payment)
	}
	wrongName := domain
	wrongName.Name = "USDC"
	cases := []struct {
		name, header, reason string
	}{
		{"another amount", resign(rich, domain, func(a *x402.EIP3009Authorization) { a.Value = "24000000" }), x402.ReasonAmountMismatch},
		{"another payTo", resign(rich, domain, func(a *x402.EIP3009Authorization) { a.To = rich.addr.Hex() }), x402.ReasonRecipientMismatch},
		{"expired", resign(rich, domain, func(a *x402.EIP3009Authorization) {
			a.ValidBefore = strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)
		}), x402.ReasonExpired},
		{"wrong domain name", resign(rich, wrongName, func(*x402.EIP3009Authorization) {}), x402.ReasonInvalidSignature},
		{"payer lacks the USDC", resign(poor, domain, func(*x402.EIP3009Authorization) {}), "insufficient_funds"},
		{"not base64", "%%%", x402.ReasonInvalidPayload},
	}
	for i, c := range cases {
		r := pay(t, env, key, "bad-"+strconv.Itoa(i), 25, c.header)
		require.Equal(t, http.StatusPaymentRequired, r.Status, "%s: %s", c.name, r.Raw)
		require.Equal(t, "payment_required", r.ErrorCode(), c.name)
		details := r.Body["error"].(map[string]any)["details"].(map[string]any)
		require.Equal(t, c.reason, details["reason"], "%s: %s", c.name, r.Raw)
		require.NotEmpty(t, r.Header.Get("Payment-Required"), "%s: a refused payment is answered with what to pay", c.name)
	}
	require.Zero(t, balanceCredits(t, env, key))
	require.Equal(t, big.NewInt(100_000_000), usdcBalance(t, env, rich.addr))
	require.Equal(t, big.NewInt(1_000_000), usdcBalance(t, env, poor.addr))
	var entries int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM ledger_transactions WHERE kind = 'top_up'").Scan(context.Background(), &entries))
	require.Zero(t, entries)
}

// TestTopUpBadInput: fields the route never accepts, and amounts out of range or too precise, are 400
// naming the field; nothing is asked to be paid.
func TestTopUpBadInput(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	key := env.FirstKey(t)
	cases := []struct {
		body  map[string]any
		param string
	}{
		{map[string]any{"amountUsd": 25, "payTo": "0x0000000000000000000000000000000000000001"}, "payTo"},
		{map[string]any{"amountUsd": 25, "network": "eip155:1"}, "network"},
		{map[string]any{"amountUsd": 25, "asset": "0x0000000000000000000000000000000000000001"}, "asset"},
		{map[string]any{"amountUsd": 25, "price": 1}, "price"},
		{map[string]any{"amountUsd": 25, "accountId": "acct_x"}, "accountId"},
		{map[string]any{"amountUsd": 25, "creditToken": "x"}, "creditToken"},
		{map[string]any{"amountUsd": 4.99}, "amountUsd"},
		{map[string]any{"amountUsd": 500.01}, "amountUsd"},
		{map[string]any{"amountUsd": 25.001}, "amountUsd"},
		{map[string]any{}, "amountUsd"},
	}
	for i, c := range cases {
		r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: topUpPath, Key: key, Body: c.body,
			Headers: map[string]string{"Idempotency-Key": "bad-" + strconv.Itoa(i)}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", c.body, r.Raw)
		require.Equal(t, "invalid_request", r.ErrorCode())
		require.Equal(t, c.param, r.Body["error"].(map[string]any)["param"], "%v: %s", c.body, r.Raw)
	}
	ok := env.Do(t, apptest.Req{Method: http.MethodPost, Path: topUpPath, Key: key, Body: map[string]any{"amountUsd": 500},
		Headers: map[string]string{"Idempotency-Key": "max"}})
	require.Equal(t, http.StatusPaymentRequired, ok.Status, "500 is allowed: %s", ok.Raw)
}

// TestTopUpRetryAfterTimeoutNeverPaysTwice: while a paid top-up cannot settle (no worker), the request
// answers 503 and every retry with its Idempotency-Key (with no payment, or with a new one) gets that
// top-up's state, never a fresh 402; once a worker runs, a retry gets the credit, paid and credited once.
func TestTopUpRetryAfterTimeoutNeverPaysTwice(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true, TopUpWait: 300 * time.Millisecond})
	key := env.FirstKey(t)
	p := newPayer(t, env, 50)
	want := requirements(t, env, key, "slow", 10).Accepts[0]
	first, err := x402.Pay(p.key, want, nil, time.Now())
	require.NoError(t, err)
	r := pay(t, env, key, "slow", 10, paymentHeader(t, first))
	require.Equal(t, http.StatusServiceUnavailable, r.Status, "%s", r.Raw)
	require.NotEmpty(t, r.Body["error"].(map[string]any)["details"].(map[string]any)["topUpId"])

	unpaid := env.Do(t, apptest.Req{Method: http.MethodPost, Path: topUpPath, Key: key, Body: map[string]any{"amountUsd": 10},
		Headers: map[string]string{"Idempotency-Key": "slow"}})
	require.Equal(t, http.StatusServiceUnavailable, unpaid.Status, "a retry is not asked to pay again: %s", unpaid.Raw)
	second, err := x402.Pay(p.key, want, nil, time.Now())
	require.NoError(t, err)
	r = pay(t, env, key, "slow", 10, paymentHeader(t, second))
	require.Equal(t, http.StatusServiceUnavailable, r.Status, "a second payment on the same key is not taken: %s", r.Raw)

	ch, err := evm.Dial(context.Background(), env.Chain.RPCURL(), big.NewInt(devchain.ChainID), devchain.USDCAddress, devchain.FacilitatorKey())
	require.NoError(t, err)
	t.Cleanup(ch.Close)
	w := app.NewWorker(env.Temporal, app.WorkerDeps{DB: env.DB, Chain: ch}, sdkworker.Options{})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	var done *apptest.Response
	require.Eventually(t, func() bool {
		done = env.Do(t, apptest.Req{Method: http.MethodPost, Path: topUpPath, Key: key, Body: map[string]any{"amountUsd": 10},
			Headers: map[string]string{"Idempotency-Key": "slow"}})
		return done.Status != http.StatusServiceUnavailable
	}, 30*time.Second, 50*time.Millisecond)
	require.Equal(t, http.StatusOK, done.Status, "%s", done.Raw)
	require.EqualValues(t, 1000, balanceCredits(t, env, key))
	require.Equal(t, big.NewInt(40_000_000), usdcBalance(t, env, p.addr), "paid once")
	var rows int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM topups").Scan(context.Background(), &rows))
	require.Equal(t, 1, rows, "the second payment was never reserved")
}

// TestTopUpResendsAfterARevertedSettlement: a settlement transaction an earlier attempt sent that
// reverted (here: a reverting call recorded as the top-up's transaction) does not stall the top-up; the
// next attempt sends the transfer again and the top-up is credited once.
func TestTopUpResendsAfterARevertedSettlement(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true, TopUpWait: 300 * time.Millisecond})
	key := env.FirstKey(t)
	p := newPayer(t, env, 10)
	payment, err := x402.Pay(p.key, requirements(t, env, key, "rev", 10).Accepts[0], nil, time.Now())
	require.NoError(t, err)
	require.Equal(t, http.StatusServiceUnavailable, pay(t, env, key, "rev", 10, paymentHeader(t, payment)).Status)

	// A call the token reverts (mint from a key that does not own it), mined with status 0.
	ctx := context.Background()
	client := env.Chain.Client()
	defer client.Close()
	nonce, err := client.PendingNonceAt(ctx, devchain.FacilitatorAddress)
	require.NoError(t, err)
	token := devchain.USDCAddress
	data := usdc.NewUSDC().PackMint(p.addr, big.NewInt(1))
	tx, err := evm.Send(ctx, client, devchain.FacilitatorKey(), big.NewInt(devchain.ChainID), nonce,
		types.DynamicFeeTx{GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: 100_000, To: &token, Data: data})
	require.NoError(t, err)
	ch, err := evm.Dial(ctx, env.Chain.RPCURL(), big.NewInt(devchain.ChainID), devchain.USDCAddress, devchain.FacilitatorKey())
	require.NoError(t, err)
	t.Cleanup(ch.Close)
	r, err := ch.WaitMined(ctx, tx.Hash(), 10*time.Second, nil)
	require.NoError(t, err)
	require.NotNil(t, r)
	require.EqualValues(t, 0, r.Status, "the recorded transaction reverted")
	_, err = env.DB.NewRaw("UPDATE topups SET tx_hash = ?", tx.Hash().Hex()).Exec(ctx)
	require.NoError(t, err)

	w := app.NewWorker(env.Temporal, app.WorkerDeps{DB: env.DB, Chain: ch}, sdkworker.Options{})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	var done *apptest.Response
	require.Eventually(t, func() bool {
		done = pay(t, env, key, "rev", 10, paymentHeader(t, payment))
		return done.Status != http.StatusServiceUnavailable
	}, 30*time.Second, 50*time.Millisecond)
	require.Equal(t, http.StatusOK, done.Status, "%s", done.Raw)
	require.NotEqual(t, tx.Hash().Hex(), done.Body["transaction"], "the transfer was sent again")
	require.EqualValues(t, 1000, balanceCredits(t, env, key))
	require.Zero(t, usdcBalance(t, env, p.addr).Sign(), "paid once")
}
