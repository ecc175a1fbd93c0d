package bench

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// appPlatformRuns is how many runs BenchmarkAppScriptRuns makes through the platform, one at a time.
const appPlatformRuns = 60

// BenchmarkAppScriptRuns runs the trivial script of BenchmarkAppScriptEngine 60 times through the
// platform, one at a time (POST /v1/apps/{slug}/scripts/{name}/run, which answers the finished run: the
// run recorded, workflow appscript/<id>, the activity with a cold engine, the outcome stored), against
// goja evaluating the same JavaScript directly in one Go program (a fresh runtime each time), and
// reports both rates, their ratio and the run overhead p50 (a POST's wall time; the script itself takes
// microseconds).
func BenchmarkAppScriptRuns(b *testing.B) {
	env := apptest.New(b)
	key := env.FirstKey(b)
	manifest := json.RawMessage(`{"slug":"bench","title":"Bench","permissions":[],"scripts":["trivial"]}`)
	created := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/apps", Key: key, Headers: map[string]string{"Idempotency-Key": "app"},
		Body: map[string]any{"manifest": manifest, "files": map[string]string{"index.html": "<p>bench</p>", "scripts/trivial.ts": appScriptSource}}})
	require.Equal(b, http.StatusCreated, created.Status, "%s", created.Raw)
	iter := 0
	for b.Loop() {
		if iter++; iter > 1 {
			b.Fatal("run with -benchtime 1x")
		}
		walls := make([]time.Duration, 0, appPlatformRuns)
		start := time.Now()
		for i := range appPlatformRuns {
			walls = append(walls, platformRun(b, env, key, i))
		}
		platformRate := appPlatformRuns / time.Since(start).Seconds()
		directStart := time.Now()
		for range appScriptRuns {
			require.Equal(b, int64(42), evalDirect(b))
		}
		directRate := appScriptRuns / time.Since(directStart).Seconds()
		slices.Sort(walls)
		p50, p99 := walls[len(walls)/2], walls[len(walls)*99/100]
		b.ReportMetric(platformRate, "platform-runs/s")
		b.ReportMetric(directRate, "direct-evals/s")
		b.ReportMetric(platformRate/directRate, "platform-direct-ratio")
		b.ReportMetric(float64(p50.Microseconds())/1000, "overhead-p50-ms")
		b.Logf("trivial script: platform %.1f runs/s, direct goja %.0f evals/s, ratio %.4f, overhead p50 %v, p99 %v, min %v",
			platformRate, directRate, platformRate/directRate, p50, p99, walls[0])
	}
}

// platformRun posts run i of the trivial script, requires the finished run's result and answers the
// POST's wall time.
func platformRun(b *testing.B, env *apptest.Env, key string, i int) time.Duration {
	b.Helper()
	start := time.Now()
	r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/apps/bench/scripts/trivial/run", Key: key,
		Body: map[string]any{"args": map[string]any{"n": 41}}, Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("run-%d", i)}})
	wall := time.Since(start)
	require.Equal(b, http.StatusOK, r.Status, "%s", r.Raw)
	run := r.Body["run"].(map[string]any)
	require.Equal(b, "succeeded", run["status"], "%s", r.Raw)
	require.EqualValues(b, 42, run["result"], "%s", r.Raw)
	return wall
}
