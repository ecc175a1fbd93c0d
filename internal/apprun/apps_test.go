package apprun_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/apprun"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/appscript"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// TestRunWithTheAppsStore: a script of an app stored by the apps capability writes appKV (a file of the
// app's folder) and reads it back; the owner reads the value through the store, the run lists newest
// first, and another account's scope finds neither the app nor the run.
func TestRunWithTheAppsStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	for _, id := range []string{account, "acct_other"} {
		_, err := db.NewInsert().Model(&schema.Account{ID: id, Name: id}).Exec(ctx)
		require.NoError(t, err)
	}
	store := apps.NewStore(db, file.NewStore(db, file.Options{}), blob.NewLocal(t.TempDir()), nil, nil)
	owner := tenant.Scope{AccountID: account}
	_, err := store.Create(ctx, apps.NewApp{ID: ids.New("app"), Scope: owner, Files: map[string][]byte{
		"manifest.json":   []byte(`{"slug":"hello","permissions":["read:appdata","write:appdata"],"scripts":["main"]}`),
		"index.html":      []byte(`<p>hello</p>`),
		"scripts/main.ts": []byte(`await appKV.set("greeting", {text: "hi " + args.name}); return await appKV.get("greeting");`),
	}})
	require.NoError(t, err)
	appsAdapter := apprun.AppsStore{Store: store}
	runner := &apprun.Runner{DB: db, Engine: apprun.ScriptEngine{Engine: appscript.New(appscript.DefaultLimits())},
		Host: apprun.HostDeps{Apps: appsAdapter}}
	app, err := appsAdapter.App(ctx, owner, "hello")
	require.NoError(t, err)
	id := ids.New(ids.AppScriptRun)
	_, err = db.NewInsert().Model(&schema.AppScriptRun{ID: id, AccountID: account, AppID: app.ID, AppSlug: "hello", Script: "main",
		Trigger: schema.AppRunByOwner, KeyID: "key_x", Status: schema.AppRunQueued, Args: json.RawMessage(`{"name":"ann"}`)}).Exec(ctx)
	require.NoError(t, err)

	out, err := runner.Run(ctx, id)
	require.NoError(t, err)
	require.Equal(t, schema.AppRunSucceeded, out.Status, out.Error)
	a, err := store.Get(ctx, owner, "hello")
	require.NoError(t, err)
	stored, err := store.KVGet(ctx, a, apps.Viewer{AccountID: account, Owner: true}, "greeting")
	require.NoError(t, err)
	require.JSONEq(t, `{"text":"hi ann"}`, string(stored))

	svc := &apprun.Service{DB: db, Apps: appsAdapter}
	pg, err := page.Parse(0, "")
	require.NoError(t, err)
	runs, _, err := svc.List(ctx, owner, "hello", pg)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.JSONEq(t, `{"text":"hi ann"}`, string(runs[0].Result))

	other := tenant.Scope{AccountID: "acct_other"}
	_, _, err = svc.Get(ctx, other, "hello", id)
	require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
	_, err = appsAdapter.App(ctx, other, "hello")
	require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
}
