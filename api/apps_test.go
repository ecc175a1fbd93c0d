package api_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/svcerr"
)

// appFolder is a valid app folder by path.
func appFolder(slug string) map[string]string {
	return map[string]string{
		"manifest.json": `{"slug":"` + slug + `","title":"T","permissions":["read:wallet","write:appdata"],"scripts":["main"],` +
			`"schedule":[{"script":"main","cron":"*/5 * * * *","enabled":true}],"publicDataKeys":["greeting"]}`,
		"index.html":         "<!doctype html><p>hi</p>",
		"scripts/main.ts":    "const x: number = 1;\nreturn x;\n",
		"data/greeting.json": `{"text":"hello"}`,
	}
}

// zipOf zips files by path.
func zipOf(t *testing.T, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for p, content := range files {
		w, err := zw.Create(p)
		require.NoError(t, err)
		_, err = w.Write([]byte(content))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.String()
}

// createJSONApp posts the JSON form of an app folder.
func createJSONApp(t *testing.T, env *apptest.Env, key, idem string, files map[string]string) *apptest.Response {
	t.Helper()
	rest := map[string]string{}
	for p, c := range files {
		if p != "manifest.json" {
			rest[p] = c
		}
	}
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps", Key: key,
		Body:    map[string]any{"manifest": json.RawMessage(files["manifest.json"]), "files": rest},
		Headers: map[string]string{"Idempotency-Key": idem}})
}

func appFiles(t *testing.T, resp *apptest.Response) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, f := range resp.Body["app"].(map[string]any)["files"].([]any) {
		out[f.(map[string]any)["path"].(string)] = true
	}
	return out
}

// appFileRows counts the live files of the account's app folder slug.
func appFileRows(t *testing.T, env *apptest.Env, accountID, slug string) int {
	t.Helper()
	n, err := env.DB.NewSelect().Table("files").Where("account_id = ? AND purpose = ? AND status = 'active'", accountID, apps.Purpose(slug)).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

// TestAppsCreateReadShareDelete: JSON and ZIP creates, a duplicate slug 409, another account's app 404,
// sharing and the public directory, a manifest rewrite re-validated, and a delete that removes files
// and records.
func TestAppsCreateReadShareDelete(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)

	created := createJSONApp(t, env, owner.secret, "c1", appFolder("notes"))
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	got := created.Body["app"].(map[string]any)
	require.Equal(t, "private", got["sharing"])
	require.Equal(t, map[string]bool{"manifest.json": true, "index.html": true, "scripts/main.ts": true, "data/greeting.json": true}, appFiles(t, created))

	zipped := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps", Key: owner.secret, Body: zipOf(t, appFolder("zipped")),
		Headers: map[string]string{"Idempotency-Key": "c2", "Content-Type": "application/zip"}})
	require.Equal(t, http.StatusCreated, zipped.Status, "%s", zipped.Raw)
	require.Len(t, appFiles(t, zipped), 4)

	dup := createJSONApp(t, env, owner.secret, "c3", appFolder("notes"))
	require.Equal(t, http.StatusConflict, dup.Status, "%s", dup.Raw)
	require.Equal(t, "slug", dup.Body["error"].(map[string]any)["param"])

	other := newArtifactAccount(t, env)
	for _, r := range []apptest.Req{
		{Method: http.MethodGet, Path: "/v1/apps/notes"},
		{Method: http.MethodGet, Path: "/v1/apps/notes/kv/greeting"},
		{Method: http.MethodPatch, Path: "/v1/apps/notes", Body: map[string]any{"sharing": "public"}, Headers: map[string]string{"Idempotency-Key": "x1"}},
		{Method: http.MethodDelete, Path: "/v1/apps/notes", Headers: map[string]string{"Idempotency-Key": "x2"}},
	} {
		r.Key = other.secret
		resp := env.Do(t, r)
		require.Equal(t, http.StatusNotFound, resp.Status, "%s %s: %s", r.Method, r.Path, resp.Raw)
	}
	// The other account may use the same slug: slugs are unique within an account.
	mine := createJSONApp(t, env, other.secret, "o1", appFolder("notes"))
	require.Equal(t, http.StatusCreated, mine.Status, "%s", mine.Raw)

	list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps", Key: owner.secret})
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	require.Len(t, list.Body["apps"], 2)

	dir := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/public"})
	require.Equal(t, http.StatusOK, dir.Status, "%s", dir.Raw)
	require.Empty(t, dir.Body["apps"], "private apps are not in the directory")
	shared := env.Do(t, apptest.Req{Method: http.MethodPatch, Path: "/v1/apps/notes", Key: owner.secret,
		Body: map[string]any{"sharing": "public"}, Headers: map[string]string{"Idempotency-Key": "s1"}})
	require.Equal(t, http.StatusOK, shared.Status, "%s", shared.Raw)
	require.Equal(t, "public", shared.Body["app"].(map[string]any)["sharing"])
	bad := env.Do(t, apptest.Req{Method: http.MethodPatch, Path: "/v1/apps/notes", Key: owner.secret,
		Body: map[string]any{"sharing": "everyone"}, Headers: map[string]string{"Idempotency-Key": "s2"}})
	require.Equal(t, http.StatusBadRequest, bad.Status, "%s", bad.Raw)
	dir = env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/public"})
	require.Len(t, dir.Body["apps"], 1)
	entry := dir.Body["apps"].([]any)[0].(map[string]any)
	require.Equal(t, "notes", entry["slug"])
	require.Equal(t, owner.accountID, entry["owner"])

	// A manifest rewrite is validated against the folder: a script without its file is refused.
	put := func(path, body string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPut, Path: "/v1/apps/notes/files/" + path, Key: owner.secret, Body: body,
			Headers: map[string]string{"Content-Type": "application/octet-stream"}})
	}
	refused := put("manifest.json", `{"slug":"notes","scripts":["main","missing"]}`)
	require.Equal(t, http.StatusBadRequest, refused.Status, "%s", refused.Raw)
	require.Equal(t, "scripts[1]", refused.Body["error"].(map[string]any)["param"])
	require.Equal(t, http.StatusOK, put("scripts/missing.ts", "return 2;").Status)
	accepted := put("manifest.json", `{"slug":"notes","scripts":["main","missing"]}`)
	require.Equal(t, http.StatusOK, accepted.Status, "%s", accepted.Raw)
	require.Equal(t, []any{"main", "missing"}, accepted.Body["app"].(map[string]any)["manifest"].(map[string]any)["scripts"])
	require.Equal(t, http.StatusBadRequest, put("other.txt", "x").Status)
	require.Equal(t, 5, appFileRows(t, env, owner.accountID, "notes"), "a rewrite replaces the manifest's file")

	store := appStore(env)
	src, err := store.ScriptSource(context.Background(), tenantScope(owner.accountID), "notes", "missing")
	require.NoError(t, err)
	require.Equal(t, "return 2;", src)

	// Delete: the row, the files and the records go.
	set := env.Do(t, apptest.Req{Method: http.MethodPut, Path: "/v1/apps/notes/kv/record:mine", Key: owner.secret, Body: map[string]any{"value": 1}})
	require.Equal(t, http.StatusOK, set.Status, "%s", set.Raw)
	del := env.Do(t, apptest.Req{Method: http.MethodDelete, Path: "/v1/apps/notes", Key: owner.secret, Headers: map[string]string{"Idempotency-Key": "d1"}})
	require.Equal(t, http.StatusOK, del.Status, "%s", del.Raw)
	require.Equal(t, http.StatusNotFound, env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/notes", Key: owner.secret}).Status)
	require.Zero(t, appFileRows(t, env, owner.accountID, "notes"))
	n, err := env.DB.NewSelect().Table("app_records").Count(context.Background())
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestAppsCreateRefusals: a bad folder is refused naming the field, and nothing is stored.
func TestAppsCreateRefusals(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)
	cases := []struct {
		name   string
		change func(f map[string]string)
		param  string
	}{
		{"permission", func(f map[string]string) { f["manifest.json"] = `{"slug":"bad","permissions":["read:all"]}` }, "permissions[0]"},
		{"script file missing", func(f map[string]string) { delete(f, "scripts/main.ts") }, "scripts[0]"},
		{"cron", func(f map[string]string) {
			f["manifest.json"] = `{"slug":"bad","scripts":["main"],"schedule":[{"script":"main","cron":"nope","enabled":true}]}`
		}, "schedule[0].cron"},
		{"unknown field", func(f map[string]string) { f["manifest.json"] = `{"slug":"bad","extra":1}` }, "extra"},
		{"x402", func(f map[string]string) { f["manifest.json"] = `{"slug":"bad","permissions":["pay:x402"]}` }, "x402"},
		{"path", func(f map[string]string) { f["../evil.ts"] = "x" }, "files[../evil.ts]"},
		{"data not json", func(f map[string]string) { f["data/x.json"] = "{nope" }, "files[data/x.json]"},
		{"index missing", func(f map[string]string) { delete(f, "index.html") }, "files[index.html]"},
	}
	for i, c := range cases {
		f := appFolder("bad")
		c.change(f)
		resp := createJSONApp(t, env, owner.secret, "r"+string(rune('a'+i)), f)
		require.Equal(t, http.StatusBadRequest, resp.Status, "%s: %s", c.name, resp.Raw)
		require.Equal(t, c.param, resp.Body["error"].(map[string]any)["param"], "%s: %s", c.name, resp.Raw)
		zipped := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps", Key: owner.secret, Body: zipOf(t, f),
			Headers: map[string]string{"Idempotency-Key": "z" + string(rune('a'+i)), "Content-Type": "application/zip"}})
		require.Equal(t, http.StatusBadRequest, zipped.Status, "%s (zip): %s", c.name, zipped.Raw)
	}
	notZip := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps", Key: owner.secret, Body: "not a zip",
		Headers: map[string]string{"Idempotency-Key": "nz", "Content-Type": "application/zip"}})
	require.Equal(t, http.StatusBadRequest, notZip.Status, "%s", notZip.Raw)
	text := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps", Key: owner.secret, Body: "x",
		Headers: map[string]string{"Idempotency-Key": "tx", "Content-Type": "text/plain"}})
	require.Equal(t, http.StatusUnsupportedMediaType, text.Status, "%s", text.Raw)

	require.Zero(t, appFileRows(t, env, owner.accountID, "bad"), "a refused app stores no file")
	n, err := env.DB.NewSelect().Table("apps").Count(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "a refused app stores no row")
}

// TestAppsKV: plain keys are files data/<key>.json, record: keys rows of the record store per viewer;
// anonymous viewers read only publicDataKeys (403 naming another key), never record: keys, never write.
func TestAppsKV(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)
	require.Equal(t, http.StatusCreated, createJSONApp(t, env, owner.secret, "c", appFolder("kv")).Status)
	kv := func(method, key string, body any) *apptest.Response {
		return env.Do(t, apptest.Req{Method: method, Path: "/v1/apps/kv/kv/" + key, Key: owner.secret, Body: body,
			Headers: map[string]string{"Idempotency-Key": method + key}})
	}
	got := kv(http.MethodGet, "greeting", nil)
	require.Equal(t, http.StatusOK, got.Status, "%s", got.Raw)
	require.Equal(t, map[string]any{"text": "hello"}, got.Body["value"], "data/greeting.json of the folder is the key greeting")
	require.Equal(t, http.StatusOK, kv(http.MethodPut, "secret", map[string]any{"value": map[string]any{"n": 42}}).Status)
	require.Equal(t, http.StatusOK, kv(http.MethodPut, "record:score", map[string]any{"value": 7}).Status)
	require.Equal(t, http.StatusNotFound, kv(http.MethodGet, "absent", nil).Status)
	require.Equal(t, http.StatusBadRequest, kv(http.MethodPut, "a..b", map[string]any{"value": 1}).Status)
	keys := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/kv/kv", Key: owner.secret})
	require.Equal(t, []any{"greeting", "record:score", "secret"}, keys.Body["keys"])
	require.Equal(t, 5, appFileRows(t, env, owner.accountID, "kv"), "a plain key is a file of the folder")
	var value string
	require.NoError(t, env.DB.NewRaw("SELECT value::text FROM app_records WHERE key = 'record:score'").Scan(context.Background(), &value))
	require.Equal(t, "7", value)

	// Viewers, through the store (the frontend's routes come later).
	ctx := context.Background()
	store := appStore(env)
	a, err := store.Get(ctx, tenantScope(owner.accountID), "kv")
	require.NoError(t, err)
	anon := apps.Viewer{Anonymous: true}
	_, err = store.KVGet(ctx, a, anon, "greeting")
	require.True(t, svcerr.Is(err, svcerr.NotFound), "a private app is not found: %v", err)
	a, err = store.SetSharing(ctx, tenantScope(owner.accountID), "kv", apps.SharingUnlisted)
	require.NoError(t, err)
	v, err := store.KVGet(ctx, a, anon, "greeting")
	require.NoError(t, err)
	require.JSONEq(t, `{"text":"hello"}`, string(v))
	_, err = store.KVGet(ctx, a, anon, "secret")
	requireForbiddenKey(t, err, "secret")
	_, err = store.KVGet(ctx, a, anon, "record:score")
	requireForbiddenKey(t, err, "record:score")
	requireForbiddenKey(t, store.KVSet(ctx, a, anon, "greeting", json.RawMessage(`1`)), "greeting")
	listed, err := store.KVList(ctx, a, anon)
	require.NoError(t, err)
	require.Equal(t, []string{"greeting"}, listed)

	other := newArtifactAccount(t, env)
	viewer := apps.Viewer{AccountID: other.accountID}
	_, err = store.KVGet(ctx, a, viewer, "record:score")
	require.True(t, svcerr.Is(err, svcerr.NotFound), "a viewer's records are their own: %v", err)
	require.NoError(t, store.KVSet(ctx, a, viewer, "record:score", json.RawMessage(`99`)))
	mineV, err := store.KVGet(ctx, a, viewer, "record:score")
	require.NoError(t, err)
	require.Equal(t, "99", string(mineV))
	ownerV := kv(http.MethodGet, "record:score", nil)
	require.Equal(t, float64(7), ownerV.Body["value"], "the owner's record is untouched")

	require.Equal(t, http.StatusOK, kv(http.MethodDelete, "secret", nil).Status)
	require.Equal(t, http.StatusNotFound, kv(http.MethodGet, "secret", nil).Status)
}

func requireForbiddenKey(t *testing.T, err error, key string) {
	t.Helper()
	se, ok := svcerr.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, http.StatusForbidden, svcerr.Status(se.Code), "%v", err)
	require.Equal(t, key, se.Details["key"], "%v", err)
	require.Contains(t, se.Message, key)
}

// TestAppsExampleFolder: the example app of examples/apps/hello is valid.
func TestAppsExampleFolder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "examples", "apps", "hello")
	files := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	}))
	m, err := apps.NewApp{Files: files}.Validate()
	require.NoError(t, err)
	require.Equal(t, "hello", m.Slug)
}

func appStore(env *apptest.Env) *apps.Store {
	return apps.NewStore(env.DB, file.NewStore(env.DB, file.Options{}), blob.WithPrefix(env.Blobs, app.FilePrefix), nil, nil)
}
