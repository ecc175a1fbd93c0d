package main

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/app/apptest"
)

// TestAPIKilledLosesNoAuditEventOfAChange runs `svcd api` as its own process, sends it requests that
// change something (stored writes, a refused write, a cancel of a missing run), kills it with SIGKILL
// the moment the last answer arrives, and checks that the audit trail holds the event of every one of
// them: an event of a change is stored before its answer, never only in the writer's memory.
func TestAPIKilledLosesNoAuditEventOfAChange(t *testing.T) {
	t.Parallel()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true})
	key := fundedKey(t, env, 0)
	api := startAPI(t, svcd, env)

	changes := []apptest.Req{
		{Method: http.MethodPost, Path: "/v1/projects", Body: map[string]any{"name": "alpha"},
			Headers: map[string]string{"Idempotency-Key": "p1"}},
		{Method: http.MethodPost, Path: "/v1/projects", Body: map[string]any{"name": "beta"},
			Headers: map[string]string{"Idempotency-Key": "p2"}},
		{Method: http.MethodPost, Path: "/v1/projects", Body: map[string]any{"name": ""},
			Headers: map[string]string{"Idempotency-Key": "p3"}},
		{Method: http.MethodPost, Path: "/v1/runs/run_missing/cancel", Body: map[string]any{}},
		{Method: http.MethodPost, Path: "/v1/projects", Body: map[string]any{"name": "gamma"},
			Headers: map[string]string{"Idempotency-Key": "p4"}},
	}
	var requestIDs []string
	for _, req := range changes {
		req.Key, req.BaseURL = key, api.url
		resp := env.Do(t, req)
		id := resp.Header.Get("X-Request-Id")
		require.NotEmpty(t, id, "%s %s answered no request id: %d %s", req.Method, req.Path, resp.Status, resp.Raw)
		requestIDs = append(requestIDs, id)
	}
	api.kill(t)

	var stored []string
	require.NoError(t, env.DB.NewRaw("SELECT request_id FROM audit_events WHERE request_id IN (?)",
		bun.List(requestIDs)).Scan(context.Background(), &stored))
	require.ElementsMatch(t, requestIDs, stored, "every change's event survives kill -9; API log:\n%s", api.log.String())
}

// apiProcess is an `svcd api` process a crash test started, and the URL it serves.
type apiProcess struct {
	*svcdProcess
	url string
}

// startAPI runs `svcd api` on a free loopback port against the test's database schema and Temporal
// server, with extra environment variables (NAME=value) on top, and waits until it answers /health.
func startAPI(t *testing.T, svcd string, env *apptest.Env, extra ...string) *apiProcess {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	p := &apiProcess{svcdProcess: startSvcd(t, svcd, "api", env,
		append([]string{"SVC_HTTP_ADDR=" + addr, "SVC_DATA_DIR=" + t.TempDir()}, extra...)...), url: "http://" + addr}
	require.Eventually(t, func() bool {
		resp, err := http.Get(p.url + "/health")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 60*time.Second, 20*time.Millisecond, "svcd api never answered /health; log:\n%s", p.log.String())
	return p
}
