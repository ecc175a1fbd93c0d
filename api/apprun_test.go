package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/workflows"
)

// helloFolder is the example app of examples/apps/hello by path.
func helloFolder(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join("..", "examples", "apps", "hello")
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = string(raw)
		return err
	}))
	return files
}

// limitsFolder is an app that may only read its data: script nokv writes appKV (refused: write:appdata
// is not declared) and spin never ends (stopped by the CPU cap).
func limitsFolder() map[string]string {
	return map[string]string{
		"manifest.json":    `{"slug":"limits","title":"Limits","permissions":["read:appdata"],"scripts":["nokv","spin","pure"]}`,
		"index.html":       "<!doctype html><p>limits</p>",
		"scripts/nokv.ts":  "appKV.set(\"k\", 1);\nreturn 1;\n",
		"scripts/spin.ts":  "while (true) {}\nreturn 1;\n",
		"scripts/pure.ts":  "const m = await Promise.resolve(41);\nreturn m + 1;\n",
		"data/public.json": `{"n":1}`,
	}
}

// runScript posts a run of the app's script and answers the run of the response.
func runScript(t *testing.T, env *apptest.Env, key, slug, script, idem string) (int, map[string]any, string) {
	t.Helper()
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/apps/" + slug + "/scripts/" + script + "/run", Key: key,
		Body: map[string]any{"args": map[string]any{}}, Headers: map[string]string{"Idempotency-Key": idem}})
	run, _ := r.Body["run"].(map[string]any)
	return r.Status, run, string(r.Raw)
}

// TestAppScriptRunsEndToEnd: through the API and the in-process worker, the example app hello runs for
// a fresh account (no wallet yet), stores lastBalance in appKV and answers it; the run is listed and
// read back; an undeclared permission fails the run naming it; while(true){} is stopped by the CPU cap;
// another account sees none of it (404).
func TestAppScriptRunsEndToEnd(t *testing.T) {
	t.Parallel()
	appScriptRunsEndToEnd(t, false)
}

// TestRecordAppScriptHistories re-records workflows/testdata/appscript_succeeded.json and
// appscript_cpu_cap.json (SVC_RECORD_HISTORIES=1, make record-histories): the end-to-end test's hello
// run and its run stopped by the CPU cap.
func TestRecordAppScriptHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	appScriptRunsEndToEnd(t, true)
}

// appScriptRunsEndToEnd is TestAppScriptRunsEndToEnd; record writes the two runs' histories.
func appScriptRunsEndToEnd(t *testing.T, record bool) {
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)
	created := createJSONApp(t, env, owner.secret, "hello", helloFolder(t))
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)

	status, run, raw := runScript(t, env, owner.secret, "hello", "main", "run-1")
	require.Equal(t, http.StatusOK, status, raw)
	require.Equal(t, "succeeded", run["status"], raw)
	result := run["result"].(map[string]any)
	require.Nil(t, result["walletId"], raw)
	require.Empty(t, result["balances"], raw)
	require.Contains(t, result["note"], "no wallet", raw)
	require.EqualValues(t, 3, run["hostCalls"], "balances, appKV.set, appKV.get: %s", raw)
	require.NotEmpty(t, run["log"], raw)
	require.Nil(t, run["inline"], "a run with platform calls runs in its workflow: %s", raw)
	require.Equal(t, workflows.AppScriptWorkflowID(run["id"].(string)), run["workflowId"], raw)
	runID := run["id"].(string)

	stored := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/hello/kv/lastBalance", Key: owner.secret})
	require.Equal(t, http.StatusOK, stored.Status, "%s", stored.Raw)
	require.Contains(t, string(stored.Raw), "no wallet", "the script's appKV write is the app's data")

	list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/hello/runs", Key: owner.secret})
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	runs := list.Body["runs"].([]any)
	require.Len(t, runs, 1)
	require.Equal(t, runID, runs[0].(map[string]any)["id"])
	one := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/hello/runs/" + runID, Key: owner.secret})
	require.Equal(t, http.StatusOK, one.Status, "%s", one.Raw)
	require.JSONEq(t, jsonText(t, result), jsonText(t, one.Body["run"].(map[string]any)["result"]))

	created = createJSONApp(t, env, owner.secret, "limits", limitsFolder())
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	status, refused, raw := runScript(t, env, owner.secret, "limits", "nokv", "run-2")
	require.Equal(t, http.StatusOK, status, raw)
	require.Equal(t, "failed", refused["status"], raw)
	require.Contains(t, refused["error"], "write:appdata", raw)
	require.Contains(t, refused["error"], "appKV.set", raw)
	status, spun, raw := runScript(t, env, owner.secret, "limits", "spin", "run-3")
	require.Equal(t, http.StatusOK, status, raw)
	require.Equal(t, "failed", spun["status"], raw)
	require.Contains(t, spun["error"], "CPU cap reached", raw)
	require.Nil(t, spun["inline"], "a run outlasting the inline budget continues in its workflow: %s", raw)
	require.True(t, workflowClosed(env, workflows.AppScriptWorkflowID(spun["id"].(string))), raw)

	status, pure, raw := runScript(t, env, owner.secret, "limits", "pure", "run-4")
	require.Equal(t, http.StatusOK, status, raw)
	require.Equal(t, "succeeded", pure["status"], raw)
	require.EqualValues(t, 42, pure["result"], raw)
	require.Nil(t, pure["inline"], "every run is a workflow unless SVC_APP_INLINE_RUNS is set: %s", raw)
	require.Equal(t, workflows.AppScriptWorkflowID(pure["id"].(string)), pure["workflowId"], raw)
	require.True(t, workflowClosed(env, workflows.AppScriptWorkflowID(pure["id"].(string))), raw)
	require.Nil(t, refused["inline"], raw)
	require.True(t, workflowClosed(env, workflows.AppScriptWorkflowID(refused["id"].(string))), raw)

	other := newArtifactAccount(t, env)
	for _, r := range []apptest.Req{
		{Method: http.MethodPost, Path: "/v1/apps/hello/scripts/main/run", Body: map[string]any{"args": map[string]any{}},
			Headers: map[string]string{"Idempotency-Key": "x1"}},
		{Method: http.MethodGet, Path: "/v1/apps/hello/runs"},
		{Method: http.MethodGet, Path: "/v1/apps/hello/runs/" + runID},
	} {
		r.Key = other.secret
		resp := env.Do(t, r)
		require.Equal(t, http.StatusNotFound, resp.Status, "%s %s: %s", r.Method, r.Path, resp.Raw)
	}
	again := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/apps/hello/runs", Key: owner.secret})
	require.Len(t, again.Body["runs"], 1, "the other account's attempt recorded no run")

	if record {
		recordAppScript(t, env, runID, "appscript_succeeded.json")
		recordAppScript(t, env, spun["id"].(string), "appscript_cpu_cap.json")
	}
}

// recordAppScript waits for workflow appscript/<runID> to close and writes its history to testdata.
func recordAppScript(t *testing.T, env *apptest.Env, runID, name string) {
	t.Helper()
	wid := workflows.AppScriptWorkflowID(runID)
	require.Eventually(t, func() bool { return workflowClosed(env, wid) }, 30*time.Second, 20*time.Millisecond)
	writeHistory(t, env, wid, filepath.Join("..", "workflows", "testdata", name))
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}

// TestAppScriptInlineRunsOptIn: with SVC_APP_INLINE_RUNS, a run that makes no platform call (pure, or
// refused by the engine before reaching the platform) is executed by its request and starts no
// workflow; one that makes a platform call, or outlasts the inline budget, still runs in its workflow.
func TestAppScriptInlineRunsOptIn(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{AppInlineRuns: true})
	owner := newArtifactAccount(t, env)
	created := createJSONApp(t, env, owner.secret, "limits", limitsFolder())
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)

	status, pure, raw := runScript(t, env, owner.secret, "limits", "pure", "run-1")
	require.Equal(t, http.StatusOK, status, raw)
	require.Equal(t, "succeeded", pure["status"], raw)
	require.EqualValues(t, 42, pure["result"], raw)
	require.Equal(t, true, pure["inline"], "a run without platform calls is executed by its request: %s", raw)
	require.Nil(t, pure["workflowId"], raw)
	_, err := env.Temporal.DescribeWorkflowExecution(context.Background(), workflows.AppScriptWorkflowID(pure["id"].(string)), "")
	require.Error(t, err, "an inline run starts no workflow")

	status, refused, raw := runScript(t, env, owner.secret, "limits", "nokv", "run-2")
	require.Equal(t, http.StatusOK, status, raw)
	require.Equal(t, "failed", refused["status"], raw)
	require.Contains(t, refused["error"], "write:appdata", raw)
	require.Equal(t, true, refused["inline"], "a call refused by the engine before reaching the platform is no platform call: %s", raw)

	status, spun, raw := runScript(t, env, owner.secret, "limits", "spin", "run-3")
	require.Equal(t, http.StatusOK, status, raw)
	require.Contains(t, spun["error"], "CPU cap reached", raw)
	require.Nil(t, spun["inline"], "a run outlasting the inline budget continues in its workflow: %s", raw)
	require.True(t, workflowClosed(env, workflows.AppScriptWorkflowID(spun["id"].(string))), raw)
}
