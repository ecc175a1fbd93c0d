package api_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// lostAnswer starts workflows for real but, the first n times, pretends the answer never arrived.
type lostAnswer struct {
	sdkclient.Client
	remaining atomic.Int32
}

func (l *lostAnswer) ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, wf any, args ...any) (sdkclient.WorkflowRun, error) {
	run, err := l.Client.ExecuteWorkflow(ctx, opts, wf, args...)
	if err == nil && l.remaining.Add(-1) >= 0 {
		return nil, context.DeadlineExceeded
	}
	return run, err
}

// refused refuses every workflow start, as an unreachable Temporal would.
type refused struct{ sdkclient.Client }

func (refused) ExecuteWorkflow(context.Context, sdkclient.StartWorkflowOptions, any, ...any) (sdkclient.WorkflowRun, error) {
	return nil, fmt.Errorf("connection refused")
}

// TestLostStartAnswerStillOneWorkflow: the start reaches Temporal but its answer is lost; the API finds the
// workflow and answers 201, and a retry with the same key changes nothing.
func TestLostStartAnswerStillOneWorkflow(t *testing.T) {
	t.Parallel()
	flaky := &lostAnswer{}
	flaky.remaining.Store(1)
	env := apptest.NewWith(t, apptest.Options{APITemporal: func(c sdkclient.Client) sdkclient.Client { flaky.Client = c; return flaky }})
	key := env.FirstKey(t)
	body := map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}
	first := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key, Body: body, Headers: map[string]string{"Idempotency-Key": "lost"}})
	require.Equal(t, http.StatusCreated, first.Status, "%s", first.Raw)
	runID := first.Body["run"].(map[string]any)["id"].(string)
	waitRun(t, env, key, runID, client.RunSucceeded)
	require.Equal(t, 1, countRows(t, env, "runs"))
}

// TestRefusedStartLeavesNothingAndRetryWorks: Temporal refuses the start; the API answers 503, writes
// nothing, and the retry with the same key (Temporal back) creates exactly one run and workflow.
func TestRefusedStartLeavesNothingAndRetryWorks(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	down.Store(true)
	env := apptest.NewWith(t, apptest.Options{APITemporal: func(c sdkclient.Client) sdkclient.Client {
		return &switchable{Client: c, down: &down}
	}})
	key := env.FirstKey(t)
	body := map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}
	req := apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key, Body: body, Headers: map[string]string{"Idempotency-Key": "refused"}}
	failed := env.Do(t, req)
	require.Equal(t, http.StatusServiceUnavailable, failed.Status, "%s", failed.Raw)
	require.Equal(t, "unavailable", failed.ErrorCode())
	require.NotEmpty(t, failed.Header.Get("Retry-After"))
	require.Equal(t, 0, countRows(t, env, "runs"), "a refused start leaves no row")
	require.Equal(t, 0, countRows(t, env, "events"), "and announces nothing")

	down.Store(false)
	retried := env.Do(t, req)
	require.Equal(t, http.StatusCreated, retried.Status, "%s", retried.Raw)
	runID := retried.Body["run"].(map[string]any)["id"].(string)
	waitRun(t, env, key, runID, client.RunSucceeded)
	require.Equal(t, 1, countRows(t, env, "runs"))
	var acct string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM runs").Scan(context.Background(), &acct))
	require.Eventually(t, func() bool {
		resp, err := env.Temporal.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
			Query: fmt.Sprintf("SvcAccountId = %q", acct)})
		return err == nil && resp.GetCount() == 1
	}, 10*time.Second, 20*time.Millisecond, "exactly one workflow for the account")
}

type switchable struct {
	sdkclient.Client
	down *atomic.Bool
}

func (s *switchable) ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, wf any, args ...any) (sdkclient.WorkflowRun, error) {
	if s.down.Load() {
		return refused{}.ExecuteWorkflow(ctx, opts, wf, args...)
	}
	return s.Client.ExecuteWorkflow(ctx, opts, wf, args...)
}

// TestIdempotencyIsPerCaller: another key of the same account cannot replay an answer (it would carry
// someone else's secret or bypass its own service access); it gets 422.
func TestIdempotencyIsPerCaller(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root := env.FirstKey(t)
	mk := func(key, idem string, body map[string]any) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: key, Body: body, Headers: map[string]string{"Idempotency-Key": idem}})
	}
	child := mk(root, "c", map[string]any{"scopes": []string{"api_keys:manage", "runs:write"}, "services": []string{"svc-database"}})
	require.Equal(t, http.StatusCreated, child.Status, "%s", child.Raw)
	childSecret := child.Body["apiKey"].(map[string]any)["secret"].(string)

	mine := mk(root, "shared", map[string]any{"name": "x"})
	require.Equal(t, http.StatusCreated, mine.Status, "%s", mine.Raw)
	theirs := mk(childSecret, "shared", map[string]any{"name": "x"})
	require.Equal(t, http.StatusUnprocessableEntity, theirs.Status, "%s", theirs.Raw)
	require.NotContains(t, string(theirs.Raw), mine.Body["apiKey"].(map[string]any)["secret"])

	// A parent holding api_keys:manage still cannot give a child a scope it lacks.
	wider := mk(childSecret, "wider", map[string]any{"scopes": []string{"runs:write", "webhooks:write"}})
	require.Equal(t, http.StatusForbidden, wider.Status, "%s", wider.Raw)
	require.Equal(t, "scope_missing", wider.ErrorCode())
	require.Equal(t, "scopes[1]", errorOf(wider)["param"])

	// Nor run a service it may not use by borrowing the root's idempotency key.
	run := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: root,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, Headers: map[string]string{"Idempotency-Key": "r"}})
	require.Equal(t, http.StatusCreated, run.Status, "%s", run.Raw)
	borrowed := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: childSecret,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, Headers: map[string]string{"Idempotency-Key": "r"}})
	require.Equal(t, http.StatusUnprocessableEntity, borrowed.Status, "%s", borrowed.Raw)
}

// TestCrashedKeyCreationIsTakenOver: the first attempt created the key but died before its answer was
// stored; the retry with the same key finds that key, gives it a fresh secret, and creates no second one.
func TestCrashedKeyCreationIsTakenOver(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root := env.FirstKey(t)
	req := apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: root, Body: map[string]any{"name": "once"},
		Headers: map[string]string{"Idempotency-Key": "crash"}}
	first := env.Do(t, req)
	require.Equal(t, http.StatusCreated, first.Status)
	firstKey := first.Body["apiKey"].(map[string]any)
	// Simulate the crash: the answer was never stored and the holder is gone.
	_, err := env.DB.NewRaw(`UPDATE idempotency_keys SET response_status = NULL, response_body = NULL,
		response_headers = NULL, locked_until = NULL WHERE key = 'crash'`).Exec(context.Background())
	require.NoError(t, err)

	again := env.Do(t, req)
	require.Equal(t, http.StatusCreated, again.Status, "%s", again.Raw)
	againKey := again.Body["apiKey"].(map[string]any)
	require.Equal(t, firstKey["id"], againKey["id"], "the same key, not a second one")
	require.NotEqual(t, firstKey["secret"], againKey["secret"])
	n, err := env.DB.NewSelect().Table("api_keys").Where("name = 'once'").Count(context.Background())
	require.NoError(t, err)
	require.EqualValues(t, 1, n)

	lost := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/api-keys", Key: firstKey["secret"].(string)})
	require.Equal(t, http.StatusUnauthorized, lost.Status, "the undelivered secret no longer works")
	works := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/api-keys", Key: againKey["secret"].(string)})
	require.Equal(t, http.StatusOK, works.Status)
}
