package workflows_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// fakeRuns records what the bookkeeping activities were asked to do.
type fakeRuns struct {
	running  []string
	outcomes []workflows.RunOutcome
	failMark int // fail MarkRunRunning this many times first
	// refuse, when set, makes FinishRun answer as for a value PostgreSQL refuses when it reports true.
	refuse func(workflows.RunOutcome) bool
	// stored, when set, is the outcome of a row already final when MarkRunRunning is asked to move it.
	stored *workflows.RunOutcome
}

func (f *fakeRuns) mark(_ context.Context, id string) (workflows.RunStart, error) {
	if f.failMark > 0 {
		f.failMark--
		return workflows.RunStart{}, temporal.NewApplicationError("db down", "transient")
	}
	if f.stored != nil {
		return workflows.RunStart{Final: true, Outcome: *f.stored}, nil
	}
	f.running = append(f.running, id)
	return workflows.RunStart{}, nil
}

func (f *fakeRuns) finish(_ context.Context, o workflows.RunOutcome) error {
	if f.refuse != nil && f.refuse(o) {
		return temporal.NewNonRetryableApplicationError("unsupported Unicode escape sequence", workflows.ErrorTypeUnstorable, nil)
	}
	f.outcomes = append(f.outcomes, o)
	return nil
}

func newEnv(t *testing.T) (*testsuite.TestWorkflowEnvironment, *fakeRuns) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	f := &fakeRuns{}
	env.RegisterWorkflowWithOptions(workflows.RunWorkflow, workflow.RegisterOptions{Name: workflows.RunWorkflowName})
	env.RegisterActivityWithOptions(f.mark, activity.RegisterOptions{Name: workflows.ActivityMarkRunning})
	env.RegisterActivityWithOptions(f.finish, activity.RegisterOptions{Name: workflows.ActivityFinishRun})
	return env, f
}

func params(op string, input string) workflows.RunParams {
	return workflows.RunParams{RunID: "run_1", ServiceID: "managed-workflows", OperationID: op, Input: json.RawMessage(input)}
}

func TestEchoReturnsInput(t *testing.T) {
	t.Parallel()
	env, f := newEnv(t)
	f.failMark = 2 // bookkeeping retries through transient database errors
	env.ExecuteWorkflow(workflows.RunWorkflowName, params("echo", `{"a":1}`))
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var out workflows.RunOutcome
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, "succeeded", out.Status)
	require.JSONEq(t, `{"a":1}`, string(out.Output))
	require.Equal(t, []string{"run_1"}, f.running)
	require.Len(t, f.outcomes, 1)
	require.Equal(t, out, f.outcomes[0])
}

// TestARunAlreadyFinalNeverPerforms: a run whose row ended before its workflow marked it running (it
// was cancelled while no workflow existed, and a sweep started one anyway) ends with the stored outcome
// without performing its operation or recording anything.
func TestARunAlreadyFinalNeverPerforms(t *testing.T) {
	t.Parallel()
	env, f := newEnv(t)
	f.stored = &workflows.RunOutcome{RunID: "run_1", Status: "cancelled", ErrorCode: "cancelled", ErrorMessage: "the run was cancelled"}
	env.ExecuteWorkflow(workflows.RunWorkflowName, params("echo", `{"a":1}`))
	require.True(t, env.IsWorkflowCompleted())
	var canceled *temporal.CanceledError
	require.ErrorAs(t, env.GetWorkflowError(), &canceled)
	require.Empty(t, f.outcomes, "nothing recorded over the stored outcome")
}

func TestSleepWaitsOnADurableTimer(t *testing.T) {
	t.Parallel()
	env, f := newEnv(t)
	start := env.Now()
	env.ExecuteWorkflow(workflows.RunWorkflowName, params("sleep", `{"seconds": 3600}`))
	require.NoError(t, env.GetWorkflowError())
	require.GreaterOrEqual(t, env.Now().Sub(start), time.Hour, "time skipping must pass the whole hour")
	require.Equal(t, "succeeded", f.outcomes[0].Status)
	require.JSONEq(t, `{"sleptSeconds":3600}`, string(f.outcomes[0].Output))
}

func TestSleepCancelledEndsCancelled(t *testing.T) {
	t.Parallel()
	env, f := newEnv(t)
	env.RegisterDelayedCallback(env.CancelWorkflow, 10*time.Minute)
	env.ExecuteWorkflow(workflows.RunWorkflowName, params("sleep", `{"seconds": 3600}`))
	require.True(t, temporal.IsCanceledError(env.GetWorkflowError()), "got %v", env.GetWorkflowError())
	require.Len(t, f.outcomes, 1)
	require.Equal(t, "cancelled", f.outcomes[0].Status)
}

func TestBadSleepInputFailsTheRun(t *testing.T) {
	t.Parallel()
	env, f := newEnv(t)
	env.ExecuteWorkflow(workflows.RunWorkflowName, params("sleep", `{"seconds": -1}`))
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, "failed", f.outcomes[0].Status)
	require.Equal(t, workflows.CodeInvalidInput, f.outcomes[0].ErrorCode)
}

func TestUnknownOperationFailsTheRun(t *testing.T) {
	t.Parallel()
	env, f := newEnv(t)
	env.ExecuteWorkflow(workflows.RunWorkflowName, params("nope", `{}`))
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, workflows.CodeUnknownOperation, f.outcomes[0].ErrorCode)
}

// TestUnstorableOutcomeFailsTheRun: an outcome FinishRun cannot store ends the run failed with a clear
// code (output_unstorable when the output was refused, outcome_unstorable otherwise), recorded once.
func TestUnstorableOutcomeFailsTheRun(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ op, input, code string }{
		{"echo", `{"a":"\u0000"}`, workflows.CodeOutputUnstorable},
		{"nope", `{}`, workflows.CodeOutcomeUnstorable},
	} {
		env, f := newEnv(t)
		f.refuse = func(o workflows.RunOutcome) bool { return o.ErrorCode != c.code }
		env.ExecuteWorkflow(workflows.RunWorkflowName, params(c.op, c.input))
		require.True(t, env.IsWorkflowCompleted())
		require.NoError(t, env.GetWorkflowError())
		var out workflows.RunOutcome
		require.NoError(t, env.GetWorkflowResult(&out))
		require.Equal(t, "failed", out.Status, c.op)
		require.Equal(t, c.code, out.ErrorCode)
		require.Len(t, f.outcomes, 1, "the storable outcome is recorded once")
		require.Equal(t, c.code, f.outcomes[0].ErrorCode)
		require.Empty(t, f.outcomes[0].Output)
	}
}

// TestOtherFinishFailuresStayFailures: a final FinishRun error that is not about the values (the run row
// is missing) still fails the workflow, as before.
func TestOtherFinishFailuresStayFailures(t *testing.T) {
	t.Parallel()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	f := &fakeRuns{}
	env.RegisterWorkflowWithOptions(workflows.RunWorkflow, workflow.RegisterOptions{Name: workflows.RunWorkflowName})
	env.RegisterActivityWithOptions(f.mark, activity.RegisterOptions{Name: workflows.ActivityMarkRunning})
	env.RegisterActivityWithOptions(func(context.Context, workflows.RunOutcome) error {
		return temporal.NewNonRetryableApplicationError("run row not found", workflows.ErrorTypeRunMissing, nil)
	}, activity.RegisterOptions{Name: workflows.ActivityFinishRun})
	env.ExecuteWorkflow(workflows.RunWorkflowName, params("echo", `{}`))
	require.ErrorContains(t, env.GetWorkflowError(), "run row not found")
}

// TestLostRunFailsAtOnce: a run started only to be failed (RunParams.Lost) records run_lost without
// running, and cancels the approval it waited for.
func TestLostRunFailsAtOnce(t *testing.T) {
	t.Parallel()
	env, f := newEnv(t)
	var cancelled []string
	env.RegisterActivityWithOptions(func(_ context.Context, id string) (workflows.ApprovalOutcome, error) {
		cancelled = append(cancelled, id)
		return workflows.ApprovalOutcome{ApprovalID: id, Status: workflows.ApprovalCancelled}, nil
	}, activity.RegisterOptions{Name: workflows.ActivityCancelApproval})
	p := params("echo", `{}`)
	p.ApprovalID, p.Lost = "apr_1", "the request died"
	env.ExecuteWorkflow(workflows.RunWorkflowName, p)
	require.NoError(t, env.GetWorkflowError())
	require.Empty(t, f.running, "a lost run never runs")
	require.Equal(t, []workflows.RunOutcome{{RunID: "run_1", Status: "failed", ErrorCode: workflows.CodeRunLost, ErrorMessage: "the request died"}}, f.outcomes)
	require.Equal(t, []string{"apr_1"}, cancelled)
}

func TestSleepDuration(t *testing.T) {
	t.Parallel()
	d, err := workflows.SleepDuration(json.RawMessage(`{"seconds": 1.5}`))
	require.NoError(t, err)
	require.Equal(t, 1500*time.Millisecond, d)
	for _, bad := range []string{`{}`, `{"seconds": "1"}`, `{"seconds": 86401}`, `[]`} {
		_, err := workflows.SleepDuration(json.RawMessage(bad))
		require.Error(t, err, bad)
	}
}
