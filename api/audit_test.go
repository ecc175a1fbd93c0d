package api_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/schema"
)

// storedAudit returns the status of each stored audit event of the given request ids.
func storedAudit(t *testing.T, env *apptest.Env, requestIDs ...string) map[string]int {
	t.Helper()
	var rows []schema.AuditEvent
	require.NoError(t, env.DB.NewSelect().Model(&rows).Column("request_id", "status").
		Where("request_id IN (?)", bun.List(requestIDs)).Scan(context.Background()))
	out := map[string]int{}
	for _, r := range rows {
		out[r.RequestID] = r.Status
	}
	return out
}

// attack sends requests with NUL bytes and invalid UTF-8 in their paths until stop is closed.
func attack(env *apptest.Env, key string, stop <-chan struct{}) {
	paths := []string{"/v1/runs/run_%00", "/v1/runs/run_%FF%FE", "/v1/projects/proj_%00%ff", "/v1/connections/conn_a%00b"}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		method, path := http.MethodGet, paths[i%len(paths)]
		if i%3 == 0 {
			method, path = http.MethodPost, "/v1/runs/run_%00/cancel"
		}
		req, err := http.NewRequest(method, env.URL+path, nil)
		if err != nil {
			panic(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Idempotency-Key", fmt.Sprintf("nul-%d", i))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
		}
	}
}

// TestNULPathsLoseNoOtherAccountsAuditEvents has an attacker send requests whose paths hold NUL bytes
// and invalid UTF-8 while a victim account works: every event of the victim is stored, and the
// attacker's are stored too, escaped and marked sanitized.
func TestNULPathsLoseNoOtherAccountsAuditEvents(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	victim, _ := firstKey(t, env)
	attacker := env.FirstKey(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); attack(env, attacker, stop) }()
	}
	var ids []string
	for i := range 60 {
		r := apptest.Req{Method: http.MethodGet, Path: []string{"/v1/projects", "/v1/runs", "/v1/api-keys"}[i%3], Key: victim}
		if i%10 == 0 {
			r = apptest.Req{Method: http.MethodPost, Path: "/v1/projects", Key: victim, Body: map[string]any{"name": fmt.Sprint("p", i)},
				Headers: map[string]string{"Idempotency-Key": fmt.Sprint("p", i)}}
		}
		resp := env.Do(t, r)
		require.Less(t, resp.Status, 300, "%s", resp.Raw)
		ids = append(ids, resp.Header.Get("X-Request-Id"))
	}
	close(stop)
	wg.Wait()

	require.Eventually(t, func() bool { return len(storedAudit(t, env, ids...)) == len(ids) }, 5*time.Second, 20*time.Millisecond,
		"victim events lost: %d of %d stored", len(storedAudit(t, env, ids...)), len(ids))
	// The attacker's own events are kept as well, their bytes shown as %XX.
	var seen map[string]any
	require.Eventually(t, func() bool {
		list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/audit-events?limit=200", Key: attacker})
		for _, e := range list.Body["auditEvents"].([]any) {
			if ev := e.(map[string]any); ev["path"] == "/v1/runs/run_%00" {
				seen = ev
				return true
			}
		}
		return false
	}, 5*time.Second, 20*time.Millisecond)
	require.Equal(t, true, seen["sanitized"])
}

// TestChangingRequestsAuditEventStoredBeforeAnswer holds read events in the background writer's memory
// (as a stuck writer, or one killed with the process, would) and checks that the event of every request
// that may change something (writes, their refusals, replays) is in the database when its answer
// arrives, so GET /v1/audit-events right after lists them, in order.
func TestChangingRequestsAuditEventStoredBeforeAnswer(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Audit: audit.Options{Interval: time.Hour}})
	_, token := env.NewAccount(t, "newcomer")
	var ids []string
	send := func(r apptest.Req, want int) *apptest.Response {
		t.Helper()
		resp := env.Do(t, r)
		require.Equal(t, want, resp.Status, "%s %s: %s", r.Method, r.Path, resp.Raw)
		id := resp.Header.Get("X-Request-Id")
		require.Equal(t, map[string]int{id: want}, storedAudit(t, env, id), "%s %s: no event when the answer arrived", r.Method, r.Path)
		ids = append(ids, id)
		return resp
	}
	idem := func(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }
	first := send(apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "k"}}, http.StatusCreated)
	key := first.Body["apiKey"].(map[string]any)["secret"].(string)
	write := func(method, path string, body any, h map[string]string, want int) *apptest.Response {
		t.Helper()
		return send(apptest.Req{Method: method, Path: path, Key: key, Body: body, Headers: h}, want)
	}
	p1 := write(http.MethodPost, "/v1/projects", map[string]any{"name": "one"}, idem("p1"), http.StatusCreated)
	pid := p1.Body["project"].(map[string]any)["id"].(string)
	write(http.MethodPost, "/v1/projects", map[string]any{"name": "one"}, idem("p1"), http.StatusCreated) // a replay
	write(http.MethodPost, "/v1/projects", map[string]any{"name": ""}, idem("p2"), http.StatusBadRequest)
	write(http.MethodPost, "/v1/projects", map[string]any{"name": "two"}, nil, http.StatusBadRequest) // no Idempotency-Key
	write(http.MethodPatch, "/v1/projects/"+pid, map[string]any{"name": "uno"}, idem("p3"), http.StatusOK)
	write(http.MethodPost, "/v1/connections", map[string]any{"name": "up", "authType": "bearer", "secret": "abcdefghijklmnop"},
		idem("c1"), http.StatusCreated)
	write(http.MethodPost, "/v1/api-keys", map[string]any{"name": "child", "scopes": []string{"runs:read"}}, idem("k2"), http.StatusCreated)
	write(http.MethodDelete, "/v1/projects/"+pid, nil, idem("p4"), http.StatusOK)
	write(http.MethodPatch, "/v1/projects/"+pid, map[string]any{"name": "dos"}, idem("p5"), http.StatusConflict) // archived
	write(http.MethodPost, "/v1/runs/run_nope/cancel", nil, idem("r1"), http.StatusNotFound)

	read := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/projects", Key: key})
	require.Equal(t, http.StatusOK, read.Status)
	require.Empty(t, storedAudit(t, env, read.Header.Get("X-Request-Id")), "the read's event should wait in the writer")

	list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/audit-events?limit=5", Key: key})
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	var listed []string
	for _, e := range list.Body["auditEvents"].([]any) {
		listed = append(listed, e.(map[string]any)["requestId"].(string))
	}
	want := []string{ids[len(ids)-1], ids[len(ids)-2], ids[len(ids)-3], ids[len(ids)-4], ids[len(ids)-5]}
	require.Equal(t, want, listed)
}

// TestReadAuditEventListedWithinOneSecond checks the documented promise for reads, whose events are
// written in batches: each is listed within one second of its answer.
func TestReadAuditEventListedWithinOneSecond(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	key, _ := firstKey(t, env)
	answered := map[string]time.Time{}
	for i := range 12 {
		resp := env.Do(t, apptest.Req{Method: http.MethodGet, Path: []string{"/v1/projects", "/v1/runs", "/v1/credits/balance"}[i%3], Key: key})
		require.Equal(t, http.StatusOK, resp.Status, "%s", resp.Raw)
		answered[resp.Header.Get("X-Request-Id")] = time.Now()
	}
	listed := map[string]time.Time{}
	require.Eventually(t, func() bool {
		list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/audit-events?limit=100", Key: key})
		now := time.Now()
		for _, e := range list.Body["auditEvents"].([]any) {
			id := e.(map[string]any)["requestId"].(string)
			if _, ok := listed[id]; !ok {
				listed[id] = now
			}
		}
		for id := range answered {
			if _, ok := listed[id]; !ok {
				return false
			}
		}
		return true
	}, 5*time.Second, 10*time.Millisecond, "read events never listed")
	for id, at := range answered {
		require.Less(t, listed[id].Sub(at), time.Second, "the event of %s was listed %v after its answer", id, listed[id].Sub(at))
	}
}
