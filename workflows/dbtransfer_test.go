package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// transferCalls records what the transfer workflow asked of its activities.
type transferCalls struct {
	closes int
	runs   int
	ends   []workflows.TransferEnd
}

// transferEnv is a test environment with DatabaseTransferWorkflow; run is the RunTransfer activity and
// closeErr what CloseTransferParts answers.
func transferEnv(t *testing.T, run func(ctx context.Context) error, closeErr error) (*testsuite.TestWorkflowEnvironment, *transferCalls) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.DatabaseTransferWorkflow, workflow.RegisterOptions{Name: workflows.DatabaseTransferWorkflowName})
	calls := &transferCalls{}
	env.RegisterActivityWithOptions(func(context.Context, string) error {
		calls.closes++
		return closeErr
	}, activity.RegisterOptions{Name: workflows.ActivityCloseTransferParts})
	env.RegisterActivityWithOptions(func(ctx context.Context, id string) error {
		require.Equal(t, "xfer_1", id)
		calls.runs++
		return run(ctx)
	}, activity.RegisterOptions{Name: workflows.ActivityRunTransfer})
	env.RegisterActivityWithOptions(func(_ context.Context, end workflows.TransferEnd) error {
		calls.ends = append(calls.ends, end)
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityFinishTransfer})
	return env, calls
}

func transferParams(kind string) workflows.DatabaseTransferParams {
	return workflows.DatabaseTransferParams{TransferID: "xfer_1", AccountID: "acct_x", Kind: kind,
		AwaitParts: 24 * time.Hour, KeepArchive: 24 * time.Hour}
}

func statuses(ends []workflows.TransferEnd) []string {
	var out []string
	for _, e := range ends {
		out = append(out, e.Status)
	}
	return out
}

// complete sends the complete update and records its answer.
func complete(env *testsuite.TestWorkflowEnvironment, answer *error) {
	env.UpdateWorkflow(workflows.UpdateTransferComplete, "complete", &testsuite.TestUpdateCallback{
		OnAccept: func() {}, OnReject: func(err error) { *answer = err }, OnComplete: func(_ interface{}, err error) { *answer = err }})
}

// TestTransferExportCompletesThenExpires: an export runs, completes, keeps its archive for KeepArchive
// and then expires it.
func TestTransferExportCompletesThenExpires(t *testing.T) {
	env, calls := transferEnv(t, func(context.Context) error { return nil }, nil)
	env.ExecuteWorkflow(workflows.DatabaseTransferWorkflowName, transferParams("export"))
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, 1, calls.runs)
	require.Equal(t, []string{"completed", "expired"}, statuses(calls.ends))
}

// TestTransferExportCancelledAfterCompletion: a cancel while the archive is kept deletes it at once.
func TestTransferExportCancelledAfterCompletion(t *testing.T) {
	env, calls := transferEnv(t, func(context.Context) error { return nil }, nil)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(workflows.SignalTransferCancel, nil) }, time.Hour)
	env.ExecuteWorkflow(workflows.DatabaseTransferWorkflowName, transferParams("export"))
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"completed", "cancelled"}, statuses(calls.ends))
}

// TestTransferImportRunsOnceCompleted: an import waits for the complete update, whose repeat changes
// nothing, then restores and completes; an export refuses the update.
func TestTransferImportRunsOnceCompleted(t *testing.T) {
	env, calls := transferEnv(t, func(context.Context) error { return nil }, nil)
	var first, second error = errors.New("unanswered"), errors.New("unanswered")
	env.RegisterDelayedCallback(func() { complete(env, &first) }, time.Minute)
	env.RegisterDelayedCallback(func() { complete(env, &second) }, time.Minute+time.Second)
	env.ExecuteWorkflow(workflows.DatabaseTransferWorkflowName, transferParams("import"))
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, first)
	require.Equal(t, 1, calls.closes)
	require.Equal(t, 1, calls.runs)
	require.Equal(t, []string{"completed"}, statuses(calls.ends), "an import keeps nothing to expire")
}

// TestTransferImportGapAnswersTheUpdate: a part list that cannot close answers the update with the
// reason and the import keeps waiting, here until it expires.
func TestTransferImportGapAnswersTheUpdate(t *testing.T) {
	gap := temporal.NewNonRetryableApplicationError("part 2 is missing", "transfer_parts", nil)
	env, calls := transferEnv(t, func(context.Context) error { return nil }, gap)
	var answer error
	env.RegisterDelayedCallback(func() { complete(env, &answer) }, time.Minute)
	env.ExecuteWorkflow(workflows.DatabaseTransferWorkflowName, transferParams("import"))
	require.NoError(t, env.GetWorkflowError())
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, answer, &appErr)
	require.Equal(t, "transfer_parts", appErr.Type())
	require.Zero(t, calls.runs)
	require.Equal(t, []string{"expired"}, statuses(calls.ends))
}

// TestTransferImportCancelledWhileAwaitingParts: a cancel ends the wait; a later complete is refused.
func TestTransferImportCancelledWhileAwaitingParts(t *testing.T) {
	env, calls := transferEnv(t, func(context.Context) error { return nil }, nil)
	var answer error
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(workflows.SignalTransferCancel, nil) }, time.Minute)
	env.RegisterDelayedCallback(func() { complete(env, &answer) }, time.Minute)
	env.ExecuteWorkflow(workflows.DatabaseTransferWorkflowName, transferParams("import"))
	require.NoError(t, env.GetWorkflowError())
	require.Zero(t, calls.runs)
	require.Equal(t, []string{"cancelled"}, statuses(calls.ends))
}

// TestTransferRefusedArchiveFails: a refusal of the archive fails the transfer with its code, not
// retried.
func TestTransferRefusedArchiveFails(t *testing.T) {
	env, calls := transferEnv(t, func(context.Context) error {
		return temporal.NewNonRetryableApplicationError("manifest digest differs", workflows.ErrorTypeTransferUnretryable+"archive_tampered", nil)
	}, nil)
	var answer error
	env.RegisterDelayedCallback(func() { complete(env, &answer) }, time.Minute)
	env.ExecuteWorkflow(workflows.DatabaseTransferWorkflowName, transferParams("import"))
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, 1, calls.runs)
	require.Equal(t, []workflows.TransferEnd{{TransferID: "xfer_1", Status: "failed", ErrorCode: "archive_tampered",
		ErrorMessage: "manifest digest differs"}}, calls.ends)
}

// TestTransferRetriesThenFails: an export whose work keeps failing is retried, then failed with
// transfer_failed and the last error.
func TestTransferRetriesThenFails(t *testing.T) {
	env, calls := transferEnv(t, func(context.Context) error { return errors.New("cluster away") }, nil)
	env.ExecuteWorkflow(workflows.DatabaseTransferWorkflowName, transferParams("export"))
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, 10, calls.runs)
	require.Len(t, calls.ends, 1)
	require.Equal(t, "failed", calls.ends[0].Status)
	require.Equal(t, "transfer_failed", calls.ends[0].ErrorCode)
	require.Contains(t, calls.ends[0].ErrorMessage, "cluster away")
}

// TestTransferCancelledWhileRunning: a cancel stops the running work, waits for it to stop, and
// records cancelled.
func TestTransferCancelledWhileRunning(t *testing.T) {
	env, calls := transferEnv(t, func(ctx context.Context) error {
		<-ctx.Done() // a long export, until cancelled
		return ctx.Err()
	}, nil)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(workflows.SignalTransferCancel, nil) }, time.Second)
	env.ExecuteWorkflow(workflows.DatabaseTransferWorkflowName, transferParams("export"))
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"cancelled"}, statuses(calls.ends))
}
