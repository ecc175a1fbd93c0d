package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/workflows"
)

// counterApp is an app whose script writes appKV first (the journalled call the fault stalls after),
// then reads it back and returns it.
var counterApp = map[string]any{
	"manifest": json.RawMessage(`{"slug":"counter","title":"Counter","permissions":["read:appdata","write:appdata"],"scripts":["bump"]}`),
	"files": map[string]string{
		"index.html":      "<!doctype html><p>counter</p>",
		"scripts/bump.ts": "appKV.set(\"visits\", { n: args.n + 1 });\nconst v = appKV.get(\"visits\");\nlog(\"visits\", v.n);\nreturn v;\n",
	},
}

// TestWorkerKilledMidAppScriptRunWritesOnce kills the svcd worker (SIGKILL) once a script's appKV write
// is performed and journalled, before the script goes on. Another worker retries the run: it is
// answered the write from the journal, so the run succeeds with the counter incremented once and the
// app's data file data/visits.json written once.
func TestWorkerKilledMidAppScriptRunWritesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true})
	blobs := "SVC_BLOB_URL=" + fileURL(env.BlobDir) // the worker reads the scripts the API stored
	worker := startWorker(t, svcd, env, "", t.TempDir(), blobs, "SVC_TEST_FAULT="+activities.FaultAppScriptStallAfterCall)
	accountID, key := accountKey(t, env)
	created := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps", Key: key, Body: counterApp,
		Headers: map[string]string{"Idempotency-Key": "app"}})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)

	started := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps/counter/scripts/bump/run", Key: key,
		Body: map[string]any{"args": map[string]any{"n": 41}}, Headers: map[string]string{"Idempotency-Key": "run"}})
	require.Equal(t, http.StatusAccepted, started.Status, "the stalled run is still going: %s", started.Raw)
	runID := started.Body["run"].(map[string]any)["id"].(string)
	wid := workflows.AppScriptWorkflowID(runID)
	count := func(query string, args ...any) int {
		var n int
		require.NoError(t, env.DB.NewRaw(query, args...).Scan(ctx, &n))
		return n
	}
	journalled := func() int { return count("SELECT count(*) FROM app_script_run_calls WHERE run_id = ?", runID) }
	writes := func() int {
		return count("SELECT count(*) FROM files WHERE account_id = ? AND name = 'data/visits.json'", accountID)
	}

	// The first worker stops at the fault: the write performed and journalled, the activity running.
	require.Eventually(t, func() bool {
		return journalled() == 1 && writes() == 1 && running(t, env, wid, workflows.ActivityRunAppScript)
	}, 60*time.Second, 20*time.Millisecond, "the run never stalled after its write; worker log:\n%s", worker.log)
	worker.kill(t)
	healthy := startWorker(t, svcd, env, "", t.TempDir(), blobs)

	var run map[string]any
	require.Eventually(t, func() bool {
		r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/counter/runs/" + runID, Key: key})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		run = r.Body["run"].(map[string]any)
		return run["status"] == "succeeded" || run["status"] == "failed"
	}, 90*time.Second, 50*time.Millisecond, "the run never ended; healthy worker log:\n%s", healthy.log)
	require.Equal(t, "succeeded", run["status"], "%v; healthy worker log:\n%s", run, healthy.log)
	require.Equal(t, map[string]any{"n": float64(42)}, run["result"], "the counter was incremented once")
	require.Equal(t, 1, writes(), "data/visits.json was written once")
	require.Equal(t, 2, journalled(), "the write and the read, each journalled once")
	stored := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/counter/kv/visits", Key: key})
	require.Equal(t, http.StatusOK, stored.Status, "%s", stored.Raw)
	require.Contains(t, string(stored.Raw), `"n":42`)
}
