// Package bench holds the platform's benchmarks. Each compares the platform against a baseline measured
// in the same run on the same machine and reports the ratio (see docs/BENCHMARKS.md):
//
//	make bench    # or: go test -run '^$' -bench . -benchtime 1x ./bench/
package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/workflows"
)

const (
	loadConns  = 64
	loadRounds = 5
	loadRound  = 2 * time.Second
)

// bareGin serves one constant JSON answer: the floor any Gin API can reach on this machine.
func bareGin() *httptest.Server {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.GET("/v1/runs/:runId", func(c *gin.Context) {
		c.JSON(http.StatusOK, gin.H{"ok": true, "run": gin.H{"id": c.Param("runId"), "status": "succeeded"}})
	})
	return httptest.NewServer(e)
}

func getReq(url, key string) func() *http.Request {
	return func() *http.Request {
		r, _ := http.NewRequest(http.MethodGet, url, nil)
		if key != "" {
			r.Header.Set("Authorization", "Bearer "+key)
		}
		return r
	}
}

// BenchmarkGetRunVersusBareGin loads an authenticated GET /v1/runs/{id} (auth, scope, audit, read model)
// and a bare Gin handler with 64 connections each, in five alternating 2-second rounds of each.
func BenchmarkGetRunVersusBareGin(b *testing.B) {
	app.TuneGC(os.Getenv) // as svcd does; the bare Gin server shares the process and the setting
	env := apptest.New(b)
	key := env.FirstKey(b)
	resp := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
		Body:    map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"n": 1}},
		Headers: map[string]string{"Idempotency-Key": "bench-run"}})
	require.Equal(b, http.StatusCreated, resp.Status)
	runID := resp.Body["run"].(map[string]any)["id"].(string)
	waitSucceeded(b, env, key, runID)
	bare := bareGin()
	defer bare.Close()

	ctx := context.Background()
	for b.Loop() {
		Load(ctx, loadConns, time.Second, getReq(env.URL+"/v1/runs/"+runID, key)) // warm up both
		Load(ctx, loadConns, time.Second, getReq(bare.URL+"/v1/runs/"+runID, ""))
		var svc, base LoadResult
		for range loadRounds {
			svc = svc.Merge(Load(ctx, loadConns, loadRound, getReq(env.URL+"/v1/runs/"+runID, key)))
			base = base.Merge(Load(ctx, loadConns, loadRound, getReq(bare.URL+"/v1/runs/"+runID, "")))
		}
		require.Zero(b, svc.Errors+base.Errors, "requests failed under load")
		report(b, "svc", svc)
		report(b, "gin", base)
		b.ReportMetric(svc.RPS()/base.RPS(), "ratio")
	}
}

func report(b *testing.B, name string, r LoadResult) {
	b.ReportMetric(r.RPS(), name+"-req/s")
	b.ReportMetric(float64(r.P99.Microseconds())/1000, name+"-p99-ms")
	b.Logf("%s: %.0f req/s, p50 %v, p99 %v, %d requests", name, r.RPS(), r.P50, r.P99, r.Requests)
}

func waitSucceeded(b *testing.B, env *apptest.Env, key, runID string) {
	require.Eventually(b, func() bool {
		r := env.Do(b, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + runID, Key: key})
		return r.Body["run"].(map[string]any)["status"] == "succeeded"
	}, 20*time.Second, 10*time.Millisecond)
}

const (
	runRounds    = 10
	runsPerRound = 100
	runClients   = 50
)

// BenchmarkEchoRunsVersusSDK completes echo runs started through POST /v1/runs, and the same workflow
// started directly with the Temporal Go SDK against the same server and worker (50 concurrent clients,
// ten alternating rounds of 100 runs per side: 1,000 each), and reports completed runs per second of
// both and the p50 of a start (the POST's answer, or ExecuteWorkflow's return) on each side.
func BenchmarkEchoRunsVersusSDK(b *testing.B) {
	env := apptest.New(b)
	key := env.FirstKey(b)
	ctx := context.Background()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: runClients}}
	var seq atomic.Int64
	viaAPI := func() string {
		n := seq.Add(1)
		req, _ := http.NewRequest(http.MethodPost, env.URL+"/v1/runs",
			stringsReader(fmt.Sprintf(`{"serviceId":"managed-workflows","operationId":"echo","input":{"n":%d}}`, n)))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", fmt.Sprintf("bench-%d", n))
		resp, err := hc.Do(req)
		require.NoError(b, err)
		defer resp.Body.Close()
		require.Equal(b, http.StatusCreated, resp.StatusCode)
		return runIDFrom(b, resp)
	}
	var sdkSeq atomic.Int64
	viaSDK := func() string {
		n := sdkSeq.Add(1)
		id := fmt.Sprintf("run_sdk%d", n)
		_, err := env.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: workflows.RunWorkflowID(id), TaskQueue: workflows.TaskQueue},
			workflows.RunWorkflowName, workflows.RunParams{RunID: id, ServiceID: "managed-workflows", OperationID: "echo", Input: []byte(fmt.Sprintf(`{"n":%d}`, n))})
		require.NoError(b, err)
		return id
	}
	for b.Loop() {
		completeRuns(b, env, 50, viaAPI, nil) // warm up
		var apiTime, sdkTime time.Duration
		var apiStarts, sdkStarts startTimes
		for range runRounds {
			apiTime += completeRuns(b, env, runsPerRound, viaAPI, &apiStarts)
			sdkSeq.Store(0)
			insertQueuedRuns(b, env, runsPerRound) // the rows the API inserts, made before the SDK's clock starts
			sdkTime += completeRuns(b, env, runsPerRound, viaSDK, &sdkStarts)
		}
		api := float64(runRounds*runsPerRound) / apiTime.Seconds()
		sdk := float64(runRounds*runsPerRound) / sdkTime.Seconds()
		b.ReportMetric(api, "api-runs/s")
		b.ReportMetric(sdk, "sdk-runs/s")
		b.ReportMetric(api/sdk, "ratio")
		b.ReportMetric(float64(apiStarts.p50().Microseconds())/1000, "api-start-p50-ms")
		b.ReportMetric(float64(sdkStarts.p50().Microseconds())/1000, "sdk-start-p50-ms")
		b.Logf("api %.1f runs/s, sdk %.1f runs/s, ratio %.2f; start p50: api %v, sdk %v",
			api, sdk, api/sdk, apiStarts.p50(), sdkStarts.p50())
	}
}

// startTimes collects how long starts took, from many goroutines.
type startTimes struct {
	mu  sync.Mutex
	all []time.Duration
}

func (s *startTimes) add(d time.Duration) {
	s.mu.Lock()
	s.all = append(s.all, d)
	s.mu.Unlock()
}

func (s *startTimes) p50() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.all) == 0 {
		return 0
	}
	slices.Sort(s.all)
	return s.all[len(s.all)/2]
}

// completeRuns starts n runs from runClients goroutines and returns how long it took until every
// workflow completed; starts, when not nil, collects how long each start took.
func completeRuns(b *testing.B, env *apptest.Env, n int, start func() string, starts *startTimes) time.Duration {
	ctx := context.Background()
	var next atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range runClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				s0 := time.Now()
				id := start()
				if starts != nil {
					starts.add(time.Since(s0))
				}
				require.NoError(b, env.Temporal.GetWorkflow(ctx, workflows.RunWorkflowID(id), "").Get(ctx, nil))
			}
		}()
	}
	wg.Wait()
	return time.Since(t0)
}

// insertQueuedRuns makes rows run_sdk1..n like POST /v1/runs would, for the SDK baseline's workflows.
func insertQueuedRuns(b *testing.B, env *apptest.Env, n int) {
	ctx := context.Background()
	_, err := env.DB.ExecContext(ctx, "DELETE FROM runs WHERE id LIKE 'run_sdk%'")
	require.NoError(b, err)
	_, err = env.DB.ExecContext(ctx, `INSERT INTO runs (id, account_id, key_id, service_id, operation_id, status, input, workflow_id)
		SELECT 'run_sdk' || i, k.account_id, k.id, 'managed-workflows', 'echo', 'queued', '{}', 'run/run_sdk' || i
		FROM generate_series(1, ?) AS i, (SELECT account_id, id FROM api_keys LIMIT 1) AS k`, n)
	require.NoError(b, err)
}
