package bench

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
)

// mcpGetRunReq is a tools/call of get_run over POST /mcp (stateless: no session to open first).
func mcpGetRunReq(url, key, runID string) func() *http.Request {
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_run","arguments":{"runId":"` + runID + `"}}}`)
	return func() *http.Request {
		r, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+key)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		return r
	}
}

// BenchmarkGetRunMCPVersusREST loads get_run over MCP (POST /mcp: the transport's auth and audit, the
// SDK, then GET /v1/runs/{id}'s handler in process, with its own authorisation, limits and audit event)
// and GET /v1/runs/{id} over REST, with the
// same key and 64 connections each, in five alternating 2-second rounds; ratio is MCP over REST.
func BenchmarkGetRunMCPVersusREST(b *testing.B) {
	app.TuneGC(os.Getenv)
	env := apptest.New(b)
	key := env.FirstKey(b)
	resp := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, Headers: map[string]string{"Idempotency-Key": "run"}})
	require.Equal(b, http.StatusCreated, resp.Status, "%s", resp.Raw)
	runID := resp.Body["run"].(map[string]any)["id"].(string)
	waitSucceeded(b, env, key, runID)
	mcpReq, restReq := mcpGetRunReq(env.URL+"/mcp", key, runID), getReq(env.URL+"/v1/runs/"+runID, key)
	requireToolAnswer(b, mcpReq(), runID)
	ctx := context.Background()
	for b.Loop() {
		Load(ctx, loadConns, time.Second, mcpReq) // warm up both
		Load(ctx, loadConns, time.Second, restReq)
		var viaMCP, viaREST LoadResult
		for range loadRounds {
			viaMCP = viaMCP.Merge(Load(ctx, loadConns, loadRound, mcpReq))
			viaREST = viaREST.Merge(Load(ctx, loadConns, loadRound, restReq))
		}
		require.Zero(b, viaMCP.Errors+viaREST.Errors, "requests failed: %v", viaMCP.FirstErr)
		report(b, "mcp", viaMCP)
		report(b, "rest", viaREST)
		b.ReportMetric(viaMCP.RPS()/viaREST.RPS(), "ratio")
	}
}

// requireToolAnswer checks that the MCP request answers the run, not a tool error.
func requireToolAnswer(b *testing.B, r *http.Request, runID string) {
	resp, err := http.DefaultClient.Do(r)
	require.NoError(b, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(b, err)
	require.Equal(b, http.StatusOK, resp.StatusCode, "%s", raw)
	require.Contains(b, string(raw), runID)
	require.False(b, strings.Contains(string(raw), `"isError":true`), "%s", raw)
}
