package workflows

import (
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// TwapOrderParams is the input of TwapOrderWorkflow.
type TwapOrderParams struct {
	OrderID string
	// Slices is how many child orders the order places.
	Slices int
	// Interval spaces the slices: slice i is placed Interval*i after the workflow started.
	Interval time.Duration
}

// OrderSlice is what ActivityPlaceSlice places: a parent order's slice, by its index (twap) or by the
// fire of its schedule (dca: FireKey, the fire's scheduled time).
type OrderSlice struct {
	ParentOrderID string
	Index         int
	FireKey       string
}

// ParentEnd is what ActivityEndParent records: a twap or dca order's end once its child orders have
// ended (Cancelled when its workflow took a cancel before placing every slice). A dca order's fire
// records it only once every slice is placed.
type ParentEnd struct {
	OrderID   string
	Cancelled bool
}

// TwapOrderWorkflow (workflow id order/<orderId>) runs one twap order: slice i is placed at
// Interval*i after the start, on a durable timer, by ActivityPlaceSlice (a child order with an id
// derived from the parent's and i, priced afresh, its swap judged by the wallet's policy and counted
// in its spend limits; placing is idempotent on that id) and runs as the child workflow
// order/<childId> (OrderWorkflow: approve, swap with its own slippage bound, end). OrderCancelSignal
// stops the slices not yet placed. Once every child placed has ended, ActivityEndParent records the
// order filled (a slice filled), failed or cancelled. Restarted, the workflow replays: no slice is placed
// twice.
func TwapOrderWorkflow(ctx workflow.Context, p TwapOrderParams) error {
	actx := workflow.WithActivityOptions(ctx, launchSteps)
	cancel := workflow.GetSignalChannel(ctx, OrderCancelSignal)
	start := workflow.Now(ctx)
	var children []workflow.ChildWorkflowFuture
	cancelled := false
	for i := 0; i < p.Slices && !cancelled; i++ {
		wait := start.Add(p.Interval * time.Duration(i)).Sub(workflow.Now(ctx))
		if cancelled = cancel.ReceiveAsync(nil) || (i > 0 && sleepOrCancel(ctx, cancel, wait)); cancelled {
			break
		}
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("placing slice %d of %d", i+1, p.Slices))
		child, err := placeSlice(ctx, actx, OrderSlice{ParentOrderID: p.OrderID, Index: i})
		if err != nil {
			return err
		}
		if child != nil {
			children = append(children, child)
		}
	}
	return endParent(ctx, actx, children, ParentEnd{OrderID: p.OrderID, Cancelled: cancelled})
}

// placeSlice places one slice and starts its child order's workflow (nil when the slice was not placed:
// the parent has ended, or the policy refused the slice, recorded failed).
func placeSlice(ctx, actx workflow.Context, s OrderSlice) (workflow.ChildWorkflowFuture, error) {
	var f OrderFire
	if err := workflow.ExecuteActivity(actx, ActivityPlaceSlice, s).Get(ctx, &f); err != nil {
		return nil, fmt.Errorf("place a slice of order %s: %w", s.ParentOrderID, err)
	}
	if !f.Fired {
		return nil, nil
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: OrderWorkflowID(f.Order.OrderID), TaskQueue: TaskQueue,
		// The parent's account, project, service and operation: the Web UI's filters find the slices too.
		TypedSearchAttributes: workflow.GetTypedSearchAttributes(ctx),
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE})
	child := workflow.ExecuteChildWorkflow(cctx, OrderWorkflowName, f.Order)
	err := child.GetChildWorkflowExecution().Get(ctx, nil)
	var started *temporal.ChildWorkflowExecutionAlreadyStartedError
	if err != nil && !errors.As(err, &started) {
		return nil, fmt.Errorf("start child order %s: %w", f.Order.OrderID, err)
	}
	return child, nil
}

// endParent waits for the children started, then records the parent's end (retried until every child
// order has ended, however it was started).
func endParent(ctx, actx workflow.Context, children []workflow.ChildWorkflowFuture, end ParentEnd) error {
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("waiting for %d child orders to end", len(children)))
	for _, c := range children {
		_ = c.Get(ctx, nil) // each child order records its own end
	}
	if err := workflow.ExecuteActivity(actx, ActivityEndParent, end).Get(ctx, nil); err != nil {
		return fmt.Errorf("record the end of order %s: %w", end.OrderID, err)
	}
	return nil
}

// DcaFireParams is the input of DcaFireWorkflow.
type DcaFireParams struct {
	OrderID string
}

// DcaScheduleID is the id of dca order orderID's schedule.
func DcaScheduleID(orderID string) string { return "order/" + orderID }

// DcaFireWorkflowID is the workflow id a dca order's schedule gives its fires; Temporal appends each
// fire's scheduled time.
func DcaFireWorkflowID(orderID string) string { return "order-fire/" + orderID }

// DcaFireWorkflow (workflow id order-fire/<orderId>-<scheduled time>, started by the schedule
// order/<orderId>) places one slice of a dca order: ActivityPlaceSlice records a child market order
// whose id derives from the parent's and the fire's scheduled time (a repeated fire never places
// twice; none past the order's slices), its child workflow order/<childId> runs the market path, and
// ActivityEndParent records the parent's end once its last slice has ended.
func DcaFireWorkflow(ctx workflow.Context, p DcaFireParams) error {
	actx := workflow.WithActivityOptions(ctx, launchSteps)
	key := scheduledAt(ctx).Format(time.RFC3339Nano)
	child, err := placeSlice(ctx, actx, OrderSlice{ParentOrderID: p.OrderID, FireKey: key})
	if err != nil {
		return err
	}
	var children []workflow.ChildWorkflowFuture
	if child != nil {
		children = append(children, child)
	}
	return endParent(ctx, actx, children, ParentEnd{OrderID: p.OrderID})
}
