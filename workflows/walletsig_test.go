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

// walletSigEnv runs WalletSigWorkflow with a stand-in signing activity that fails failures times (a
// worker that died) before it answers done, and a rejecting activity that records the ends it is given.
func walletSigEnv(t *testing.T, done workflows.WalletSigDone, failures int) (*testsuite.TestWorkflowEnvironment, *[]string, *[]workflows.WalletSigEnd) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
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
	var ends []workflows.WalletSigEnd
	env.RegisterActivityWithOptions(func(_ context.Context, end workflows.WalletSigEnd) (workflows.WalletSigDone, error) {
		ends = append(ends, end)
		return workflows.WalletSigDone{Status: "rejected", ErrorCode: end.ErrorCode}, nil
	}, activity.RegisterOptions{Name: workflows.ActivityRejectWalletSig})
	return env, &calls, &ends
}

// TestWalletSigSignsOnceRetried: the signing activity is retried until it answers, and the workflow
// answers its status.
func TestWalletSigSignsOnceRetried(t *testing.T) {
	env, calls, _ := walletSigEnv(t, workflows.WalletSigDone{Status: "signed"}, 2)
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
	env, calls, _ := walletSigEnv(t, workflows.WalletSigDone{Status: "failed", ErrorCode: "paused"}, 0)
	env.ExecuteWorkflow(workflows.WalletSigWorkflowName, workflows.WalletSigParams{SignatureID: "sig_2"})
	require.NoError(t, env.GetWorkflowError())
	var done workflows.WalletSigDone
	require.NoError(t, env.GetWorkflowResult(&done))
	require.Equal(t, "paused", done.ErrorCode)
	require.Len(t, *calls, 1)
}

// TestWalletSigWaitsForApproval: a signature pending an approval is not signed until the approval's
// outcome arrives; approved, it is signed once (the second copy of the outcome is received before the
// workflow closes) and nothing is rejected.
func TestWalletSigWaitsForApproval(t *testing.T) {
	t.Parallel()
	env, calls, ends := walletSigEnv(t, workflows.WalletSigDone{Status: "signed"}, 0)
	registerSettle(env, workflows.ApprovalExpired)
	outcome := workflows.ApprovalOutcome{ApprovalID: "apr_1", Status: workflows.ApprovalApproved}
	env.RegisterDelayedCallback(func() {
		require.Empty(t, *calls, "nothing is signed before the decision")
		env.SignalWorkflow(workflows.SignalApprovalOutcome, outcome)
	}, time.Hour)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(workflows.SignalApprovalOutcome, outcome) }, time.Hour+time.Second)
	env.ExecuteWorkflow(workflows.WalletSigWorkflowName, workflows.WalletSigParams{SignatureID: "sig_1", ApprovalID: "apr_1",
		ApprovalExpiresAt: env.Now().Add(24 * time.Hour)})
	require.NoError(t, env.GetWorkflowError())
	var done workflows.WalletSigDone
	require.NoError(t, env.GetWorkflowResult(&done))
	require.Equal(t, workflows.WalletSigDone{Status: "signed"}, done)
	require.Equal(t, []string{"sig_1"}, *calls)
	require.Empty(t, *ends)
}

// TestWalletSigApprovalNotGranted: a rejected, expired (no outcome by a minute past the expiry: the
// workflow settles the approval itself) or cancelled approval ends the signature rejected with the
// send's codes, naming the approval; nothing is signed.
func TestWalletSigApprovalNotGranted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		outcome, code, message string
	}{
		{workflows.ApprovalRejected, workflows.CodeWalletTxRejected, "the approval apr_1 was rejected"},
		{"", workflows.CodeWalletTxExpired, "the approval apr_1 expired before anyone decided"},
		{workflows.ApprovalCancelled, workflows.CodeWalletTxCancelled, "the approval apr_1 was cancelled"},
	} {
		t.Run(tc.code, func(t *testing.T) {
			t.Parallel()
			env, calls, ends := walletSigEnv(t, workflows.WalletSigDone{Status: "signed"}, 0)
			registerSettle(env, workflows.ApprovalExpired)
			if tc.outcome != "" {
				env.RegisterDelayedCallback(func() {
					env.SignalWorkflow(workflows.SignalApprovalOutcome, workflows.ApprovalOutcome{ApprovalID: "apr_1", Status: tc.outcome})
				}, time.Minute)
			}
			env.ExecuteWorkflow(workflows.WalletSigWorkflowName, workflows.WalletSigParams{SignatureID: "sig_1", ApprovalID: "apr_1",
				ApprovalExpiresAt: env.Now().Add(time.Hour)})
			require.NoError(t, env.GetWorkflowError())
			var done workflows.WalletSigDone
			require.NoError(t, env.GetWorkflowResult(&done))
			require.Equal(t, workflows.WalletSigDone{Status: "rejected", ErrorCode: tc.code}, done)
			require.Empty(t, *calls, "nothing is signed")
			require.Equal(t, []workflows.WalletSigEnd{{SignatureID: "sig_1", ErrorCode: tc.code, ErrorMessage: tc.message}}, *ends)
		})
	}
}
