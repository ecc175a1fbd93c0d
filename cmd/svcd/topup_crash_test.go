package main

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/schema"
)

// chainEnv are the variables that point an svcd worker at the test's dev chain.
func chainEnv(env *apptest.Env) []string {
	return []string{
		"SVC_CHAIN_RPC_URL=" + env.Chain.RPCURL(), "SVC_X402_NETWORK=" + devchain.Network,
		"SVC_USDC_ADDRESS=" + devchain.USDCAddress.Hex(), "SVC_X402_PAY_TO=" + devchain.PayTo.Hex(),
		"SVC_FACILITATOR_PRIVATE_KEY=" + hexutil.Encode(crypto.FromECDSA(devchain.FacilitatorKey())),
	}
}

// TestWorkerKilledBetweenSettlementAndCreditCreditsOnce kills the svcd worker (SIGKILL) after a top-up's
// transfer is mined and before the worker recorded it, starts another, and checks that the top-up
// completes: the new worker finds the transfer on chain instead of sending another, and the credits
// are posted once.
func TestWorkerKilledBetweenSettlementAndCreditCreditsOnce(t *testing.T) {
	t.Parallel()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true})
	dir := t.TempDir()
	first := startWorker(t, svcd, env, "", dir, append(chainEnv(env), "SVC_TEST_FAULT="+activities.FaultStallAfterSettle)...)

	key := env.FirstKey(t)
	payerKey, err := crypto.GenerateKey()
	require.NoError(t, err)
	payerAddr := crypto.PubkeyToAddress(payerKey.PublicKey)
	funded := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": payerAddr.Hex(), "usdc": 20}})
	require.Equal(t, http.StatusOK, funded.Status, "%s", funded.Raw)
	payment, err := x402.Pay(payerKey, env.X402.Requirements(big.NewInt(10_000_000)), nil, time.Now())
	require.NoError(t, err)
	header, err := x402.EncodeHeader(payment)
	require.NoError(t, err)

	answer := make(chan *apptest.Response, 1)
	go func() {
		answer <- env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/credits/x402/top-up", Key: key,
			Body: map[string]any{"amountUsd": 10}, Headers: map[string]string{"Idempotency-Key": "crash", "Payment-Signature": header}})
	}()

	chain, err := evm.Dial(context.Background(), env.Chain.RPCURL(), big.NewInt(devchain.ChainID), devchain.USDCAddress, nil)
	require.NoError(t, err)
	defer chain.Close()
	var nonce [32]byte
	copy(nonce[:], hexutil.MustDecode(payment.Payload.Authorization.Nonce))
	require.Eventually(t, func() bool {
		used, err := chain.AuthorizationState(context.Background(), payerAddr, nonce)
		return err == nil && used
	}, 60*time.Second, 20*time.Millisecond, "the transfer was never mined; worker log:\n%s", first.log.String())
	var row schema.TopUp
	require.NoError(t, env.DB.NewSelect().Model(&row).Scan(context.Background()))
	require.Equal(t, "pending", row.Status, "killed before the worker recorded the settlement")
	first.kill(t)
	second := startWorker(t, svcd, env, "", dir, chainEnv(env)...)

	var r *apptest.Response
	select {
	case r = <-answer:
	case <-time.After(90 * time.Second):
		t.Fatalf("the top-up never finished; second worker log:\n%s", second.log.String())
	}
	require.Equal(t, http.StatusOK, r.Status, "%s\nsecond worker log:\n%s", r.Raw, second.log.String())
	require.EqualValues(t, 1000, r.Body["creditedCredits"])
	require.EqualValues(t, 1000, r.Body["balance"].(map[string]any)["credits"])

	bal, err := chain.BalanceOf(context.Background(), payerAddr)
	require.NoError(t, err)
	require.Equal(t, big.NewInt(10_000_000), bal, "paid once: 20 - 10 USDC")
	tx, found, err := chain.FindAuthorization(context.Background(), payerAddr, nonce)
	require.NoError(t, err)
	require.True(t, found)
	require.True(t, strings.EqualFold(tx.Hex(), r.Body["transaction"].(string)), "the answer names the transfer found on chain")
	var entries int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM ledger_transactions WHERE kind = 'top_up'").Scan(context.Background(), &entries))
	require.Equal(t, 1, entries, "credited once")
}
