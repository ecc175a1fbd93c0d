package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// fireEnv is a test environment with AutomationFireWorkflow whose prepare activity answers fire, and a
// stand-in RunWorkflow that records the runs it was started for.
func fireEnv(t *testing.T, fire workflows.AutomationFire) (*testsuite.TestWorkflowEnvironment, *[]string, *[]string, *[]time.Time) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.AutomationFireWorkflow, workflow.RegisterOptions{Name: workflows.AutomationFireWorkflowName})
	var runs, pauses []string
	var asked []time.Time
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, p workflows.RunParams) error {
		runs = append(runs, p.RunID)
		return workflow.Sleep(ctx, time.Hour) // a long run: the fire waits for it
	}, workflow.RegisterOptions{Name: workflows.RunWorkflowName})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, p workflows.AppScriptParams) (workflows.AppScriptOutcome, error) {
		runs = append(runs, "appscript/"+p.RunID)
		return workflows.AppScriptOutcome{RunID: p.RunID, Status: "succeeded"}, workflow.Sleep(ctx, time.Hour) // a long script
	}, workflow.RegisterOptions{Name: workflows.AppScriptWorkflowName})
	env.RegisterActivityWithOptions(func(_ context.Context, in workflows.AutomationFireInput) (workflows.AutomationFire, error) {
		require.Equal(t, "auto_1", in.AutomationID)
		asked = append(asked, in.ScheduledAt)
		return fire, nil
	}, activity.RegisterOptions{Name: workflows.ActivityPrepareAutomationFire})
	env.RegisterActivityWithOptions(func(_ context.Context, id, note string) error {
		pauses = append(pauses, id+": "+note)
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityPauseAutomationSchedule})
	return env, &runs, &pauses, &asked
}

// TestAutomationFireStartsItsRunAndWaits: a fire starts the run it prepared as run/<runId> and ends
// only when the run does, so the schedule's overlap policy sees the run going.
func TestAutomationFireStartsItsRunAndWaits(t *testing.T) {
	env, runs, pauses, asked := fireEnv(t, workflows.AutomationFire{RunID: "run_1", AccountID: "acct_x",
		Run: workflows.RunParams{RunID: "run_1", ServiceID: "managed-workflows", OperationID: "echo"}})
	start := env.Now()
	env.ExecuteWorkflow(workflows.AutomationFireWorkflowName, workflows.AutomationFireParams{AutomationID: "auto_1"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"run_1"}, *runs)
	require.Empty(t, *pauses)
	require.Len(t, *asked, 1)
	require.WithinDuration(t, start, (*asked)[0], time.Second, "a fire not started by a schedule uses its start time")
	require.GreaterOrEqual(t, env.Now().Sub(start), time.Hour, "the fire waited for its run")
}

// TestAutomationFireStartsItsAppScriptAndWaits: an app script fire starts appscript/<runId> and ends
// only when the script does, so the schedule's overlap policy sees the script going.
func TestAutomationFireStartsItsAppScriptAndWaits(t *testing.T) {
	env, runs, _, _ := fireEnv(t, workflows.AutomationFire{AccountID: "acct_x",
		AppRun: &workflows.AppScriptStart{RunID: "arun_1", ServiceID: "managed-agents", OperationID: "apps.scripts.run", App: "a", Script: "main"}})
	start := env.Now()
	env.ExecuteWorkflow(workflows.AutomationFireWorkflowName, workflows.AutomationFireParams{AutomationID: "auto_1"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"appscript/arun_1"}, *runs)
	require.GreaterOrEqual(t, env.Now().Sub(start), time.Hour, "the fire waited for its script")
}

// TestAutomationFireRefusedStartsNothing: a fire the limits refused starts no run.
func TestAutomationFireRefusedStartsNothing(t *testing.T) {
	env, runs, pauses, _ := fireEnv(t, workflows.AutomationFire{Skipped: "runs_per_day", AccountID: "acct_x"})
	env.ExecuteWorkflow(workflows.AutomationFireWorkflowName, workflows.AutomationFireParams{AutomationID: "auto_1"})
	require.NoError(t, env.GetWorkflowError())
	require.Empty(t, *runs)
	require.Empty(t, *pauses)
}

// TestAutomationFireLastExecutionPauses: the fire that uses the last execution pauses the schedule
// and still starts its run.
func TestAutomationFireLastExecutionPauses(t *testing.T) {
	env, runs, pauses, _ := fireEnv(t, workflows.AutomationFire{RunID: "run_9", AccountID: "acct_x", Pause: true, Note: "used up",
		Run: workflows.RunParams{RunID: "run_9", ServiceID: "managed-workflows", OperationID: "echo"}})
	env.ExecuteWorkflow(workflows.AutomationFireWorkflowName, workflows.AutomationFireParams{AutomationID: "auto_1"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"auto_1: used up"}, *pauses)
	require.Equal(t, []string{"run_9"}, *runs)
}
