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

// walletTxEnv runs WalletTxWorkflow with stand-in activities: signed is what signing answers, succeeded
// the receipt, broadcastFailures how many broadcasts fail before one succeeds.
func walletTxEnv(t *testing.T, signed workflows.WalletTxSigned, succeeded bool, broadcastFailures int) (*testsuite.TestWorkflowEnvironment, *[]string, *[]workflows.WalletTxEnd) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(workflows.WalletTxWorkflow, workflow.RegisterOptions{Name: workflows.WalletTxWorkflowName})
	var steps []string
	var ends []workflows.WalletTxEnd
	env.RegisterActivityWithOptions(func(context.Context, string) (workflows.WalletTxSigned, error) {
		steps = append(steps, "sign")
		return signed, nil
	}, activity.RegisterOptions{Name: workflows.ActivitySignWalletTx})
	env.RegisterActivityWithOptions(func(context.Context, string) error {
		steps = append(steps, "broadcast")
		if broadcastFailures > 0 {
			broadcastFailures--
			return errors.New("node away")
		}
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityBroadcastWalletTx})
	env.RegisterActivityWithOptions(func(context.Context, string) (bool, error) {
		steps = append(steps, "receipt")
		return succeeded, nil
	}, activity.RegisterOptions{Name: workflows.ActivityWaitWalletTxReceipt})
	env.RegisterActivityWithOptions(func(_ context.Context, end workflows.WalletTxEnd) error {
		ends = append(ends, end)
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityFinishWalletTx})
	return env, &steps, &ends
}

// TestWalletTxConfirms: sign, broadcast (retried while the node is away), receipt, confirmed once.
func TestWalletTxConfirms(t *testing.T) {
	env, steps, ends := walletTxEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 2)
	env.ExecuteWorkflow(workflows.WalletTxWorkflowName, workflows.WalletTxParams{TransactionID: "tx_1"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"sign", "broadcast", "broadcast", "broadcast", "receipt"}, *steps)
	require.Equal(t, []workflows.WalletTxEnd{{TransactionID: "tx_1", Status: "confirmed"}}, *ends)
}

// TestWalletTxBlockedNeverBroadcasts: a send blocked at signing (the wallet was paused) fails with the
// reason and is never broadcast.
func TestWalletTxBlockedNeverBroadcasts(t *testing.T) {
	env, steps, ends := walletTxEnv(t, workflows.WalletTxSigned{BlockedCode: "paused", BlockedError: "paused"}, true, 0)
	env.ExecuteWorkflow(workflows.WalletTxWorkflowName, workflows.WalletTxParams{TransactionID: "tx_1"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"sign"}, *steps)
	require.Equal(t, []workflows.WalletTxEnd{{TransactionID: "tx_1", Status: "failed", ErrorCode: "paused", ErrorMessage: "paused"}}, *ends)
}

// TestWalletTxReverted: a mined transaction that reverted ends failed.
func TestWalletTxReverted(t *testing.T) {
	env, _, ends := walletTxEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, false, 0)
	env.ExecuteWorkflow(workflows.WalletTxWorkflowName, workflows.WalletTxParams{TransactionID: "tx_1"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, "failed", (*ends)[0].Status)
	require.Equal(t, "reverted", (*ends)[0].ErrorCode)
}
