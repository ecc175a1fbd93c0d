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

// testEnv is a workflow test environment with the steps and wallet transaction ends it recorded.
type testEnv struct {
	env   *testsuite.TestWorkflowEnvironment
	steps *[]string
	ends  *[]workflows.WalletTxEnd
}

// orderEnv is walletTxEnv with OrderWorkflow and its activities: the approve reads confirmed, and the
// order's end is recorded after finishFailures retries (its swap not ended yet).
func orderEnv(t *testing.T, signed workflows.WalletTxSigned, approveConfirmed bool, finishFailures int) (*testEnv, *[]workflows.OrderEnd) {
	t.Helper()
	env, steps, ends := walletTxEnv(t, signed, true, 0)
	env.RegisterWorkflowWithOptions(workflows.OrderWorkflow, workflow.RegisterOptions{Name: workflows.OrderWorkflowName})
	var orderEnds []workflows.OrderEnd
	env.RegisterActivityWithOptions(func(_ context.Context, id string) (bool, error) {
		*steps = append(*steps, "approved? "+id)
		return approveConfirmed, nil
	}, activity.RegisterOptions{Name: workflows.ActivityOrderApproveConfirmed})
	env.RegisterActivityWithOptions(func(_ context.Context, end workflows.OrderEnd) error {
		*steps = append(*steps, "finish "+end.OrderID)
		if finishFailures > 0 {
			finishFailures--
			return errors.New("the order's wallet transaction has not ended yet")
		}
		orderEnds = append(orderEnds, end)
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityFinishOrder})
	return &testEnv{env, steps, ends}, &orderEnds
}

// TestOrderApprovesSwapsThenFinishes: the approve is sent (child wallettx) and read confirmed before the
// swap is sent once; the order's end is recorded after the swap's (retried until it has ended).
func TestOrderApprovesSwapsThenFinishes(t *testing.T) {
	e, orderEnds := orderEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 1)
	e.env.ExecuteWorkflow(workflows.OrderWorkflowName, workflows.OrderParams{OrderID: "ord_1", SwapTxID: "tx_swap", ApproveTxID: "tx_approve"})
	require.True(t, e.env.IsWorkflowCompleted())
	require.NoError(t, e.env.GetWorkflowError())
	require.Equal(t, []string{"sign", "broadcast", "receipt", "approved? ord_1", "sign", "broadcast", "receipt", "finish ord_1", "finish ord_1"}, *e.steps)
	require.Equal(t, []workflows.WalletTxEnd{{TransactionID: "tx_approve", Status: "confirmed"}, {TransactionID: "tx_swap", Status: "confirmed"}}, *e.ends)
	require.Equal(t, []workflows.OrderEnd{{OrderID: "ord_1"}}, *orderEnds)
}

// TestOrderAbandonsTheSwapWhenTheApproveFails: an approve that did not confirm abandons the swap: it is
// never signed, and the order's end says so.
func TestOrderAbandonsTheSwapWhenTheApproveFails(t *testing.T) {
	e, orderEnds := orderEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, false, 0)
	e.env.ExecuteWorkflow(workflows.OrderWorkflowName, workflows.OrderParams{OrderID: "ord_1", SwapTxID: "tx_swap", ApproveTxID: "tx_approve"})
	require.NoError(t, e.env.GetWorkflowError())
	require.Equal(t, []string{"sign", "broadcast", "receipt", "approved? ord_1", "finish ord_1"}, *e.steps)
	require.Len(t, *e.ends, 1, "only the approve was sent")
	require.Equal(t, []workflows.OrderEnd{{OrderID: "ord_1", SwapAbandoned: true}}, *orderEnds)
}

// TestOrderRecordsARefusedSwap: a swap the chain refuses (the pool moved past the bound) is recorded
// failed by its wallet workflow without a broadcast, and the order's end is recorded after it.
func TestOrderRecordsARefusedSwap(t *testing.T) {
	e, orderEnds := orderEnv(t, workflows.WalletTxSigned{BlockedCode: "chain_refused", BlockedError: "UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT"}, true, 0)
	e.env.ExecuteWorkflow(workflows.OrderWorkflowName, workflows.OrderParams{OrderID: "ord_1", SwapTxID: "tx_swap"})
	require.NoError(t, e.env.GetWorkflowError())
	require.Equal(t, []string{"sign", "finish ord_1"}, *e.steps)
	require.Equal(t, "chain_refused", (*e.ends)[0].ErrorCode)
	require.Len(t, *orderEnds, 1)
}

// TestOrderReadsItsEndedSwapLocally: once its child has ended, the order reads the approve's outcome and
// records its end in local activities; a "not ended yet" is retried there too.
func TestOrderReadsItsEndedSwapLocally(t *testing.T) {
	t.Parallel()
	e, orderEnds := orderEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 1)
	local, regular := recordActivityKinds(e.env)
	e.env.ExecuteWorkflow(workflows.OrderWorkflowName, workflows.OrderParams{OrderID: "ord_1", SwapTxID: "tx_swap", ApproveTxID: "tx_approve"})
	require.NoError(t, e.env.GetWorkflowError())
	require.Contains(t, *local, workflows.ActivityOrderApproveConfirmed)
	require.Contains(t, *local, workflows.ActivityFinishOrder)
	require.NotContains(t, *regular, workflows.ActivityOrderApproveConfirmed)
	require.NotContains(t, *regular, workflows.ActivityFinishOrder)
	require.Equal(t, []workflows.OrderEnd{{OrderID: "ord_1"}}, *orderEnds)
}
