package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/workflows"
)

// workflowExecutions counts the executions Temporal has with the workflow id.
func workflowExecutions(t *testing.T, env *apptest.Env, workflowID string) int {
	t.Helper()
	resp, err := env.Temporal.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
		Query: fmt.Sprintf("WorkflowId = %q", workflowID)})
	require.NoError(t, err)
	return int(resp.GetCount())
}

// workflowUnknown reports whether Temporal has no workflow with the id.
func workflowUnknown(env *apptest.Env, workflowID string) bool {
	_, err := env.Temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
	var notFound *serviceerror.NotFound
	return errors.As(err, &notFound)
}

// TestSweepStartsRunsLeftByADeadRequest: a run row whose creating request died before starting its
// workflow (inserted here as that request left it) is started by the API's own sweep once the grace
// period is past, exactly once although two API processes sweep; a run inside the grace period is left
// to its request.
func TestSweepStartsRunsLeftByADeadRequest(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{RunSweepInterval: 50 * time.Millisecond})
	env.SecondAPI(t) // a second process sweeping the same runs
	a := newRunsAccount(t, env)
	now := time.Now()
	insertRuns(t, env, a,
		storedRun{id: "run_orphan", service: client.ServiceManagedWorkflows, operation: "echo", status: client.RunQueued, created: now.Add(-2 * time.Minute)},
		storedRun{id: "run_young", service: client.ServiceManagedWorkflows, operation: "echo", status: client.RunQueued, created: now})

	got := waitRun(t, env, a.secret, "run_orphan", client.RunSucceeded)
	require.Equal(t, map[string]any{}, got["output"])
	require.Equal(t, 1, workflowExecutions(t, env, "run/run_orphan"), "one workflow for the run")
	require.Equal(t, 1, countStarted(t, env, "run/run_orphan"))
	var checked *time.Time
	require.NoError(t, env.DB.NewRaw("SELECT start_checked_at FROM runs WHERE id = 'run_orphan'").Scan(context.Background(), &checked))
	require.NotNil(t, checked, "a swept run is passed by afterwards")

	// The sweep that started the orphan saw the young run too, and left it to its request.
	var unchecked int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM runs WHERE id = 'run_young' AND start_checked_at IS NULL").Scan(context.Background(), &unchecked))
	require.Equal(t, 1, unchecked)
	resp := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/run_young", Key: a.secret})
	require.Equal(t, client.RunQueued, resp.Body["run"].(map[string]any)["status"])
	require.True(t, workflowUnknown(env, "run/run_young"))
}

// countStarted counts the start events in the workflow's history.
func countStarted(t *testing.T, env *apptest.Env, workflowID string) int {
	t.Helper()
	iter := env.Temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	n := 0
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		if ev.GetEventType() == enums.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED {
			n++
		}
	}
	return n
}

// TestSweepFailsLostRuns: a run left unstarted for longer than run.LostAfter ends failed with run_lost
// (through its workflow, so at most one workflow decides), its pending approval cancelled; a run whose
// workflow closed without recording an outcome ends failed with run_lost too.
func TestSweepFailsLostRuns(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{RunSweepInterval: 50 * time.Millisecond})
	a := newRunsAccount(t, env)
	old := time.Now().Add(-20 * time.Minute)
	ctx := context.Background()
	// The approval first: the sweep may take the gated run as soon as its row exists.
	_, err := env.DB.NewRaw(`INSERT INTO approvals (id, account_id, key_id, kind, service_id, operation_id, input, run_id, workflow_id, expires_at, created_at)
		VALUES ('apr_lost', ?, ?, 'run', 'managed-workflows', 'echo', '{}', 'run_lost_gated', 'approval/apr_lost', ?, ?)`,
		a.accountID, a.keyID, time.Now().Add(time.Hour), old).Exec(ctx)
	require.NoError(t, err)
	insertRuns(t, env, a, storedRun{id: "run_lost", service: client.ServiceManagedWorkflows, operation: "echo", status: client.RunQueued, created: old})
	insertRunsWaitingFor(t, env, a, approvalID("apr_lost"),
		storedRun{id: "run_lost_gated", service: client.ServiceManagedWorkflows, operation: "echo", status: client.RunAwaitingApproval, created: old})

	for _, id := range []string{"run_lost", "run_lost_gated"} {
		got := waitRun(t, env, a.secret, id, client.RunFailed)
		require.Equal(t, workflows.CodeRunLost, got["error"].(map[string]any)["code"], id)
		require.Equal(t, 1, countStarted(t, env, "run/"+id))
	}
	var status string
	require.NoError(t, env.DB.NewRaw("SELECT status FROM approvals WHERE id = 'apr_lost'").Scan(ctx, &status))
	require.Equal(t, client.ApprovalCancelled, status)
	require.True(t, workflowUnknown(env, "approval/apr_lost"), "a lost run's approval is never started")
}

// TestSweepFailsRunsWhoseWorkflowClosedSilently: a queued run whose workflow was terminated before it
// recorded anything ends failed with run_lost.
func TestSweepFailsRunsWhoseWorkflowClosedSilently(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{RunSweepInterval: 50 * time.Millisecond, NoWorker: true})
	a := newRunsAccount(t, env)
	ctx := context.Background()
	_, err := env.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: "run/run_terminated", TaskQueue: workflows.TaskQueue},
		workflows.RunWorkflowName, workflows.RunParams{RunID: "run_terminated", ServiceID: client.ServiceManagedWorkflows, OperationID: "echo"})
	require.NoError(t, err)
	require.NoError(t, env.Temporal.TerminateWorkflow(ctx, "run/run_terminated", "", "by an operator"))
	insertRuns(t, env, a, storedRun{id: "run_terminated", service: client.ServiceManagedWorkflows, operation: "echo",
		status: client.RunQueued, created: time.Now().Add(-2 * time.Minute)})
	got := waitRun(t, env, a.secret, "run_terminated", client.RunFailed)
	require.Equal(t, workflows.CodeRunLost, got["error"].(map[string]any)["code"])
}

// TestSweepRetriesRunsItCannotSettleLater: a run the sweep cannot settle (its approval row is missing)
// is recorded as tried and retried only run.SweepRetry later, so it does not hold back newer runs; one
// still unsettled past run.LostAfter is failed with run_lost.
func TestSweepRetriesRunsItCannotSettleLater(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{RunSweepInterval: 50 * time.Millisecond})
	a := newRunsAccount(t, env)
	now := time.Now()
	insertRunsWaitingFor(t, env, a, approvalID("apr_missing"),
		storedRun{id: "run_broken", service: client.ServiceManagedWorkflows, operation: "echo", status: client.RunAwaitingApproval, created: now.Add(-3 * time.Minute)},
		storedRun{id: "run_broken_old", service: client.ServiceManagedWorkflows, operation: "echo", status: client.RunAwaitingApproval, created: now.Add(-20 * time.Minute)})
	insertRuns(t, env, a, storedRun{id: "run_newer", service: client.ServiceManagedWorkflows, operation: "echo", status: client.RunQueued, created: now.Add(-2 * time.Minute)})
	ctx := context.Background()

	waitRun(t, env, a.secret, "run_newer", client.RunSucceeded)
	got := waitRun(t, env, a.secret, "run_broken_old", client.RunFailed)
	require.Equal(t, workflows.CodeRunLost, got["error"].(map[string]any)["code"])

	var row struct {
		Status         string     `bun:"status"`
		StartCheckedAt *time.Time `bun:"start_checked_at"`
		RetryLater     bool       `bun:"retry_later"`
	}
	require.NoError(t, env.DB.NewRaw(`SELECT status, start_checked_at, start_retry_at > now() + interval '30 seconds' AS retry_later
		FROM runs WHERE id = 'run_broken'`).Scan(ctx, &row))
	require.Equal(t, client.RunAwaitingApproval, row.Status)
	require.Nil(t, row.StartCheckedAt, "not settled: tried again later")
	require.True(t, row.RetryLater, "its attempt is recorded, so sweeps take it again only a SweepRetry later")
}

// approvalID is an approval id for storedRun.approval.
func approvalID(id string) *string { return &id }
