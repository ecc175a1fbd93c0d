package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/gateway"
)

// BenchmarkGetRunLimitedVersusUnlimited loads GET /v1/runs/{id} with a key under three matching limits
// (requestsPerMinute on * and runs.read on the key, * on its parent; high enough never to refuse) and
// with an unlimited key of the same account, auditing on for both, in alternating rounds.
func BenchmarkGetRunLimitedVersusUnlimited(b *testing.B) {
	app.TuneGC(os.Getenv)
	env := apptest.New(b)
	root := env.FirstKey(b)
	mk := func(key, idem string, limits []map[string]any) string {
		r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: key, Body: map[string]any{"limits": limits},
			Headers: map[string]string{"Idempotency-Key": idem}})
		require.Equal(b, http.StatusCreated, r.Status, "%s", r.Raw)
		return r.Body["apiKey"].(map[string]any)["secret"].(string)
	}
	parent := mk(root, "parent", []map[string]any{{"operation": "*", "requestsPerMinute": 1_000_000_000}})
	limited := mk(parent, "limited", []map[string]any{{"operation": "runs.read", "requestsPerMinute": 1_000_000_000}})
	unlimited := mk(root, "unlimited", nil)
	resp := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: root,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, Headers: map[string]string{"Idempotency-Key": "run"}})
	runID := resp.Body["run"].(map[string]any)["id"].(string)
	waitSucceeded(b, env, root, runID)
	url := env.URL + "/v1/runs/" + runID
	ctx := context.Background()
	for b.Loop() {
		Load(ctx, loadConns, time.Second, getReq(url, limited))
		Load(ctx, loadConns, time.Second, getReq(url, unlimited))
		var lim, free LoadResult
		for range loadRounds {
			lim = lim.Merge(Load(ctx, loadConns, loadRound, getReq(url, limited)))
			free = free.Merge(Load(ctx, loadConns, loadRound, getReq(url, unlimited)))
		}
		require.Zero(b, lim.Errors+free.Errors, "requests failed or were limited")
		report(b, "limited", lim)
		report(b, "unlimited", free)
		b.ReportMetric(lim.RPS()/free.RPS(), "ratio")
	}
}

const invokeClients = 32

// BenchmarkInvokeVersusDirect sends the same call to an upstream through POST /v1/services/{id}/invoke
// (auth, idempotency, credit hold and settle, credential injection, audit) and directly, 32 concurrent
// clients each, in alternating rounds: once against an upstream that works 20 ms per call, as a
// generation service does at the very least, and once against one that does no work at all, which
// shows the gateway's own cost.
func BenchmarkInvokeVersusDirect(b *testing.B) {
	for _, work := range []time.Duration{20 * time.Millisecond, 0} {
		b.Run(fmt.Sprintf("upstream-work-%s", work), func(b *testing.B) { benchInvoke(b, work) })
	}
}

func benchInvoke(b *testing.B, work time.Duration) {
	app.TuneGC(os.Getenv)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "bench-secret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if work > 0 {
			time.Sleep(work) // the upstream's own work, not synchronisation
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Svc-Credits-Charged", "0.001")
		_, _ = w.Write([]byte(`{"image":"ok"}`))
	}))
	defer up.Close()
	cat, err := gateway.Parse([]byte(fmt.Sprintf("services:\n  - id: gen\n    baseUrl: %s\n    connection: gen-key\n    operations:\n      - id: make\n        method: POST\n        path: /make\n        credits: 0.001\n", up.URL)))
	require.NoError(b, err)
	env := apptest.NewWith(b, apptest.Options{Gateway: cat})
	created, err := env.Accounts.Create(context.Background(), "bench", 1_000_000, time.Hour)
	require.NoError(b, err)
	first := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": created.CreditToken, "Idempotency-Key": "k"}})
	key := first.Body["apiKey"].(map[string]any)["secret"].(string)
	conn := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/connections", Key: key,
		Body:    map[string]any{"name": "gen-key", "authType": "header", "headerName": "X-Api-Key", "secret": "bench-secret"},
		Headers: map[string]string{"Idempotency-Key": "c"}})
	require.Equal(b, http.StatusCreated, conn.Status)

	var seq atomic.Int64
	viaAPI := func() *http.Request {
		r, _ := http.NewRequest(http.MethodPost, env.URL+"/v1/services/gen/invoke", strings.NewReader(`{"operationId":"make","input":{"prompt":"x"}}`))
		r.Header.Set("Authorization", "Bearer "+key)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Idempotency-Key", fmt.Sprintf("i-%d", seq.Add(1)))
		return r
	}
	direct := func() *http.Request {
		r, _ := http.NewRequest(http.MethodPost, up.URL+"/make", strings.NewReader(`{"prompt":"x"}`))
		r.Header.Set("X-Api-Key", "bench-secret")
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	ctx := context.Background()
	for b.Loop() {
		Load(ctx, invokeClients, time.Second, viaAPI)
		var api, base LoadResult
		for range loadRounds {
			api = api.Merge(Load(ctx, invokeClients, loadRound, viaAPI))
			base = base.Merge(Load(ctx, invokeClients, loadRound, direct))
		}
		require.Zero(b, api.Errors+base.Errors, "calls failed")
		report(b, "invoke", api)
		report(b, "direct", base)
		b.ReportMetric(api.RPS()/base.RPS(), "ratio")
	}
}
