package workflows

import (
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// OrderParams is the input of OrderWorkflow.
type OrderParams struct {
	OrderID  string
	SwapTxID string
	// ApproveTxID is the order's ERC-20 approve of the router, when the allowance was short.
	ApproveTxID string
	// ApprovalID and ApprovalExpiresAt are the swap's approval, when the wallet's policy asked for one
	// (passed on to wallettx/<swapTxId>).
	ApprovalID        string
	ApprovalExpiresAt time.Time
}

// OrderEnd is what ActivityFinishOrder records: the order's end once its swap has ended; SwapAbandoned
// when its approve failed, so the swap is never sent.
type OrderEnd struct {
	OrderID       string
	SwapAbandoned bool
}

// OrderWorkflowID is the workflow id of a trading order.
func OrderWorkflowID(orderID string) string { return "order/" + orderID }

// OrderWorkflow (workflow id order/<orderId>) runs one market order, exactly once. The request recorded
// its wallet transactions (the swap, judged by the wallet's policy at the order's USD value, its spend
// reserved; the ERC-20 approve of the router when the allowance was short). The approve is sent first by
// the child workflow wallettx/<approveTxId>; if it does not confirm the swap is abandoned. Then the
// child wallettx/<swapTxId> sends the swap (waiting for its approval when the policy asked for one; the
// chain refusing it, a pool moved past the bound, ends it failed before anything is broadcast), and
// ActivityFinishOrder records the order filled from the receipt's Swap events, or failed with its reason.
// A child already running is not started twice.
func OrderWorkflow(ctx workflow.Context, p OrderParams) error {
	return runOrder(ctx, p)
}

// orderLocalSteps is the version of the order's market path whose reads of its ended wallet
// transactions (the approve's outcome, the order's end) run as local activities (orderQuickSteps) when
// the child ended in this run; histories recorded before it replay with regular activities.
const orderLocalSteps = 1

// orderQuickSteps run the order's short steps inside the workflow task that sees its child end (no round
// trip through the server to schedule and start each). They stay retried until they succeed; each is
// idempotent on the order's stored state.
var orderQuickSteps = workflow.LocalActivityOptions{
	ScheduleToCloseTimeout: 7 * 24 * time.Hour,
	StartToCloseTimeout:    30 * time.Second,
	RetryPolicy:            &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second},
}

// runOrder is the market path of an order whose wallet transactions are recorded: approve, swap, end.
func runOrder(ctx workflow.Context, p OrderParams) error {
	local := workflow.GetVersion(ctx, "order-local-steps", workflow.DefaultVersion, orderLocalSteps) == orderLocalSteps
	actx := workflow.WithActivityOptions(ctx, launchSteps)
	// step runs a short step: locally once the wallet transaction it reads has ended in this run; as a
	// regular activity, retried until it has ended, when it was already running (or before the version).
	step := func(ended bool, name string, arg any) workflow.Future {
		if local && ended {
			return workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, orderQuickSteps), name, arg)
		}
		return workflow.ExecuteActivity(actx, name, arg)
	}
	end := OrderEnd{OrderID: p.OrderID}
	if p.ApproveTxID != "" {
		ended := sendWalletTxChild(ctx, actx, WalletTxParams{TransactionID: p.ApproveTxID})
		var confirmed bool
		if err := step(ended, ActivityOrderApproveConfirmed, p.OrderID).Get(ctx, &confirmed); err != nil {
			return fmt.Errorf("read the approve of order %s: %w", p.OrderID, err)
		}
		end.SwapAbandoned = !confirmed
	}
	ended := true // an abandoned swap is ended by the step itself
	if !end.SwapAbandoned {
		ended = sendWalletTxChild(ctx, actx, WalletTxParams{TransactionID: p.SwapTxID, ApprovalID: p.ApprovalID, ApprovalExpiresAt: p.ApprovalExpiresAt})
	}
	if err := step(ended, ActivityFinishOrder, end).Get(ctx, nil); err != nil {
		return fmt.Errorf("record the end of order %s: %w", p.OrderID, err)
	}
	return nil
}

// sendWalletTxChild runs the child wallettx/<id> until it ends (one already running is waited for by
// the step after it), handing it an approval outcome reached before it existed. It reports whether the
// child ended in this run, and well (else the step after it waits for the transaction's end).
func sendWalletTxChild(ctx, actx workflow.Context, tx WalletTxParams) bool {
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: WalletTxWorkflowID(tx.TransactionID), TaskQueue: TaskQueue,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE})
	child := workflow.ExecuteChildWorkflow(cctx, WalletTxWorkflowName, tx)
	if tx.ApprovalID != "" && child.GetChildWorkflowExecution().Get(ctx, nil) == nil {
		forwardApprovalOutcome(ctx, actx, tx)
	}
	err := child.Get(ctx, nil)
	var started *temporal.ChildWorkflowExecutionAlreadyStartedError
	if err != nil && !errors.As(err, &started) {
		workflow.GetLogger(ctx).Warn("the wallet transaction ended with an error", "transactionId", tx.TransactionID, "err", err)
	}
	return err == nil
}
