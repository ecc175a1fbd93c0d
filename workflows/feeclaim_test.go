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

// TestFeeClaimSponsorsSendsThenFinishes: the claim's gas is sponsored (retried while the chain is away)
// before the child wallettx/<transactionId> sends collectFees once; the claim's end is recorded after the
// transaction's (retried until it has ended).
func TestFeeClaimSponsorsSendsThenFinishes(t *testing.T) {
	t.Parallel()
	env, steps, ends := walletTxEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 0)
	env.RegisterWorkflowWithOptions(workflows.FeeClaimWorkflow, workflow.RegisterOptions{Name: workflows.FeeClaimWorkflowName})
	sponsorFailures, finishFailures := 1, 2
	env.RegisterActivityWithOptions(func(_ context.Context, id string) (workflows.LaunchSponsored, error) {
		*steps = append(*steps, "sponsor "+id)
		if sponsorFailures > 0 {
			sponsorFailures--
			return workflows.LaunchSponsored{}, errors.New("chain away")
		}
		return workflows.LaunchSponsored{Hash: "0xgas"}, nil
	}, activity.RegisterOptions{Name: workflows.ActivitySponsorFeeClaimGas})
	env.RegisterActivityWithOptions(func(_ context.Context, id string) error {
		*steps = append(*steps, "finish "+id)
		if finishFailures > 0 {
			finishFailures--
			return errors.New("the fee claim's wallet transaction has not ended yet")
		}
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityFinishFeeClaim})
	env.ExecuteWorkflow(workflows.FeeClaimWorkflowName, workflows.FeeClaimParams{ClaimID: "fclm_1", TransactionID: "tx_1"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"sponsor fclm_1", "sponsor fclm_1", "sign", "broadcast", "receipt", "finish fclm_1", "finish fclm_1", "finish fclm_1"}, *steps)
	require.Equal(t, []workflows.WalletTxEnd{{TransactionID: "tx_1", Status: "confirmed"}}, *ends)
}

// TestFeeClaimRecordsARefusedSend: a claim whose send is refused when it is signed (the wallet was paused
// meanwhile) ends its wallet workflow refused and the claim's end is still recorded.
func TestFeeClaimRecordsARefusedSend(t *testing.T) {
	t.Parallel()
	env, steps, ends := walletTxEnv(t, workflows.WalletTxSigned{BlockedCode: "wallet_paused", BlockedError: "the wallet is paused"}, true, 0)
	env.RegisterWorkflowWithOptions(workflows.FeeClaimWorkflow, workflow.RegisterOptions{Name: workflows.FeeClaimWorkflowName})
	env.RegisterActivityWithOptions(func(context.Context, string) (workflows.LaunchSponsored, error) {
		return workflows.LaunchSponsored{}, nil
	}, activity.RegisterOptions{Name: workflows.ActivitySponsorFeeClaimGas})
	env.RegisterActivityWithOptions(func(context.Context, string) error {
		*steps = append(*steps, "finish")
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityFinishFeeClaim})
	env.ExecuteWorkflow(workflows.FeeClaimWorkflowName, workflows.FeeClaimParams{ClaimID: "fclm_1", TransactionID: "tx_1"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"sign", "finish"}, *steps)
	require.Equal(t, "wallet_paused", (*ends)[0].ErrorCode)
}
