package api_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/testbrowser"
)

// payerManifest is the x402 test app's manifest: it may pay up to 6 USD a call to 127.0.0.1.
const payerManifest = `{"slug": "shop", "title": "Shop", "permissions": ["pay:x402"],
  "x402": {"maxPaymentUsdPerCall": 6, "allowedHosts": ["127.0.0.1"]}}`

// payerIndex buys 5 USD of credits through the platform's own x402 top-up endpoint (TOPUP, as the
// owner's key KEY) with svc.x402.fetch once ready, and reports the answer to its host page.
const payerIndex = `<!doctype html>
<html><head><title>shop</title></head><body><p id="out">waiting</p>
<script>
svc.on('ready', async function () {
  var report = { step: 'paid' };
  try {
    report.result = await svc.x402.fetch('TOPUP', { method: 'POST', body: { amountUsd: 5 }, maxPaymentUsd: 5,
      headers: { 'Authorization': 'Bearer KEY', 'Content-Type': 'application/json', 'Idempotency-Key': 'browser-topup-1' } });
  } catch (e) {
    report.error = { code: e.code, status: e.status, param: e.param, message: e.message };
  }
  document.getElementById('out').textContent = 'done';
  await svc.setContext(report);
});
</script></body></html>`

// usdcOf is address's dev USDC balance (6 decimals).
func usdcOf(t *testing.T, env *apptest.Env, address common.Address) *big.Int {
	t.Helper()
	ch, err := evm.Dial(context.Background(), env.Chain.RPCURL(), big.NewInt(devchain.ChainID), devchain.USDCAddress, nil)
	require.NoError(t, err)
	defer ch.Close()
	b, err := ch.BalanceOf(context.Background(), address)
	require.NoError(t, err)
	return b
}

// creditsOf is the account's credit balance.
func creditsOf(t *testing.T, env *apptest.Env, key string) float64 {
	t.Helper()
	r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: key})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	return r.Body["balance"].(map[string]any)["credits"].(float64)
}

// TestAppX402FetchInBrowser: an app page in headless Chromium, opened by its owner, calls
// svc.x402.fetch against the platform's own x402 v2 top-up endpoint; the owner's managed wallet pays on
// the dev chain and the page is answered {status: 200, ok: true, payment: {amountUsd, network, payTo}}:
// the wallet's USDC went down by exactly the price and the account's credits went up by it.
func TestAppX402FetchInBrowser(t *testing.T) {
	bin := testbrowser.Require(t, "the app x402 test opens an app in a browser")
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	owner := newFrontOwner(t, env, "shop-owner")
	w := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/wallets", Key: owner.key, Body: map[string]any{}, Headers: map[string]string{"Idempotency-Key": "w1"}})
	require.Equal(t, http.StatusCreated, w.Status, "%s", w.Raw)
	payer := common.HexToAddress(w.Body["wallet"].(map[string]any)["address"].(string))
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": payer.Hex(), "usdc": 20}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	usdcBefore, creditsBefore := usdcOf(t, env, payer), creditsOf(t, env, owner.key)

	index := strings.NewReplacer("TOPUP", env.URL+"/v1/credits/x402/top-up", "KEY", owner.key).Replace(payerIndex)
	created := createJSONApp(t, env, owner.key, "shop", map[string]string{"manifest.json": payerManifest, "index.html": index})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	link := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps/shop/open", Key: owner.key})
	require.Equal(t, http.StatusOK, link.Status, "%s", link.Raw)
	page := testbrowser.Open(t, bin, link.Body["url"].(string))

	var raw string
	page.WaitFor(`(function () { var t = document.getElementById('svc-context').textContent;
  return t && JSON.parse(t).step === 'paid' ? t : ''; })()`, time.Minute, &raw)
	var report struct {
		Result struct {
			Status  int    `json:"status"`
			OK      bool   `json:"ok"`
			Body    string `json:"body"`
			Payment struct {
				AmountUsd float64 `json:"amountUsd"`
				Network   string  `json:"network"`
				PayTo     string  `json:"payTo"`
			} `json:"payment"`
		} `json:"result"`
		Error map[string]any `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &report), raw)
	require.Nil(t, report.Error, "x402.fetch failed in the page: %s", raw)
	require.Equal(t, http.StatusOK, report.Result.Status, raw)
	require.True(t, report.Result.OK, raw)
	require.Equal(t, 5.0, report.Result.Payment.AmountUsd)
	require.Equal(t, devchain.Network, report.Result.Payment.Network)
	require.Equal(t, devchain.PayTo, common.HexToAddress(report.Result.Payment.PayTo))
	require.Contains(t, report.Result.Body, `"creditedUsd":5`)

	spent := new(big.Int).Sub(usdcBefore, usdcOf(t, env, payer))
	require.Equal(t, big.NewInt(5_000_000), spent, "the wallet paid exactly 5 USDC")
	require.InDelta(t, 500, creditsOf(t, env, owner.key)-creditsBefore, 1e-9, "5 USD of credits arrived")
}
