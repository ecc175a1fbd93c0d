package api_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/appfront"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/skills"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testbrowser"
)

// publishSkill stores a public skill of owner with one resource and, when approve, approves it.
func publishSkill(t *testing.T, env *apptest.Env, owner frontOwner, name string, approve bool) {
	t.Helper()
	created := postSkillZip(t, env, owner.key, "pub-"+name, map[string]string{"SKILL.md": skillText(name, "public", "Use "+name+"."),
		"data/cities.txt": "Paris\nLima"})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	if approve {
		_, err := skills.NewStore(env.DB, nil, nil, nil, nil).Review(context.Background(), owner.id, name, true, "fine")
		require.NoError(t, err)
	}
}

// frontError is the refusal of a viewer API call: its code, param and details.
func frontError(t *testing.T, r *apptest.Response) map[string]any {
	t.Helper()
	e, ok := r.Body["error"].(map[string]any)
	require.True(t, ok, "%s", r.Raw)
	return e
}

// TestAppFrontInstallSkill: svc.installSkill({name, owner?}) from the app owner's page copies an approved
// public skill (with its resource) into the owner's account and answers {name, installed}; without owner
// the one publisher of the name is found, several are 409 naming params.owner; a pending skill is 409,
// an unknown one 404; the old {slug} param is refused by name; anonymous viewers and other signed-in
// accounts are 403 naming the rule.
func TestAppFrontInstallSkill(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newFrontOwner(t, env, "skill-app-owner")
	publisher := newFrontOwner(t, env, "skill-publisher")
	second := newFrontOwner(t, env, "skill-publisher-2")
	viewer := newFrontOwner(t, env, "skill-viewer")
	publishSkill(t, env, publisher, "weather", true)
	publishSkill(t, env, publisher, "draft", false)
	store := createProbe(t, env, owner, "probe", "http://127.0.0.1:9")
	signer := appfront.NewSigner(env.Box.Derive("app-viewer"), nil)
	ownerCookie, _, err := signer.IssueCookie(owner.id, "probe", owner.id)
	require.NoError(t, err)
	viewerCookie, _, err := signer.IssueCookie(owner.id, "probe", viewer.id)
	require.NoError(t, err)
	install := func(cookie, params string) *apptest.Response {
		t.Helper()
		return frontCall(t, env, owner.id, "probe", cookie, "installSkill", params)
	}

	got := install(ownerCookie, `{"name": "weather"}`)
	require.Equal(t, http.StatusOK, got.Status, "%s", got.Raw)
	require.Equal(t, map[string]any{"name": "weather", "installed": true}, got.Body["result"])
	copied := getRaw(t, env, owner.key, "/v1/skills/weather")
	require.Equal(t, http.StatusOK, copied.Status, "%s", copied.Raw)
	require.Equal(t, map[string]any{"owner": publisher.id, "name": "weather"}, skillOf(t, copied)["source"])
	require.Equal(t, "private", skillOf(t, copied)["visibility"])
	res := getRaw(t, env, owner.key, "/v1/skills/weather/resources/data/cities.txt")
	require.Equal(t, "Paris\nLima", string(res.Raw), "%d", res.Status)
	again := install(ownerCookie, `{"name": "weather", "owner": "`+publisher.id+`"}`)
	require.Equal(t, http.StatusOK, again.Status, "installing the same skill again refreshes the copy: %s", again.Raw)

	publishSkill(t, env, second, "weather", true)
	ambiguous := install(ownerCookie, `{"name": "weather"}`)
	require.Equal(t, http.StatusConflict, ambiguous.Status, "%s", ambiguous.Raw)
	require.Equal(t, "params.owner", frontError(t, ambiguous)["param"])
	require.Contains(t, frontError(t, ambiguous)["message"], second.id)

	pending := install(ownerCookie, `{"name": "draft", "owner": "`+publisher.id+`"}`)
	require.Equal(t, http.StatusConflict, pending.Status, "%s", pending.Raw)
	require.Contains(t, frontError(t, pending)["message"], "pending_review")
	require.Equal(t, http.StatusNotFound, install(ownerCookie, `{"name": "nowhere"}`).Status)
	bad := install(ownerCookie, `{"name": "Not A Name"}`)
	require.Equal(t, http.StatusBadRequest, bad.Status, "%s", bad.Raw)
	require.Equal(t, "params.name", frontError(t, bad)["param"])
	old := install(ownerCookie, `{"slug": "weather"}`)
	require.Equal(t, http.StatusBadRequest, old.Status, "%s", old.Raw)
	require.Equal(t, "params.slug", frontError(t, old)["param"])
	missing := install(ownerCookie, `{}`)
	require.Equal(t, "params.name", frontError(t, missing)["param"])

	_, err = store.SetSharing(context.Background(), tenant.Scope{AccountID: owner.id}, "probe", apps.SharingUnlisted)
	require.NoError(t, err)
	for cookie, rule := range map[string]string{"": "anonymous", viewerCookie: "owner"} {
		denied := install(cookie, `{"name": "weather", "owner": "`+publisher.id+`"}`)
		require.Equal(t, http.StatusForbidden, denied.Status, "%s", denied.Raw)
		require.Equal(t, rule, frontError(t, denied)["details"].(map[string]any)["rule"])
	}
	require.Equal(t, http.StatusNotFound, getRaw(t, env, viewer.key, "/v1/skills/weather").Status, "nothing was installed for the viewer")
}

// skillPage is an app page that installs skills through the SDK both ways and reports the answers.
const skillPage = `<!doctype html><html><body><script>
function settle(p) {
  return p.then(function (v) { return { ok: true, value: v }; },
    function (e) { return { ok: false, status: e.status, param: e.param }; });
}
svc.on('ready', async function () {
  var r = {};
  r.positional = await settle(svc.installSkill('weather', 'PUBLISHER'));
  r.object = await settle(svc.installSkill({ name: 'weather' }));
  r.badType = await settle(svc.installSkill({ name: 5 }));
  await svc.setContext({ results: r });
});
</script></body></html>`

// TestAppFrontInstallSkillInBrowser: in headless Chromium, the owner's page calls
// svc.installSkill(name, owner) and svc.installSkill({name}); both install, and a param of the wrong
// type is refused by the host page naming it.
func TestAppFrontInstallSkillInBrowser(t *testing.T) {
	bin := testbrowser.Require(t, "the installSkill browser test opens an app")
	env := apptest.New(t)
	owner := newFrontOwner(t, env, "skill-browser-owner")
	publisher := newFrontOwner(t, env, "skill-browser-publisher")
	publishSkill(t, env, publisher, "weather", true)
	store := apps.NewStore(env.DB, file.NewStore(env.DB, file.Options{}), blob.WithPrefix(env.Blobs, app.FilePrefix), nil, nil)
	_, err := store.Create(context.Background(), apps.NewApp{ID: ids.New(apps.IDPrefix), Scope: tenant.Scope{AccountID: owner.id},
		Files: map[string][]byte{"manifest.json": []byte(`{"slug": "skillapp", "title": "Skills"}`),
			"index.html": []byte(strings.Replace(skillPage, "PUBLISHER", publisher.id, 1))}})
	require.NoError(t, err)

	link := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps/skillapp/open", Key: owner.key})
	require.Equal(t, http.StatusOK, link.Status, "%s", link.Raw)
	dom := testbrowser.DumpDOM(t, bin, link.Body["url"].(string), browserBudget)
	m := contextPre.FindStringSubmatch(dom)
	require.NotNil(t, m, "the app reported to its host page; the host page's DOM:\n%s", dom)
	var out struct {
		Results map[string]map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(m[1])), &out), m[1])
	installed := map[string]any{"name": "weather", "installed": true}
	require.Equal(t, map[string]any{"ok": true, "value": installed}, out.Results["positional"])
	require.Equal(t, map[string]any{"ok": true, "value": installed}, out.Results["object"])
	require.Equal(t, false, out.Results["badType"]["ok"])
	require.Equal(t, "params.name", out.Results["badType"]["param"])
	copied := getRaw(t, env, owner.key, "/v1/skills/weather")
	require.Equal(t, http.StatusOK, copied.Status, "%s", copied.Raw)
}
