package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// walletTxEnv runs WalletTxWorkflow with stand-in activities: signed is what signing answers, succeeded
// the receipt, broadcastFailures how many broadcasts fail before one succeeds.
func walletTxEnv(t *testing.T, signed workflows.WalletTxSigned, succeeded bool, broadcastFailures int) (*testsuite.TestWorkflowEnvironment, *[]string, *[]workflows.WalletTxEnd) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.WalletTxWorkflow, workflow.RegisterOptions{Name: workflows.WalletTxWorkflowName})
	var steps []string
	var ends []workflows.WalletTxEnd
	env.RegisterActivityWithOptions(func(context.Context, string) (workflows.WalletTxSigned, error) {
		steps = append(steps, "sign")
		return signed, nil
	}, activity.RegisterOptions{Name: workflows.ActivitySignWalletTx})
	env.RegisterActivityWithOptions(func(context.Context, string) (workflows.WalletTxSent, error) {
		steps = append(steps, "broadcast")
		if broadcastFailures > 0 {
			broadcastFailures--
			return workflows.WalletTxSent{}, errors.New("node away")
		}
		return workflows.WalletTxSent{}, nil
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

// TestWalletTxNonceTakenFails: a signed send whose nonce another transaction took is never mined: it
// ends failed with the reason, without waiting for a receipt.
func TestWalletTxNonceTakenFails(t *testing.T) {
	env, _, ends := walletTxEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 0)
	blocked := workflows.WalletTxSent{BlockedCode: "nonce_used", BlockedError: "nonce 7 is taken"}
	env.OnActivity(workflows.ActivityBroadcastWalletTx, mock.Anything, "tx_1").Return(blocked, nil).Once()
	env.OnActivity(workflows.ActivityWaitWalletTxReceipt, mock.Anything, mock.Anything).Return(false, errors.New("no receipt is awaited")).Maybe()
	env.ExecuteWorkflow(workflows.WalletTxWorkflowName, workflows.WalletTxParams{TransactionID: "tx_1"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []workflows.WalletTxEnd{{TransactionID: "tx_1", Status: "failed", ErrorCode: "nonce_used", ErrorMessage: "nonce 7 is taken"}}, *ends)
	env.AssertExpectations(t)
}

// TestWalletTxReverted: a mined transaction that reverted ends failed.
func TestWalletTxReverted(t *testing.T) {
	env, _, ends := walletTxEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, false, 0)
	env.ExecuteWorkflow(workflows.WalletTxWorkflowName, workflows.WalletTxParams{TransactionID: "tx_1"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, "failed", (*ends)[0].Status)
	require.Equal(t, "reverted", (*ends)[0].ErrorCode)
}

// registerSettle stands in for the approval's settling local activity: it answers status.
func registerSettle(env *testsuite.TestWorkflowEnvironment, status string) {
	env.RegisterActivityWithOptions(func(_ context.Context, id string, _ *workflows.ApprovalDecision) (workflows.ApprovalOutcome, error) {
		return workflows.ApprovalOutcome{ApprovalID: id, Status: status}, nil
	}, activity.RegisterOptions{Name: workflows.ActivitySettleApproval})
}

// TestWalletTxWaitsForApproval: a send pending an approval signs nothing until the approval's outcome
// arrives; approved, it is signed, broadcast and confirmed once (the second copy of the outcome is
// received before the workflow closes).
func TestWalletTxWaitsForApproval(t *testing.T) {
	env, steps, ends := walletTxEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 0)
	registerSettle(env, workflows.ApprovalExpired)
	outcome := workflows.ApprovalOutcome{ApprovalID: "apr_1", Status: workflows.ApprovalApproved}
	env.RegisterDelayedCallback(func() {
		require.Empty(t, *steps, "nothing is signed before the decision")
		env.SignalWorkflow(workflows.SignalApprovalOutcome, outcome)
	}, time.Hour)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(workflows.SignalApprovalOutcome, outcome) }, time.Hour+time.Second)
	env.ExecuteWorkflow(workflows.WalletTxWorkflowName, workflows.WalletTxParams{TransactionID: "tx_1", ApprovalID: "apr_1",
		ApprovalExpiresAt: env.Now().Add(24 * time.Hour)})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"sign", "broadcast", "receipt"}, *steps)
	require.Equal(t, []workflows.WalletTxEnd{{TransactionID: "tx_1", Status: "confirmed"}}, *ends)
}

// TestWalletTxRejected: a rejected approval ends the send rejected, naming the approval; nothing is
// signed.
func TestWalletTxRejected(t *testing.T) {
	env, steps, ends := walletTxEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 0)
	registerSettle(env, workflows.ApprovalExpired)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.SignalApprovalOutcome, workflows.ApprovalOutcome{ApprovalID: "apr_1", Status: workflows.ApprovalRejected})
	}, time.Minute)
	env.ExecuteWorkflow(workflows.WalletTxWorkflowName, workflows.WalletTxParams{TransactionID: "tx_1", ApprovalID: "apr_1",
		ApprovalExpiresAt: env.Now().Add(24 * time.Hour)})
	require.NoError(t, env.GetWorkflowError())
	require.Empty(t, *steps)
	require.Equal(t, []workflows.WalletTxEnd{{TransactionID: "tx_1", Status: "rejected", ErrorCode: workflows.CodeWalletTxRejected,
		ErrorMessage: "the approval apr_1 was rejected"}}, *ends)
}

// TestWalletTxApprovalExpires: with no outcome by a minute past the approval's expiry, the send
// settles the approval itself (expired) and ends rejected.
func TestWalletTxApprovalExpires(t *testing.T) {
	env, steps, ends := walletTxEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 0)
	registerSettle(env, workflows.ApprovalExpired)
	env.ExecuteWorkflow(workflows.WalletTxWorkflowName, workflows.WalletTxParams{TransactionID: "tx_1", ApprovalID: "apr_1",
		ApprovalExpiresAt: env.Now().Add(time.Hour)})
	require.NoError(t, env.GetWorkflowError())
	require.Empty(t, *steps)
	require.Len(t, *ends, 1)
	require.Equal(t, "rejected", (*ends)[0].Status)
	require.Equal(t, workflows.CodeWalletTxExpired, (*ends)[0].ErrorCode)
}

// TestWalletTxApprovedButPaused: approved, but the wallet was paused before signing: signing reports
// it blocked, and the send fails naming the rule without a broadcast.
func TestWalletTxApprovedButPaused(t *testing.T) {
	env, steps, ends := walletTxEnv(t, workflows.WalletTxSigned{BlockedCode: "paused", BlockedError: "paused"}, true, 0)
	registerSettle(env, workflows.ApprovalExpired)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.SignalApprovalOutcome, workflows.ApprovalOutcome{ApprovalID: "apr_1", Status: workflows.ApprovalApproved})
	}, time.Minute)
	env.ExecuteWorkflow(workflows.WalletTxWorkflowName, workflows.WalletTxParams{TransactionID: "tx_1", ApprovalID: "apr_1",
		ApprovalExpiresAt: env.Now().Add(24 * time.Hour)})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"sign"}, *steps)
	require.Equal(t, "failed", (*ends)[0].Status)
	require.Equal(t, "paused", (*ends)[0].ErrorCode)
}

// TestWalletTxShortStepsRunLocally: signing, broadcast and the record of the end run as local activities
// (inside the workflow's tasks); only the receipt wait is a regular activity.
func TestWalletTxShortStepsRunLocally(t *testing.T) {
	t.Parallel()
	env, _, ends := walletTxEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 1)
	local, regular := recordActivityKinds(env)
	env.ExecuteWorkflow(workflows.WalletTxWorkflowName, workflows.WalletTxParams{TransactionID: "tx_1"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{workflows.ActivitySignWalletTx, workflows.ActivityBroadcastWalletTx, workflows.ActivityBroadcastWalletTx,
		workflows.ActivityFinishWalletTx}, *local)
	require.Equal(t, []string{workflows.ActivityWaitWalletTxReceipt}, *regular)
	require.Equal(t, []workflows.WalletTxEnd{{TransactionID: "tx_1", Status: "confirmed"}}, *ends)
}

// recordActivityKinds records the names of the local and of the regular activities env starts.
func recordActivityKinds(env *testsuite.TestWorkflowEnvironment) (*[]string, *[]string) {
	var local, regular []string
	env.SetOnLocalActivityStartedListener(func(info *activity.Info, _ context.Context, _ []any) {
		local = append(local, info.ActivityType.Name)
	})
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		regular = append(regular, info.ActivityType.Name)
	})
	return &local, &regular
}
