package apprun_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/apprun"
	"github.com/svcplatform/svc/internal/appscript"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// memApps stands in for the apps capability (internal/apps, merged separately): one app of one account,
// its scripts by name and its plain appKV keys. It counts writes, so a test sees each happen once.
type memApps struct {
	mu      sync.Mutex
	app     apprun.App
	scripts map[string]string
	kv      map[string]json.RawMessage
	writes  int
}

func (m *memApps) App(_ context.Context, scope tenant.Scope, slug string) (*apprun.App, error) {
	if scope.AccountID != m.app.Scope.AccountID || slug != m.app.Slug {
		return nil, svcerr.NotFoundf("app %s not found", slug)
	}
	a := m.app
	return &a, nil
}

func (m *memApps) Script(_ context.Context, _ *apprun.App, name string) (string, error) {
	src, ok := m.scripts[name]
	if !ok {
		return "", fmt.Errorf("no script %s", name)
	}
	return src, nil
}

func (m *memApps) KV(_ context.Context, _ *apprun.App, _ apprun.Viewer, op string, args []json.RawMessage) (json.RawMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var key string
	if len(args) > 0 {
		_ = json.Unmarshal(args[0], &key)
	}
	switch op {
	case "get":
		if v, ok := m.kv[key]; ok {
			return v, nil
		}
		return json.RawMessage(`null`), nil
	case "set":
		m.writes++
		m.kv[key] = args[1]
		return json.RawMessage(`true`), nil
	}
	return nil, fmt.Errorf("appKV.%s is not supported here", op)
}

type fixture struct {
	db     *bun.DB
	apps   *memApps
	runner *apprun.Runner
}

const account = "acct_apprun"

func newFixture(t *testing.T, perms []string, scripts map[string]string) *fixture {
	t.Helper()
	db := testdb.New(t)
	_, err := db.NewInsert().Model(&schema.Account{ID: account, Name: "apprun"}).Exec(context.Background())
	require.NoError(t, err)
	names := make([]string, 0, len(scripts))
	for n := range scripts {
		names = append(names, n)
	}
	apps := &memApps{app: apprun.App{ID: "app_1", Slug: "hello", Scope: tenant.Scope{AccountID: account}, Permissions: perms, Scripts: names},
		scripts: scripts, kv: map[string]json.RawMessage{}}
	lim := appscript.DefaultLimits()
	lim.CPUTime = 300 * time.Millisecond
	r := &apprun.Runner{DB: db, Engine: apprun.ScriptEngine{Engine: appscript.New(lim)}, Host: apprun.HostDeps{Apps: apps}}
	return &fixture{db: db, apps: apps, runner: r}
}

// queue records a queued run of script, as Service.Start does.
func (f *fixture) queue(t *testing.T, script string) string {
	t.Helper()
	id := ids.New(ids.AppScriptRun)
	_, err := f.db.NewInsert().Model(&schema.AppScriptRun{ID: id, AccountID: account, AppID: "app_1", AppSlug: "hello", Script: script,
		Trigger: schema.AppRunByOwner, KeyID: "key_x", Status: schema.AppRunQueued, Args: json.RawMessage(`{"n":2}`)}).Exec(context.Background())
	require.NoError(t, err)
	return id
}

func (f *fixture) row(t *testing.T, id string) *schema.AppScriptRun {
	t.Helper()
	row := new(schema.AppScriptRun)
	require.NoError(t, f.db.NewSelect().Model(row).Where("id = ?", id).Scan(context.Background()))
	return row
}

// TestRunSetsReadsAppKVAndRecords: a script writes and reads appKV, logs and returns; the run records
// the result, log and host calls, and running it again (a retried activity) changes nothing.
func TestRunSetsReadsAppKVAndRecords(t *testing.T) {
	t.Parallel()
	f := newFixture(t, []string{"read:appdata", "write:appdata"}, map[string]string{"main": `
const n: number = args.n;
await appKV.set("count", n + 1);
const v = await appKV.get("count");
log("count is", v, "in", ctx.slug);
return { v };`})
	ctx := context.Background()
	id := f.queue(t, "main")
	out, err := f.runner.Run(ctx, id)
	require.NoError(t, err)
	require.Equal(t, schema.AppRunSucceeded, out.Status, out.Error)
	row := f.row(t, id)
	require.JSONEq(t, `{"v":3}`, string(row.Result))
	require.Contains(t, row.Log, "count is 3 in hello")
	require.Equal(t, 2, row.HostCalls)
	require.NotNil(t, row.FinishedAt)

	again, err := f.runner.Run(ctx, id)
	require.NoError(t, err)
	require.Equal(t, out, again)
	require.Equal(t, 1, f.apps.writes, "a finished run is not run again")
}

// TestRetriedRunRepeatsNoWrite: an attempt that died after its appKV write (the row still running)
// is retried; the write is answered from the journal and happens once.
func TestRetriedRunRepeatsNoWrite(t *testing.T) {
	t.Parallel()
	f := newFixture(t, []string{"read:appdata", "write:appdata"}, map[string]string{"count": `
const before = (await appKV.get("hits")) ?? 0;
await appKV.set("hits", before + 1);
return before + 1;`})
	ctx := context.Background()
	id := f.queue(t, "count")
	dying, cancel := context.WithCancel(ctx)
	stored := 0
	f.runner.AfterJournal = func(context.Context) { // the worker dies right after the write (call 2)
		if stored++; stored == 2 {
			cancel()
		}
	}
	_, _ = f.runner.Run(dying, id)
	require.Equal(t, 1, f.apps.writes)
	require.Equal(t, schema.AppRunRunning, f.row(t, id).Status)

	f.runner.AfterJournal = nil
	out, err := f.runner.Run(ctx, id)
	require.NoError(t, err)
	require.Equal(t, schema.AppRunSucceeded, out.Status, out.Error)
	require.Equal(t, 1, f.apps.writes, "the retry was answered from the journal")
	require.JSONEq(t, `1`, string(f.row(t, id).Result))
}

// TestRunRefusedPermissionFailsNamingIt: an undeclared permission fails the run with an error naming
// it, and event app.script.failed is recorded once.
func TestRunRefusedPermissionFailsNamingIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t, []string{"read:appdata"}, map[string]string{"main": `await appKV.set("k", 1); return 1;`})
	ctx := context.Background()
	id := f.queue(t, "main")
	out, err := f.runner.Run(ctx, id)
	require.NoError(t, err)
	require.Equal(t, schema.AppRunFailed, out.Status)
	require.Contains(t, out.Error, `"write:appdata"`)
	require.Zero(t, f.apps.writes)
	events, err := outbox.List(ctx, f.db, account)
	require.NoError(t, err)
	require.Len(t, events, 1)
	require.Equal(t, outbox.AppScriptFailed, events[0].Type)
	require.Contains(t, string(events[0].Data), id)
}

// TestRunCPUCapStopsEndlessLoop: while(true){} is stopped by the CPU cap and the run fails saying so.
func TestRunCPUCapStopsEndlessLoop(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, map[string]string{"spin": `while (true) {} return 1;`})
	id := f.queue(t, "spin")
	out, err := f.runner.Run(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, schema.AppRunFailed, out.Status)
	require.Contains(t, out.Error, "CPU")
}

// TestTxPrepareAnswersUnsigned: tx.prepare answers an unsigned request awaiting confirmation; nothing is
// signed or broadcast (the Host has no signer at all).
func TestTxPrepareAnswersUnsigned(t *testing.T) {
	t.Parallel()
	f := newFixture(t, []string{"prepare:transaction"}, map[string]string{"tx": `
const p = await svc.tx.prepare({ to: "0x52908400098527886E0F7030069857D2E4169EE7", value: "1000", data: "0x" });
return p;`})
	id := f.queue(t, "tx")
	out, err := f.runner.Run(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, schema.AppRunSucceeded, out.Status, out.Error)
	var got map[string]any
	require.NoError(t, json.Unmarshal(f.row(t, id).Result, &got))
	require.Equal(t, false, got["signed"])
	require.Equal(t, false, got["broadcast"])
	require.Equal(t, "awaiting_confirmation", got["status"])
}
