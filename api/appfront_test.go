package api_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/appfront"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testbrowser"
)

// browserBudget is the virtual time a page gets to run: its network waits (a script run) do not count.
const browserBudget = 30 * time.Second

// frontOwner is an account with its first key.
type frontOwner struct {
	id  string
	key string
}

func newFrontOwner(t *testing.T, env *apptest.Env, name string) frontOwner {
	t.Helper()
	id, token := env.NewAccount(t, name)
	resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first-key-" + name}})
	require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
	return frontOwner{id: id, key: resp.Body["apiKey"].(map[string]any)["secret"].(string)}
}

// probeManifest is the test app's manifest: appKV both ways, one script, greeting readable by anyone.
const probeManifest = `{"slug": "%s", "title": "Probe", "permissions": ["read:appdata", "write:appdata"],
  "scripts": ["hello"], "publicDataKeys": ["greeting"]}`

// probeIndex is the test app's page: once ready it tries to reach the outside host (fetch and image),
// sets and reads appKV values, runs a script, sends two malformed messages past the SDK, and reports
// everything to the host page with svc.setContext.
const probeIndex = `<!doctype html>
<html><head><title>probe</title></head><body><p id="out">waiting</p>
<script>
var OUT = 'OUTSIDE';
var results = { violations: [] };
document.addEventListener('securitypolicyviolation', function (e) { results.violations.push(e.violatedDirective); });
function settle(p) {
  return p.then(function (v) { return { ok: true, value: v }; },
    function (e) { return { ok: false, code: e.code, status: e.status, param: e.param, message: e.message, details: e.details }; });
}
function raw(msg) {
  return new Promise(function (resolve) {
    window.addEventListener('message', function on(ev) {
      if (ev.source === window.parent && ev.data && ev.data.id === msg.id) { window.removeEventListener('message', on); resolve(ev.data.error); }
    });
    window.parent.postMessage(msg, location.origin);
  });
}
svc.on('ready', async function (ctx) {
  results.ready = JSON.parse(JSON.stringify(ctx));
  results.fetch = await fetch(OUT + '/fetch').then(function () { return 'reached'; }, function (e) { return 'blocked: ' + e.name; });
  results.image = await new Promise(function (resolve) {
    var img = new Image();
    img.onload = function () { resolve('loaded'); };
    img.onerror = function () { resolve('blocked'); };
    img.src = OUT + '/pixel.png';
  });
  results.set = await settle(svc.appKV.set('greeting', { text: 'hi from the browser' }));
  results.get = await settle(svc.appKV.get('greeting'));
  results.private = await settle(svc.appKV.get('notes'));
  results.missing = await settle(svc.appKV.get('record:never-set'));
  results.run = await settle(svc.run('hello', { name: 'browser' }));
  results.badMethod = await raw({ id: 'raw1', method: 'fs.read', params: {} });
  results.badParams = await raw({ id: 'raw2', method: 'appKV.get', params: { key: 5 } });
  document.getElementById('out').textContent = 'done';
  await svc.setContext({ results: results });
});
</script></body></html>`

// createProbe stores the probe app (private) of owner, its page reporting on outside, with a plain key
// "notes" only the owner may read.
func createProbe(t *testing.T, env *apptest.Env, owner frontOwner, slug, outside string) *apps.Store {
	t.Helper()
	store := apps.NewStore(env.DB, file.NewStore(env.DB, file.Options{}), blob.WithPrefix(env.Blobs, app.FilePrefix), nil, nil)
	ctx := context.Background()
	scope := tenant.Scope{AccountID: owner.id}
	a, err := store.Create(ctx, apps.NewApp{ID: ids.New(apps.IDPrefix), Scope: scope, Files: map[string][]byte{
		"manifest.json":    []byte(strings.Replace(probeManifest, "%s", slug, 1)),
		"index.html":       []byte(strings.Replace(probeIndex, "OUTSIDE", outside, 1)),
		"scripts/hello.ts": []byte("const name: string = args.name;\nreturn { hello: name };\n"),
	}})
	require.NoError(t, err)
	require.NoError(t, store.KVSet(ctx, a, apps.Viewer{AccountID: owner.id, Owner: true}, "notes", json.RawMessage(`"owner only"`)))
	return store
}

// outsideServer is a host the app must never reach; it counts every request.
func outsideServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write([]byte("reached"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

var contextPre = regexp.MustCompile(`(?s)<pre id="svc-context" hidden="">(.*?)</pre>`)

// probeResults are what the probe app reported to its host page.
type probeResults struct {
	Ready      map[string]any `json:"ready"`
	Fetch      string         `json:"fetch"`
	Image      string         `json:"image"`
	Violations []string       `json:"violations"`
	Set        map[string]any `json:"set"`
	Get        map[string]any `json:"get"`
	Private    map[string]any `json:"private"`
	Missing    map[string]any `json:"missing"`
	Run        map[string]any `json:"run"`
	BadMethod  map[string]any `json:"badMethod"`
	BadParams  map[string]any `json:"badParams"`
}

// openInBrowser loads url in headless Chromium and answers what the app reported through setContext.
func openInBrowser(t *testing.T, bin, url string) probeResults {
	t.Helper()
	dom := testbrowser.DumpDOM(t, bin, url, browserBudget)
	m := contextPre.FindStringSubmatch(dom)
	require.NotNil(t, m, "the app reported to its host page; the host page's DOM:\n%s", dom)
	var out struct {
		Results probeResults `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(m[1])), &out), m[1])
	return out.Results
}

// TestAppFrontendInBrowser opens the probe app in a real headless Chromium, first as its owner (the
// svc apps open link), then anonymously once it is unlisted: the SDK's ready, appKV, a script run, the
// host page's allowlist, the anonymous rules, and the frame's CSP keeping it from an outside host.
func TestAppFrontendInBrowser(t *testing.T) {
	bin := testbrowser.Require(t, "the app frontend test opens apps in a browser")
	env := apptest.New(t)
	owner := newFrontOwner(t, env, "front-owner")
	outside, hits := outsideServer(t)
	store := createProbe(t, env, owner, "probe", outside.URL)

	link := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps/probe/open", Key: owner.key})
	require.Equal(t, http.StatusOK, link.Status, "%s", link.Raw)
	r := openInBrowser(t, bin, link.Body["url"].(string))

	require.Equal(t, "probe", r.Ready["slug"])
	require.Equal(t, true, r.Ready["isAuthenticated"])
	require.Equal(t, true, r.Set["ok"], "%v", r.Set)
	require.Equal(t, map[string]any{"text": "hi from the browser"}, r.Get["value"])
	require.Equal(t, "owner only", r.Private["value"], "the owner reads every key")
	require.Equal(t, map[string]any{"ok": true, "value": nil}, r.Missing, "a key never set reads null")
	require.Equal(t, true, r.Run["ok"], "%v", r.Run)
	require.Equal(t, map[string]any{"hello": "browser"}, r.Run["value"], "the script's return value")
	runs := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/probe/runs", Key: owner.key})
	require.Equal(t, http.StatusOK, runs.Status, "%s", runs.Raw)
	require.Len(t, runs.Body["runs"], 1)
	run := runs.Body["runs"].([]any)[0].(map[string]any)
	require.Equal(t, "frontend", run["trigger"])
	require.Equal(t, "succeeded", run["status"])
	require.Equal(t, "method", r.BadMethod["param"], "the host page refuses a method off the allowlist")
	require.Equal(t, "params.key", r.BadParams["param"], "the host page refuses a param of the wrong type")
	require.True(t, strings.HasPrefix(r.Fetch, "blocked"), r.Fetch)
	require.Equal(t, "blocked", r.Image)
	require.Contains(t, r.Violations, "connect-src")
	require.Contains(t, r.Violations, "img-src")

	_, err := store.SetSharing(context.Background(), tenant.Scope{AccountID: owner.id}, "probe", apps.SharingUnlisted)
	require.NoError(t, err)
	anon := openInBrowser(t, bin, env.URL+appfront.Base(owner.id, "probe"))
	require.Equal(t, false, anon.Ready["isAuthenticated"])
	require.Equal(t, map[string]any{"text": "hi from the browser"}, anon.Get["value"], "greeting is a publicDataKey")
	require.Equal(t, false, anon.Private["ok"])
	require.EqualValues(t, http.StatusForbidden, anon.Private["status"])
	require.Equal(t, "key", anon.Private["param"])
	require.Contains(t, anon.Private["message"], "notes", "the refusal names the key")
	require.EqualValues(t, http.StatusForbidden, anon.Set["status"], "anonymous viewers never write")
	require.EqualValues(t, http.StatusForbidden, anon.Run["status"], "anonymous viewers never run scripts")

	require.Zero(t, hits.Load(), "the frame reached the outside host")
}

// frontCall sends one viewer API call with the viewer cookie ("" for an anonymous viewer).
func frontCall(t *testing.T, env *apptest.Env, owner, slug, cookie, method, params string) *apptest.Response {
	t.Helper()
	h := map[string]string{}
	if cookie != "" {
		h["Cookie"] = "svc_app=" + cookie
	}
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: appfront.Base(owner, slug) + "api/call", Headers: h,
		Body: `{"method": "` + method + `", "params": ` + params + `}`})
}

// page fetches one of the app's pages with the viewer cookie, redirects not followed.
func page(t *testing.T, url, cookie string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "svc_app", Value: cookie})
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// TestAppFrontViewerRules: a private app is not_found to everyone but its owner (pages and viewer API);
// the open link sets a cookie for that one app; anonymous viewers of a shared app read publicDataKeys
// only and never run scripts; the frame carries the CSP and the SDK.
func TestAppFrontViewerRules(t *testing.T) {
	env := apptest.New(t)
	owner := newFrontOwner(t, env, "rules-owner")
	otherAcct := newFrontOwner(t, env, "rules-other")
	store := createProbe(t, env, owner, "probe", "http://127.0.0.1:9")
	signer := appfront.NewSigner(env.Box.Derive("app-viewer"), nil)
	otherCookie, _, err := signer.IssueCookie(owner.id, "probe", otherAcct.id)
	require.NoError(t, err)
	base := env.URL + appfront.Base(owner.id, "probe")

	// The owner's open link: a cookie for this app's pages only, then the app's page.
	link := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps/probe/open", Key: owner.key})
	require.Equal(t, http.StatusOK, link.Status, "%s", link.Raw)
	opened := page(t, link.Body["url"].(string), "")
	require.Equal(t, http.StatusSeeOther, opened.StatusCode)
	require.Equal(t, appfront.Base(owner.id, "probe"), opened.Header.Get("Location"))
	var ownerCookie *http.Cookie
	for _, c := range opened.Cookies() {
		if c.Name == "svc_app" {
			ownerCookie = c
		}
	}
	require.NotNil(t, ownerCookie)
	require.True(t, ownerCookie.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, ownerCookie.SameSite)
	require.Equal(t, appfront.Base(owner.id, "probe"), ownerCookie.Path)
	require.Equal(t, http.StatusNotFound, env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps/probe/open", Key: otherAcct.key}).Status,
		"another account has no app probe")

	// Private: the owner sees it; another account and anonymous viewers get not_found.
	require.Equal(t, http.StatusOK, page(t, base, ownerCookie.Value).StatusCode)
	frame := page(t, base+"frame", ownerCookie.Value)
	require.Equal(t, http.StatusOK, frame.StatusCode)
	require.Equal(t, appfront.FrameCSP, frame.Header.Get("Content-Security-Policy"))
	for _, cookie := range []string{otherCookie, ""} {
		require.Equal(t, http.StatusNotFound, page(t, base, cookie).StatusCode)
		require.Equal(t, http.StatusNotFound, page(t, base+"frame", cookie).StatusCode)
		require.Equal(t, http.StatusNotFound, frontCall(t, env, owner.id, "probe", cookie, "ctx", "{}").Status)
	}
	got := frontCall(t, env, owner.id, "probe", ownerCookie.Value, "appKV.get", `{"key": "notes"}`)
	require.Equal(t, http.StatusOK, got.Status, "%s", got.Raw)
	require.Equal(t, "owner only", got.Body["result"])
	forged := frontCall(t, env, owner.id, "probe", ownerCookie.Value+"x", "ctx", "{}")
	require.Equal(t, http.StatusUnauthorized, forged.Status, "a forged cookie")

	// Unlisted: anonymous viewers read greeting only, never write, never run.
	_, err = store.SetSharing(context.Background(), tenant.Scope{AccountID: owner.id}, "probe", apps.SharingUnlisted)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, page(t, base, "").StatusCode)
	denied := frontCall(t, env, owner.id, "probe", "", "appKV.get", `{"key": "notes"}`)
	require.Equal(t, http.StatusForbidden, denied.Status, "%s", denied.Raw)
	require.Equal(t, "key", denied.Body["error"].(map[string]any)["param"])
	require.Contains(t, denied.Body["error"].(map[string]any)["message"], "notes")
	run := frontCall(t, env, owner.id, "probe", "", "scripts.run", `{"name": "hello"}`)
	require.Equal(t, http.StatusForbidden, run.Status, "%s", run.Raw)
	unknown := frontCall(t, env, owner.id, "probe", "", "fs.read", `{}`)
	require.Equal(t, http.StatusBadRequest, unknown.Status)
	require.Equal(t, "method", unknown.Body["error"].(map[string]any)["param"])
	other := frontCall(t, env, owner.id, "probe", otherCookie, "appKV.get", `{"key": "notes"}`)
	require.Equal(t, http.StatusForbidden, other.Status, "a signed-in viewer reads publicDataKeys and its own records only")

	// The owner's x402.fetch: refused without pay:x402, naming it, before any request is made.
	pay := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps/probe/x402/fetch", Key: owner.key,
		Body: map[string]any{"url": "http://127.0.0.1:9/paid"}, Headers: map[string]string{"Idempotency-Key": "pay1"}})
	require.Equal(t, http.StatusForbidden, pay.Status, "%s", pay.Raw)
	require.Equal(t, "pay:x402", pay.Body["error"].(map[string]any)["details"].(map[string]any)["permission"])

	// The wallet: refused without read:wallet, naming it; with it, the owner's managed wallet.
	w := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/wallets", Key: owner.key, Body: map[string]any{}, Headers: map[string]string{"Idempotency-Key": "w1"}})
	require.Equal(t, http.StatusCreated, w.Status, "%s", w.Raw)
	address := w.Body["wallet"].(map[string]any)["address"]
	noPerm := frontCall(t, env, owner.id, "probe", ownerCookie.Value, "wallet", "{}")
	require.Equal(t, http.StatusForbidden, noPerm.Status, "%s", noPerm.Raw)
	require.Equal(t, "read:wallet", noPerm.Body["error"].(map[string]any)["details"].(map[string]any)["permission"])
	_, err = store.Create(context.Background(), apps.NewApp{ID: ids.New(apps.IDPrefix), Scope: tenant.Scope{AccountID: owner.id}, Files: map[string][]byte{
		"manifest.json": []byte(`{"slug": "walletapp", "permissions": ["read:wallet"]}`), "index.html": []byte("<p>w</p>")}})
	require.NoError(t, err)
	walletCookie, _, err := signer.IssueCookie(owner.id, "walletapp", owner.id)
	require.NoError(t, err)
	got = frontCall(t, env, owner.id, "walletapp", walletCookie, "wallet", "{}")
	require.Equal(t, http.StatusOK, got.Status, "%s", got.Raw)
	require.Equal(t, address, got.Body["result"].(map[string]any)["address"])
	ctx := frontCall(t, env, owner.id, "walletapp", walletCookie, "ctx", "{}")
	require.Equal(t, address, ctx.Body["result"].(map[string]any)["walletAddress"])
	require.Equal(t, http.StatusUnauthorized, frontCall(t, env, owner.id, "walletapp", ownerCookie.Value, "ctx", "{}").Status,
		"the probe's cookie does not open another app")
}
