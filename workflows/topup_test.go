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

// fakeSettlement plays SettleTopUp and CreditTopUp: settle fails `lost` times (an answer lost with a
// worker) before answering `answer`; credit fails `creditLost` times before succeeding.
type fakeSettlement struct {
	answer      workflows.TopUpSettlement
	lost        int
	creditLost  int
	settleCalls int
	creditCalls int
	credited    int
}

func (f *fakeSettlement) settle(_ context.Context, id string) (workflows.TopUpSettlement, error) {
	f.settleCalls++
	if f.settleCalls <= f.lost {
		return workflows.TopUpSettlement{}, errors.New("timed out waiting for the receipt")
	}
	return f.answer, nil
}

func (f *fakeSettlement) credit(_ context.Context, id string) error {
	f.creditCalls++
	if f.creditCalls <= f.creditLost {
		return errors.New("database away")
	}
	f.credited++
	return nil
}

func runTopUp(t *testing.T, f *fakeSettlement) workflows.TopUpResult {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.TopUpWorkflow, workflow.RegisterOptions{Name: workflows.TopUpWorkflowName})
	env.RegisterActivityWithOptions(f.settle, activity.RegisterOptions{Name: workflows.ActivitySettleTopUp})
	env.RegisterActivityWithOptions(f.credit, activity.RegisterOptions{Name: workflows.ActivityCreditTopUp})
	start := env.Now()
	env.ExecuteWorkflow(workflows.TopUpWorkflowName, workflows.TopUpParams{TopUpID: "tu_test"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Less(t, env.Now().Sub(start), time.Hour, "retries back off at most 30 s")
	var res workflows.TopUpResult
	require.NoError(t, env.GetWorkflowResult(&res))
	return res
}

// TestTopUpSettlesThenCredits: a settled payment is credited once.
func TestTopUpSettlesThenCredits(t *testing.T) {
	t.Parallel()
	f := &fakeSettlement{answer: workflows.TopUpSettlement{Settled: true, TxHash: "0xabc"}}
	res := runTopUp(t, f)
	require.Equal(t, workflows.TopUpResult{Status: workflows.TopUpCredited, TxHash: "0xabc"}, res)
	require.Equal(t, 1, f.credited)
}

// TestTopUpRetriesAmbiguousSettlement: lost settlement answers are retried (each retry reconciles from
// the chain), never turned into a failure, and crediting is retried until it commits.
func TestTopUpRetriesAmbiguousSettlement(t *testing.T) {
	t.Parallel()
	f := &fakeSettlement{answer: workflows.TopUpSettlement{Settled: true, TxHash: "0xabc"}, lost: 6, creditLost: 3}
	res := runTopUp(t, f)
	require.Equal(t, workflows.TopUpCredited, res.Status)
	require.Equal(t, 7, f.settleCalls)
	require.Equal(t, 4, f.creditCalls)
	require.Equal(t, 1, f.credited)
}

// TestTopUpRefusedPaymentIsNotCredited: a payment that cannot settle fails the top-up with its reason
// and credits nothing.
func TestTopUpRefusedPaymentIsNotCredited(t *testing.T) {
	t.Parallel()
	f := &fakeSettlement{answer: workflows.TopUpSettlement{Reason: "insufficient_funds", Message: "the payer holds 1 USDC"}}
	res := runTopUp(t, f)
	require.Equal(t, workflows.TopUpResult{Status: workflows.TopUpFailed, Reason: "insufficient_funds", Message: "the payer holds 1 USDC"}, res)
	require.Zero(t, f.creditCalls)
}
