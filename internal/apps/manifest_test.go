package apps_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/svcerr"
)

// valid is a manifest passing every rule; each case of TestManifestRules breaks one.
func valid() map[string]any {
	return map[string]any{
		"slug": "hello", "title": "Hello", "description": "An example", "tags": []any{"demo"},
		"permissions": []any{"read:wallet", "write:appdata", "pay:x402", "fetch:x402"},
		"scripts":     []any{"main"},
		"schedule":    []any{map[string]any{"script": "main", "cron": "0 * * * *", "enabled": true}},
		"secrets":     []any{"OPENAI_API_KEY"}, "publicDataKeys": []any{"greeting"}, "frontendIdentity": "viewer",
		"x402": map[string]any{"maxPaymentUsdPerCall": 0.5, "allowedHosts": []any{"api.example.com", "127.0.0.1:8080"}},
	}
}

func encode(t *testing.T, m map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func TestManifestValid(t *testing.T) {
	m, err := apps.ParseManifest(encode(t, valid()))
	require.NoError(t, err)
	require.Equal(t, "hello", m.Slug)
	require.Equal(t, []apps.ScheduleEntry{{Script: "main", Cron: "0 * * * *", Enabled: true}}, m.Schedule)
	require.InDelta(t, 0.5, m.X402.MaxPaymentUsdPerCall, 1e-9)

	bare, err := apps.ParseManifest([]byte(`{"slug":"a"}`))
	require.NoError(t, err)
	require.Equal(t, apps.IdentityOwner, bare.FrontendIdentity, "frontendIdentity defaults to owner")
	require.Len(t, apps.Permissions, 18)
}

// TestManifestRules: every rule of the manifest is refused with a 400 naming its field.
func TestManifestRules(t *testing.T) {
	cases := []struct {
		name   string
		change func(m map[string]any)
		param  string
	}{
		{"slug upper case", func(m map[string]any) { m["slug"] = "Hello" }, "slug"},
		{"slug with slash", func(m map[string]any) { m["slug"] = "a/b" }, "slug"},
		{"slug empty", func(m map[string]any) { m["slug"] = "" }, "slug"},
		{"slug too long", func(m map[string]any) { m["slug"] = strings.Repeat("a", 65) }, "slug"},
		{"slug trailing hyphen", func(m map[string]any) { m["slug"] = "a-" }, "slug"},
		{"slug reserved", func(m map[string]any) { m["slug"] = "public" }, "slug"},
		{"slug missing", func(m map[string]any) { delete(m, "slug") }, "slug"},
		{"unknown field", func(m map[string]any) { m["colour"] = "red" }, "colour"},
		{"unknown schedule field", func(m map[string]any) {
			m["schedule"] = []any{map[string]any{"script": "main", "cron": "0 * * * *", "enabled": true, "tz": "UTC"}}
		}, "schedule[0].tz"},
		{"unknown x402 field", func(m map[string]any) {
			m["x402"] = map[string]any{"maxPaymentUsdPerCall": 1, "allowedHosts": []any{"a.com"}, "network": "base"}
		}, "x402.network"},
		{"tags wrong type", func(m map[string]any) { m["tags"] = "demo" }, "tags"},
		{"tag invalid", func(m map[string]any) { m["tags"] = []any{"Has Space"} }, "tags[0]"},
		{"permission unknown", func(m map[string]any) { m["permissions"] = []any{"read:wallet", "read:everything"} }, "permissions[1]"},
		{"permission case", func(m map[string]any) { m["permissions"] = []any{"READ:WALLET"} }, "permissions[0]"},
		{"permission twice", func(m map[string]any) { m["permissions"] = []any{"read:wallet", "read:wallet"} }, "permissions[1]"},
		{"script name", func(m map[string]any) { m["scripts"] = []any{"main.ts"} }, "scripts[0]"},
		{"schedule unknown script", func(m map[string]any) {
			m["schedule"] = []any{map[string]any{"script": "other", "cron": "0 * * * *", "enabled": true}}
		}, "schedule[0].script"},
		{"schedule cron fields", func(m map[string]any) {
			m["schedule"] = []any{map[string]any{"script": "main", "cron": "0 * * *", "enabled": true}}
		}, "schedule[0].cron"},
		{"schedule cron seconds", func(m map[string]any) {
			m["schedule"] = []any{map[string]any{"script": "main", "cron": "0 0 * * * *", "enabled": true}}
		}, "schedule[0].cron"},
		{"schedule cron invalid", func(m map[string]any) {
			m["schedule"] = []any{map[string]any{"script": "main", "cron": "61 * * * *", "enabled": true}}
		}, "schedule[0].cron"},
		{"secret name", func(m map[string]any) { m["secrets"] = []any{"lower"} }, "secrets[0]"},
		{"secret reserved", func(m map[string]any) { m["secrets"] = []any{"SVC_TOKEN"} }, "secrets[0]"},
		{"public key record", func(m map[string]any) { m["publicDataKeys"] = []any{"record:score"} }, "publicDataKeys[0]"},
		{"public key path", func(m map[string]any) { m["publicDataKeys"] = []any{"a/b"} }, "publicDataKeys[0]"},
		{"identity", func(m map[string]any) { m["frontendIdentity"] = "admin" }, "frontendIdentity"},
		{"x402 missing with pay:x402", func(m map[string]any) { delete(m, "x402") }, "x402"},
		{"x402 without pay:x402", func(m map[string]any) { m["permissions"] = []any{"fetch:x402"} }, "x402"},
		{"x402 max zero", func(m map[string]any) {
			m["x402"] = map[string]any{"maxPaymentUsdPerCall": 0, "allowedHosts": []any{"a.com"}}
		}, "x402.maxPaymentUsdPerCall"},
		{"x402 hosts empty", func(m map[string]any) {
			m["x402"] = map[string]any{"maxPaymentUsdPerCall": 1, "allowedHosts": []any{}}
		}, "x402.allowedHosts"},
		{"x402 host url", func(m map[string]any) {
			m["x402"] = map[string]any{"maxPaymentUsdPerCall": 1, "allowedHosts": []any{"https://a.com/pay"}}
		}, "x402.allowedHosts[0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := maps.Clone(valid())
			c.change(m)
			_, err := apps.ParseManifest(encode(t, m))
			require.Error(t, err)
			se, ok := svcerr.As(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, http.StatusBadRequest, svcerr.Status(se.Code), "%v", err)
			require.Equal(t, c.param, se.Param, "%v", err)
		})
	}
}

// TestManifestStrictJSON: what encoding/json lets through is refused.
func TestManifestStrictJSON(t *testing.T) {
	for doc, param := range map[string]string{
		`{"slug":"a","slug":"b"}`: "slug",
		`["slug"]`:                "manifest",
		`{"slug":"a"} {}`:         "manifest",
	} {
		_, err := apps.ParseManifest([]byte(doc))
		se, ok := svcerr.As(err)
		require.True(t, ok, "%s: %v", doc, err)
		require.Equal(t, param, se.Param, "%s: %v", doc, err)
	}
}

// TestKeysAndPaths: appKV keys and app paths.
func TestKeysAndPaths(t *testing.T) {
	for _, k := range []string{"greeting", "a.b", "record:score", "x:y-z_1"} {
		require.NoError(t, apps.ValidateKey("key", k), k)
	}
	for _, k := range []string{"", "a/b", ".hidden", "a..b", "record:", strings.Repeat("k", 129), "sp ace"} {
		require.Error(t, apps.ValidateKey("key", k), k)
	}
	for _, p := range []string{"manifest.json", "index.html", "scripts/main.ts", "data/greeting.json", "designs/mock.png"} {
		require.NoError(t, apps.ValidatePath("path", p), p)
	}
	for _, p := range []string{"other.txt", "scripts/main.js", "scripts/../x.ts", "data/record:x.json", "designs/a/b.png", "designs/.x", "/manifest.json"} {
		require.Error(t, apps.ValidatePath("path", p), p)
	}
}

// TestAccessRules: CanRead and CanWrite by viewer.
func TestAccessRules(t *testing.T) {
	a := &apps.App{AccountID: "acct_owner", Slug: "hello", Sharing: apps.SharingPublic,
		Manifest: apps.Manifest{Slug: "hello", PublicDataKeys: []string{"greeting"}}}
	owner := apps.Viewer{AccountID: "acct_owner", Owner: true}
	viewer := apps.Viewer{AccountID: "acct_viewer"}
	anon := apps.Viewer{Anonymous: true}
	forbidden := func(err error) {
		t.Helper()
		se, ok := svcerr.As(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, http.StatusForbidden, svcerr.Status(se.Code), "%v", err)
		require.Equal(t, "key", se.Param)
	}
	for _, k := range []string{"greeting", "secret", "record:mine"} {
		require.NoError(t, apps.CanRead(a, owner, k))
		require.NoError(t, apps.CanWrite(a, owner, k))
	}
	require.NoError(t, apps.CanRead(a, anon, "greeting"))
	forbidden(apps.CanRead(a, anon, "secret"))
	require.Contains(t, apps.CanRead(a, anon, "secret").Error(), "secret", "the refusal names the key")
	forbidden(apps.CanRead(a, anon, "record:mine"))
	forbidden(apps.CanWrite(a, anon, "greeting"))
	require.NoError(t, apps.CanRead(a, viewer, "record:mine"))
	require.NoError(t, apps.CanWrite(a, viewer, "record:mine"))
	forbidden(apps.CanRead(a, viewer, "secret"))
	forbidden(apps.CanWrite(a, viewer, "greeting"))

	a.Sharing = apps.SharingPrivate
	for _, v := range []apps.Viewer{viewer, anon, {AccountID: "acct_viewer", Owner: true}} {
		require.True(t, svcerr.Is(apps.CanRead(a, v, "greeting"), svcerr.NotFound), "a private app is not found: %+v", v)
	}
}
