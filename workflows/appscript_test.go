package workflows_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// fakeAppScript plays the run's row: runs answers RunAppScript's attempts in order (an error retries
// it), fails counts FailAppScript's records.
type fakeAppScript struct {
	runs     []func() (workflows.AppScriptOutcome, error)
	attempts int
	failed   []workflows.AppScriptFailure
}

func (f *fakeAppScript) run(context.Context, string) (workflows.AppScriptOutcome, error) {
	i := min(f.attempts, len(f.runs)-1)
	f.attempts++
	return f.runs[i]()
}

func (f *fakeAppScript) fail(_ context.Context, in workflows.AppScriptFailure) (workflows.AppScriptOutcome, error) {
	f.failed = append(f.failed, in)
	return workflows.AppScriptOutcome{RunID: in.RunID, Status: "failed", Error: in.Message}, nil
}

func appScriptEnv(f *fakeAppScript) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.AppScriptWorkflow, workflow.RegisterOptions{Name: workflows.AppScriptWorkflowName})
	env.RegisterActivityWithOptions(f.run, activity.RegisterOptions{Name: workflows.ActivityRunAppScript})
	env.RegisterActivityWithOptions(f.fail, activity.RegisterOptions{Name: workflows.ActivityFailAppScript})
	return env
}

// TestAppScriptWorkflowRetriesThenRecords: an attempt lost with its worker is retried, and the run's
// recorded outcome is the workflow's result; nothing is recorded failed.
func TestAppScriptWorkflowRetriesThenRecords(t *testing.T) {
	t.Parallel()
	f := &fakeAppScript{runs: []func() (workflows.AppScriptOutcome, error){
		func() (workflows.AppScriptOutcome, error) {
			return workflows.AppScriptOutcome{}, errors.New("worker lost")
		},
		func() (workflows.AppScriptOutcome, error) {
			return workflows.AppScriptOutcome{RunID: "arun_1", Status: "succeeded"}, nil
		},
	}}
	env := appScriptEnv(f)
	env.ExecuteWorkflow(workflows.AppScriptWorkflowName, workflows.AppScriptParams{RunID: "arun_1"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var out workflows.AppScriptOutcome
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, workflows.AppScriptOutcome{RunID: "arun_1", Status: "succeeded"}, out)
	require.Equal(t, 2, f.attempts)
	require.Empty(t, f.failed)
}

// TestAppScriptWorkflowGivesUpAndRecordsFailed: when every attempt fails the run is recorded failed with
// the reason, once.
func TestAppScriptWorkflowGivesUpAndRecordsFailed(t *testing.T) {
	t.Parallel()
	f := &fakeAppScript{runs: []func() (workflows.AppScriptOutcome, error){
		func() (workflows.AppScriptOutcome, error) {
			return workflows.AppScriptOutcome{}, temporal.NewApplicationError("engine broken", "Engine")
		},
	}}
	env := appScriptEnv(f)
	env.ExecuteWorkflow(workflows.AppScriptWorkflowName, workflows.AppScriptParams{RunID: "arun_2"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var out workflows.AppScriptOutcome
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, "failed", out.Status)
	require.Equal(t, 5, f.attempts, "the retry policy's five attempts")
	require.Len(t, f.failed, 1)
	require.Contains(t, f.failed[0].Message, "engine broken")
}
