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
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/appfront"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/testbrowser"
)

// chatManifest is the chat test app's manifest: it may ask the agent and prepare transactions.
const chatManifest = `{"slug": "payer", "title": "Payer", "permissions": ["invoke:agent", "prepare:transaction"]}`

// chatIndex asks the chat, then asks twice to confirm a payment to RECIPIENT, reporting each outcome to
// its host page with setContext (the test presses Reject, then Confirm, on the host page).
const chatIndex = `<!doctype html>
<html><head><title>payer</title></head><body><p id="out">waiting</p>
<script>
var report = { step: 'ready' };
function settle(p) {
  return p.then(function (v) { return { ok: true, value: v }; },
    function (e) { return { ok: false, code: e.code, status: e.status, param: e.param, message: e.message }; });
}
svc.on('ready', async function () {
  report.ask = await settle(svc.askChat('hello agent'));
  await svc.setContext(report);
  var tx = { to: 'RECIPIENT', value: '1000000000000000', chainId: 1337 };
  report.first = await settle(svc.confirmTransaction({ tx: tx, description: 'first payment' }));
  report.step = 'first';
  await svc.setContext(report);
  report.second = await settle(svc.confirmTransaction({ tx: tx, description: 'second payment' }));
  report.step = 'second';
  await svc.setContext(report);
});
</script></body></html>`

// chatReport is what the chat test app reported.
type chatReport struct {
	Step   string         `json:"step"`
	Ask    map[string]any `json:"ask"`
	First  map[string]any `json:"first"`
	Second map[string]any `json:"second"`
}

// readReport reads the app's last report off its host page once step is reached.
func readReport(t *testing.T, page *testbrowser.Page, step string) chatReport {
	t.Helper()
	var raw string
	page.WaitFor(`(function () { var t = document.getElementById('svc-context').textContent;
  return t && JSON.parse(t).step === '`+step+`' ? t : ''; })()`, time.Minute, &raw)
	var r chatReport
	require.NoError(t, json.Unmarshal([]byte(raw), &r), raw)
	return r
}

// TestAppChatAndConfirmInBrowser drives an app's host page in headless Chromium as its owner: askChat
// opens the chat panel, sends the prompt and shows the agent's answer; the app's confirmTransaction
// shows the payment on the host page with Confirm and Reject; Reject answers rejected and sends
// nothing, Confirm sends it from the owner's managed wallet and the recipient's balance changes.
func TestAppChatAndConfirmInBrowser(t *testing.T) {
	bin := testbrowser.Require(t, "the app chat test drives a host page in a browser")
	env := apptest.NewWith(t, apptest.Options{AgentModel: newScriptedModel(), Chain: true})
	owner := newFrontOwner(t, env, "chat-owner")
	ctx := context.Background()

	w := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/wallets", Key: owner.key, Body: map[string]any{}, Headers: map[string]string{"Idempotency-Key": "w1"}})
	require.Equal(t, http.StatusCreated, w.Status, "%s", w.Raw)
	walletID := w.Body["wallet"].(map[string]any)["id"].(string)
	from := common.HexToAddress(w.Body["wallet"].(map[string]any)["address"].(string))
	_, err := devchain.Fund(ctx, env.Chain.RPCURL(), from, nil, big.NewInt(1e17))
	require.NoError(t, err)
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	recipient := crypto.PubkeyToAddress(key.PublicKey)

	created := createJSONApp(t, env, owner.key, "payer", map[string]string{"manifest.json": chatManifest,
		"index.html": strings.Replace(chatIndex, "RECIPIENT", recipient.Hex(), 1)})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	link := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps/payer/open", Key: owner.key})
	require.Equal(t, http.StatusOK, link.Status, "%s", link.Raw)
	page := testbrowser.Open(t, bin, link.Body["url"].(string))

	// askChat: the panel opens with the prompt sent and the agent's answer shown.
	var answer string
	page.WaitFor(`(function () { var p = document.querySelectorAll('#svc-chat-log p');
  return !document.getElementById('svc-chat').hidden && p.length >= 2 && p[1].className === 'agent' && p[1].textContent !== '…' ? p[0].textContent + '|' + p[1].textContent : ''; })()`,
		time.Minute, &answer)
	require.True(t, strings.HasPrefix(answer, `hello agent|you said "hello agent" after`), answer)

	// The first payment: shown outside the frame; Reject.
	var shown string
	page.WaitFor(`!document.getElementById('svc-confirm').hidden && document.getElementById('svc-confirm-description').textContent === 'first payment' ?
  document.getElementById('svc-confirm-to').textContent + '|' + document.getElementById('svc-confirm-value').textContent : ''`, time.Minute, &shown)
	require.Equal(t, recipient.Hex()+"|1000000000000000", shown)
	page.Eval(`document.getElementById('svc-confirm-no').click()`, nil)
	r := readReport(t, page, "first")
	require.Equal(t, true, r.Ask["ok"], "%v", r.Ask)
	require.Equal(t, map[string]any{"ok": true, "value": map[string]any{"status": "rejected"}}, r.First)
	txs := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/wallets/" + walletID + "/transactions", Key: owner.key})
	require.Equal(t, http.StatusOK, txs.Status, "%s", txs.Raw)
	require.Empty(t, txs.Body["transactions"], "a rejected payment sends nothing")

	// The second payment: Confirm sends it from the owner's wallet.
	page.WaitFor(`!document.getElementById('svc-confirm').hidden && document.getElementById('svc-confirm-description').textContent === 'second payment'`,
		time.Minute, nil)
	page.Eval(`document.getElementById('svc-confirm-yes').click()`, nil)
	r = readReport(t, page, "second")
	require.Equal(t, true, r.Second["ok"], "%v", r.Second)
	got := r.Second["value"].(map[string]any)
	require.Equal(t, "confirmed", got["status"], "%v", got)
	require.NotEmpty(t, got["hash"])
	txs = env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/wallets/" + walletID + "/transactions", Key: owner.key})
	require.Len(t, txs.Body["transactions"], 1)
	require.Equal(t, got["transactionId"], txs.Body["transactions"].([]any)[0].(map[string]any)["id"])
	ec, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	defer ec.Close()
	bal, err := ec.BalanceAt(ctx, recipient, nil)
	require.NoError(t, err)
	require.Equal(t, "1000000000000000", bal.String(), "the recipient received the confirmed payment")

	// Exactly once: the same confirmation pressed twice is one transaction; another chain is refused.
	cookie := viewerCookieOf(t, env, owner.id, "payer", owner.id)
	wrong := frontCall(t, env, owner.id, "payer", cookie, "confirmTransaction", `{"tx": {"to": "`+recipient.Hex()+`", "value": "1", "chainId": 1}}`)
	require.Equal(t, http.StatusBadRequest, wrong.Status, "%s", wrong.Raw)
	require.Equal(t, "params.tx.chainId", wrong.Body["error"].(map[string]any)["param"])
	prepared := frontCall(t, env, owner.id, "payer", cookie, "confirmTransaction", `{"tx": {"to": "`+recipient.Hex()+`", "value": "5"}}`)
	require.Equal(t, http.StatusOK, prepared.Status, "%s", prepared.Raw)
	token := prepared.Body["result"].(map[string]any)["token"].(string)
	once := hostCall(t, env, owner.id, "payer", cookie, "transaction.confirm", `{"token": "`+token+`"}`)
	require.Equal(t, http.StatusOK, once.Status, "%s", once.Raw)
	twice := hostCall(t, env, owner.id, "payer", cookie, "transaction.confirm", `{"token": "`+token+`"}`)
	require.Equal(t, once.Body["result"].(map[string]any)["transactionId"], twice.Body["result"].(map[string]any)["transactionId"])
	txs = env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/wallets/" + walletID + "/transactions", Key: owner.key})
	require.Len(t, txs.Body["transactions"], 2, "the second press sent nothing more")
}

// TestAppChatOwnerOnly: chat.prompt and confirmTransaction act for the owner: an anonymous viewer is
// asked to sign in, another account is refused; the host page's actions refuse a forged token; and
// without the permissions both are refused naming them.
func TestAppChatOwnerOnly(t *testing.T) {
	env := apptest.New(t)
	owner := newFrontOwner(t, env, "chat-rules-owner")
	other := newFrontOwner(t, env, "chat-rules-other")
	created := createJSONApp(t, env, owner.key, "payer", map[string]string{"manifest.json": chatManifest, "index.html": "<p>x</p>"})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	share := env.Do(t, apptest.Req{Method: http.MethodPatch, Path: "/v1/apps/payer", Key: owner.key, Body: map[string]any{"sharing": "public"},
		Headers: map[string]string{"Idempotency-Key": "share1"}})
	require.Equal(t, http.StatusOK, share.Status, "%s", share.Raw)
	ownerCookie, otherCookie := viewerCookieOf(t, env, owner.id, "payer", owner.id), viewerCookieOf(t, env, owner.id, "payer", other.id)

	tx := `{"tx": {"to": "0x52908400098527886E0F7030069857D2E4169EE7", "value": "1"}}`
	anon := frontCall(t, env, owner.id, "payer", "", "confirmTransaction", tx)
	require.Equal(t, http.StatusUnauthorized, anon.Status, "%s", anon.Raw)
	require.Equal(t, http.StatusForbidden, frontCall(t, env, owner.id, "payer", otherCookie, "confirmTransaction", tx).Status)
	require.Equal(t, http.StatusForbidden, frontCall(t, env, owner.id, "payer", otherCookie, "chat.prompt", `{"prompt": "hi"}`).Status)
	bad := frontCall(t, env, owner.id, "payer", ownerCookie, "confirmTransaction", `{"tx": {"to": "0x12"}}`)
	require.Equal(t, http.StatusBadRequest, bad.Status, "%s", bad.Raw)
	require.Equal(t, "params.tx.to", bad.Body["error"].(map[string]any)["param"])
	extra := frontCall(t, env, owner.id, "payer", ownerCookie, "confirmTransaction", `{"tx": {"to": "0x52908400098527886E0F7030069857D2E4169EE7", "gas": 1}}`)
	require.Equal(t, "params.tx.gas", extra.Body["error"].(map[string]any)["param"], "%s", extra.Raw)

	forged := hostCall(t, env, owner.id, "payer", ownerCookie, "transaction.confirm", `{"token": "x.y.z"}`)
	require.Equal(t, http.StatusBadRequest, forged.Status, "%s", forged.Raw)
	require.Equal(t, "params.token", forged.Body["error"].(map[string]any)["param"])
	notHost := hostCall(t, env, owner.id, "payer", ownerCookie, "appKV.get", `{"key": "k"}`)
	require.Equal(t, http.StatusBadRequest, notHost.Status, "%s", notHost.Raw)
	notFrame := frontCall(t, env, owner.id, "payer", ownerCookie, "transaction.confirm", `{"token": "x"}`)
	require.Equal(t, http.StatusBadRequest, notFrame.Status, "the frame's allowlist has no host action")

	plain := createJSONApp(t, env, owner.key, "plain", map[string]string{"manifest.json": `{"slug": "plain"}`, "index.html": "<p>x</p>"})
	require.Equal(t, http.StatusCreated, plain.Status, "%s", plain.Raw)
	plainCookie := viewerCookieOf(t, env, owner.id, "plain", owner.id)
	for method, perm := range map[string]string{"confirmTransaction": "prepare:transaction", "chat.prompt": "invoke:agent"} {
		params := tx
		if method == "chat.prompt" {
			params = `{"prompt": "hi"}`
		}
		refused := frontCall(t, env, owner.id, "plain", plainCookie, method, params)
		require.Equal(t, http.StatusForbidden, refused.Status, "%s", refused.Raw)
		require.Equal(t, perm, refused.Body["error"].(map[string]any)["details"].(map[string]any)["permission"])
	}
}

// hostCall sends one of the host page's own actions with the viewer cookie.
func hostCall(t *testing.T, env *apptest.Env, owner, slug, cookie, method, params string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/apps/" + owner + "/" + slug + "/api/host",
		Headers: map[string]string{"Cookie": "svc_app=" + cookie}, Body: `{"method": "` + method + `", "params": ` + params + `}`})
}

// viewerCookieOf signs the viewer cookie of account for the app owner/slug, as the server does.
func viewerCookieOf(t *testing.T, env *apptest.Env, owner, slug, account string) string {
	t.Helper()
	c, _, err := appfront.NewSigner(env.Box.Derive("app-viewer"), nil).IssueCookie(owner, slug, account)
	require.NoError(t, err)
	return c
}
