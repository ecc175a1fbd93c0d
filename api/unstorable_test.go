package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/workflows"
)

// TestUnstorableOutputFailsTheRun: a run whose output PostgreSQL refuses (\u0000 in a JSON string) ends
// failed with output_unstorable instead of staying running while the workflow retries for ever. The run
// row and its workflow are made directly, as a request past any edge check would have left them.
func TestUnstorableOutputFailsTheRun(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	a := newRunsAccount(t, env)
	id := startUnstorableRun(t, env, a)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out workflows.RunOutcome
	require.NoError(t, env.Temporal.GetWorkflow(ctx, workflows.RunWorkflowID(id), "").Get(ctx, &out),
		"the workflow ends instead of retrying for ever")
	require.Equal(t, client.RunFailed, out.Status)
	require.Equal(t, workflows.CodeOutputUnstorable, out.ErrorCode)

	got := waitRun(t, env, a.secret, id, client.RunFailed)
	require.Equal(t, workflows.CodeOutputUnstorable, got["error"].(map[string]any)["code"])
	require.Nil(t, got["output"])
}

// startUnstorableRun stores a queued echo run and starts its workflow with an input PostgreSQL's jsonb
// refuses, past the API's checks, and returns the run id.
func startUnstorableRun(t *testing.T, env *apptest.Env, a runsAccount) string {
	t.Helper()
	id := "run_unstorable"
	insertRuns(t, env, a, storedRun{id: id, service: client.ServiceManagedWorkflows, operation: "echo", status: client.RunQueued, created: time.Now()})
	_, err := env.Temporal.ExecuteWorkflow(context.Background(), sdkclient.StartWorkflowOptions{ID: workflows.RunWorkflowID(id), TaskQueue: workflows.TaskQueue},
		workflows.RunWorkflowName, workflows.RunParams{RunID: id, ServiceID: client.ServiceManagedWorkflows, OperationID: "echo",
			Input: json.RawMessage(`{"text":"a\u0000b"}`)})
	require.NoError(t, err)
	return id
}

// TestFinishRunClassifiesStorageErrors: FinishRun answers a value PostgreSQL refuses with a
// non-retryable Unstorable error, and stores an error message holding NUL bytes or invalid UTF-8 in a
// storable form rather than failing.
func TestFinishRunClassifiesStorageErrors(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	a := newRunsAccount(t, env)
	now := time.Now()
	insertRuns(t, env, a,
		storedRun{id: "run_bad_output", service: client.ServiceManagedWorkflows, operation: "echo", status: client.RunRunning, created: now},
		storedRun{id: "run_bad_message", service: client.ServiceManagedWorkflows, operation: "echo", status: client.RunRunning, created: now})
	acts := &activities.Runs{Store: run.NewWriteStore(env.DB)}
	ctx := context.Background()

	err := acts.FinishRun(ctx, workflows.RunOutcome{RunID: "run_bad_output", Status: client.RunSucceeded, Output: json.RawMessage(`{"a":"\u0000"}`)})
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "got %v", err)
	require.Equal(t, workflows.ErrorTypeUnstorable, appErr.Type())
	require.True(t, appErr.NonRetryable())

	require.NoError(t, acts.FinishRun(ctx, workflows.RunOutcome{RunID: "run_bad_message", Status: client.RunFailed,
		ErrorCode: "upstream_rejected", ErrorMessage: "service said a\x00b\xff"}))
	r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/run_bad_message", Key: a.secret})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(t, "service said ab\uFFFD", r.Body["run"].(map[string]any)["error"].(map[string]any)["message"])
}

// TestUnstorableExternalAnswerIsCharged: an external service's answer PostgreSQL refuses (\u0000 in a
// JSON string) fails the run with output_unstorable, without the answer but charged what the service
// reported: the call was made.
func TestUnstorableExternalAnswerIsCharged(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Svc-Credits-Charged", "2")
		_, _ = w.Write([]byte(`{"text":"a\u0000b"}`))
	}))
	t.Cleanup(up.Close)
	cat, err := gateway.Parse([]byte(fmt.Sprintf(`
services:
  - id: imagegen
    baseUrl: %s
    operations:
      - id: generate
        method: POST
        path: /make
        credits: 3
`, up.URL)))
	require.NoError(t, err)
	env := apptest.NewWith(t, apptest.Options{Gateway: cat})
	key := fundedKey(t, env, 10)

	got := waitRun(t, env, key, startRun(t, env, key, "generate", "u1"), client.RunFailed)
	require.Equal(t, workflows.CodeOutputUnstorable, got["error"].(map[string]any)["code"])
	require.Nil(t, got["output"])
	require.EqualValues(t, 2, got["chargedCredits"], "charged what the service reported")
	require.EqualValues(t, 1, calls.Load(), "called once")
	available, held := credits(t, env, key)
	require.EqualValues(t, 8, available)
	require.EqualValues(t, 0, held)
}
