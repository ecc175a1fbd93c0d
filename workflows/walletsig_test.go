package workflows_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// walletSigEnv runs WalletSigWorkflow with a stand-in signing activity that fails failures times (a
// worker that died) before it answers done.
func walletSigEnv(t *testing.T, done workflows.WalletSigDone, failures int) (*testsuite.TestWorkflowEnvironment, *[]string) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(workflows.WalletSigWorkflow, workflow.RegisterOptions{Name: workflows.WalletSigWorkflowName})
	var calls []string
	env.RegisterActivityWithOptions(func(_ context.Context, id string) (workflows.WalletSigDone, error) {
		calls = append(calls, id)
		if failures > 0 {
			failures--
			return workflows.WalletSigDone{}, errors.New("worker lost")
		}
		return done, nil
	}, activity.RegisterOptions{Name: workflows.ActivitySignWalletSig})
	return env, &calls
}

// TestWalletSigSignsOnceRetried: the signing activity is retried until it answers, and the workflow
// answers its status.
func TestWalletSigSignsOnceRetried(t *testing.T) {
	env, calls := walletSigEnv(t, workflows.WalletSigDone{Status: "signed"}, 2)
	env.ExecuteWorkflow(workflows.WalletSigWorkflowName, workflows.WalletSigParams{SignatureID: "sig_1"})
	require.NoError(t, env.GetWorkflowError())
	var done workflows.WalletSigDone
	require.NoError(t, env.GetWorkflowResult(&done))
	require.Equal(t, workflows.WalletSigDone{Status: "signed"}, done)
	require.Equal(t, []string{"sig_1", "sig_1", "sig_1"}, *calls)
}

// TestWalletSigPausedFails: a signature the activity refuses (the wallet was paused) ends failed with
// the rule, without another attempt.
func TestWalletSigPausedFails(t *testing.T) {
	env, calls := walletSigEnv(t, workflows.WalletSigDone{Status: "failed", ErrorCode: "paused"}, 0)
	env.ExecuteWorkflow(workflows.WalletSigWorkflowName, workflows.WalletSigParams{SignatureID: "sig_2"})
	require.NoError(t, env.GetWorkflowError())
	var done workflows.WalletSigDone
	require.NoError(t, env.GetWorkflowResult(&done))
	require.Equal(t, "paused", done.ErrorCode)
	require.Len(t, *calls, 1)
}
