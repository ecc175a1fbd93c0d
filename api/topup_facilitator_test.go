package api_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/x402"
)

// facilitator is an external x402 facilitator speaking the protocol's POST /settle: it verifies the
// payment, submits transferWithAuthorization to the dev chain with its own key, waits for the receipt and
// answers the settlement. With lose set it settles and then answers 504, as a facilitator whose answer is
// lost after the transfer went through.
type facilitator struct {
	t       *testing.T
	chain   *evm.Chain
	cfg     x402.Config
	lose    bool
	settles atomic.Int64
}

func (f *facilitator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/settle" {
		http.NotFound(w, r)
		return
	}
	f.settles.Add(1)
	var req struct {
		PaymentPayload      x402.PaymentPayload      `json:"paymentPayload"`
		PaymentRequirements x402.PaymentRequirements `json:"paymentRequirements"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a, err := x402.Verify(f.cfg, req.PaymentRequirements, req.PaymentPayload, time.Now())
	if err != nil {
		_ = json.NewEncoder(w).Encode(x402.SettlementFailed(f.cfg.Network, "invalid_payload", err.Error(), a.From))
		return
	}
	tx, err := f.chain.SubmitTransfer(r.Context(), a)
	if err == nil {
		_, err = f.chain.WaitMined(r.Context(), tx, 30*time.Second, nil)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if f.lose {
		http.Error(w, "upstream timed out", http.StatusGatewayTimeout)
		return
	}
	_ = json.NewEncoder(w).Encode(x402.SettlementSucceeded(f.cfg.Network, tx, a.From))
}

// startFacilitator serves a facilitator on the environment's chain, settling with the dev deployer key
// (not the worker's facilitator key, so the transfers are visibly the facilitator's).
func startFacilitator(t *testing.T, lose bool) (*facilitator, string, func(*apptest.Env)) {
	f := &facilitator{t: t, lose: lose}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL, func(env *apptest.Env) {
		ch, err := evm.Dial(context.Background(), env.Chain.RPCURL(), big.NewInt(devchain.ChainID), devchain.USDCAddress, devchain.DeployerKey())
		require.NoError(t, err)
		t.Cleanup(ch.Close)
		f.chain, f.cfg = ch, *env.X402
	}
}

// TestTopUpThroughExternalFacilitator: with SVC_X402_FACILITATOR_URL set, the worker settles through the
// facilitator's /settle and credits once; when the facilitator's answer is lost after the transfer, the
// retry reconciles from the chain and does not ask the facilitator again.
func TestTopUpThroughExternalFacilitator(t *testing.T) {
	t.Parallel()
	for _, lose := range []bool{false, true} {
		t.Run(map[bool]string{false: "answered", true: "answer lost"}[lose], func(t *testing.T) {
			t.Parallel()
			f, url, attach := startFacilitator(t, lose)
			env := apptest.NewWith(t, apptest.Options{Chain: true, FacilitatorURL: url})
			attach(env)
			key := env.FirstKey(t)
			p := newPayer(t, env, 20)
			payment, err := x402.Pay(p.key, requirements(t, env, key, "probe", 10).Accepts[0], nil, time.Now())
			require.NoError(t, err)
			r := pay(t, env, key, "fac", 10, paymentHeader(t, payment))
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
			require.EqualValues(t, 1000, r.Body["creditedCredits"])
			require.EqualValues(t, 1, f.settles.Load(), "the facilitator was asked once")
			require.Equal(t, big.NewInt(10_000_000), usdcBalance(t, env, p.addr), "paid once")
			require.EqualValues(t, 1000, balanceCredits(t, env, key))
		})
	}
}
