package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// databaseEnv is a test environment with DatabaseWorkflow and recording activities; provisionFailures
// is how many provision attempts fail before one succeeds.
func databaseEnv(t *testing.T, provisionFailures int) (*testsuite.TestWorkflowEnvironment, *[]string) {
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.DatabaseWorkflow, workflow.RegisterOptions{Name: workflows.DatabaseWorkflowName})
	var calls []string
	attempts := 0
	env.RegisterActivityWithOptions(func(_ context.Context, accountID string) error {
		require.Equal(t, "acct_x", accountID)
		attempts++
		calls = append(calls, workflows.DatabaseOpProvision)
		if attempts <= provisionFailures {
			return errors.New("cluster away")
		}
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityProvisionDatabase})
	env.RegisterActivityWithOptions(func(_ context.Context, accountID string) error {
		require.Equal(t, "acct_x", accountID)
		calls = append(calls, workflows.DatabaseOpDeprovision)
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityDeprovisionDatabase})
	return env, &calls
}

// TestDatabaseProvisionRetriesAndSkipsItsOwnSignal: a provision whose cluster fails for a while is
// retried until it succeeds, and the start's own signal (SignalWithStart repeats the operation) does
// not provision twice.
func TestDatabaseProvisionRetriesAndSkipsItsOwnSignal(t *testing.T) {
	env, calls := databaseEnv(t, 2)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.SignalDatabaseOp, workflows.DatabaseOpProvision)
	}, 0)
	env.ExecuteWorkflow(workflows.DatabaseWorkflowName, workflows.DatabaseParams{AccountID: "acct_x", Op: workflows.DatabaseOpProvision})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"provision", "provision", "provision"}, *calls, "two failed attempts, one success, nothing more")
}

// TestDatabaseDeprovisionSignalledWhileProvisioning: a deprovision requested while the provision is
// still retrying joins the running workflow and runs after it.
func TestDatabaseDeprovisionSignalledWhileProvisioning(t *testing.T) {
	env, calls := databaseEnv(t, 1)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.SignalDatabaseOp, workflows.DatabaseOpDeprovision)
	}, 500*time.Millisecond)
	env.ExecuteWorkflow(workflows.DatabaseWorkflowName, workflows.DatabaseParams{AccountID: "acct_x", Op: workflows.DatabaseOpProvision})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"provision", "provision", "deprovision"}, *calls)
}

// TestDatabaseUnknownOpFails: an operation the workflow does not know fails it without retrying.
func TestDatabaseUnknownOpFails(t *testing.T) {
	env, calls := databaseEnv(t, 0)
	env.ExecuteWorkflow(workflows.DatabaseWorkflowName, workflows.DatabaseParams{AccountID: "acct_x", Op: "format"})
	require.True(t, env.IsWorkflowCompleted())
	require.ErrorContains(t, env.GetWorkflowError(), "unknown database operation")
	require.Empty(t, *calls)
}
