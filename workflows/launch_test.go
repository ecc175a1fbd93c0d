package workflows_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// TestLaunchSponsorsSendsThenFinishes: the gas is sponsored (retried while the chain is away) before the
// child wallettx/<transactionId> signs, broadcasts and confirms the launch transaction once; the launch's
// end is recorded after the transaction's (retried until it has ended).
func TestLaunchSponsorsSendsThenFinishes(t *testing.T) {
	env, steps, ends := walletTxEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 0)
	env.RegisterWorkflowWithOptions(workflows.LaunchWorkflow, workflow.RegisterOptions{Name: workflows.LaunchWorkflowName})
	sponsorFailures, finishFailures := 2, 1
	env.RegisterActivityWithOptions(func(_ context.Context, id string) (workflows.LaunchSponsored, error) {
		*steps = append(*steps, "sponsor "+id)
		if sponsorFailures > 0 {
			sponsorFailures--
			return workflows.LaunchSponsored{}, errors.New("chain away")
		}
		return workflows.LaunchSponsored{Hash: "0xgas"}, nil
	}, activity.RegisterOptions{Name: workflows.ActivitySponsorLaunchGas})
	env.RegisterActivityWithOptions(func(_ context.Context, id string) error {
		*steps = append(*steps, "finish "+id)
		if finishFailures > 0 {
			finishFailures--
			return errors.New("the launch's wallet transaction has not ended yet")
		}
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityFinishLaunch})
	env.ExecuteWorkflow(workflows.LaunchWorkflowName, workflows.LaunchParams{LaunchID: "lnch_1", TransactionID: "tx_1"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"sponsor lnch_1", "sponsor lnch_1", "sponsor lnch_1", "sign", "broadcast", "receipt", "finish lnch_1", "finish lnch_1"}, *steps)
	require.Equal(t, []workflows.WalletTxEnd{{TransactionID: "tx_1", Status: "confirmed"}}, *ends)
}

// TestLaunchRecordsAFailedSend: a launch transaction the chain refuses (not sponsored) still runs through
// its wallet workflow, which records it failed, and the launch's end is recorded after it.
func TestLaunchRecordsAFailedSend(t *testing.T) {
	env, steps, ends := walletTxEnv(t, workflows.WalletTxSigned{BlockedCode: "chain_refused", BlockedError: "insufficient funds"}, true, 0)
	env.RegisterWorkflowWithOptions(workflows.LaunchWorkflow, workflow.RegisterOptions{Name: workflows.LaunchWorkflowName})
	env.RegisterActivityWithOptions(func(context.Context, string) (workflows.LaunchSponsored, error) {
		return workflows.LaunchSponsored{Skipped: "insufficient funds"}, nil
	}, activity.RegisterOptions{Name: workflows.ActivitySponsorLaunchGas})
	env.RegisterActivityWithOptions(func(context.Context, string) error {
		*steps = append(*steps, "finish")
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityFinishLaunch})
	env.ExecuteWorkflow(workflows.LaunchWorkflowName, workflows.LaunchParams{LaunchID: "lnch_1", TransactionID: "tx_1"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"sign", "finish"}, *steps)
	require.Equal(t, "chain_refused", (*ends)[0].ErrorCode)
}
