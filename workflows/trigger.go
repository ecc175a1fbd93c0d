package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"
)

// OrderCancelSignal is the signal that cancels a limit or stop order that has not fired.
const OrderCancelSignal = "cancel-order"

// triggerHistoryLimit is the history length past which a watching order continues as new.
const triggerHistoryLimit = 5000

// TriggerOrderParams is the input of TriggerOrderWorkflow.
type TriggerOrderParams struct {
	OrderID string
	// ExpiresAt is when the order expires if it has not fired.
	ExpiresAt time.Time
	// CheckEvery spaces the reads of the pool's price.
	CheckEvery time.Duration
}

// OrderWatch is what ActivityWatchOrder answers: whether the trigger is reached, at which pool price.
type OrderWatch struct {
	Reached bool
	Price   string
	// Trigger is the order's limit or stop price, for the workflow's details.
	Trigger string
}

// OrderFire is what ActivityFireOrder answers: Fired with the market path's parameters, or not when the
// order ended instead (the policy refused its swap).
type OrderFire struct {
	Fired bool
	Order OrderParams
}

// OrderStop is what ActivityStopOrder records: the order ended unfired with Status (cancelled or expired).
type OrderStop struct {
	OrderID string
	Status  string
}

// Statuses ActivityStopOrder records.
const (
	OrderStopCancelled = "cancelled"
	OrderStopExpired   = "expired"
)

// TriggerOrderWorkflow (workflow id order/<orderId>) runs one limit or stop order. It reads the pool's
// price (ActivityWatchOrder), then sleeps on a durable timer of CheckEvery, until the trigger is
// reached, the order expires, or OrderCancelSignal arrives; its details in the Web UI say the last
// price read. Reached, ActivityFireOrder records the swap priced afresh and the market path of
// OrderWorkflow runs (approve, swap with its slippage bound, end). Expired or cancelled, ActivityStopOrder
// records it and releases the fee's hold. A long watch continues as new; a cancel after the order fired
// changes nothing.
func TriggerOrderWorkflow(ctx workflow.Context, p TriggerOrderParams) error {
	actx := workflow.WithActivityOptions(ctx, launchSteps)
	cancel := workflow.GetSignalChannel(ctx, OrderCancelSignal)
	for {
		if stop, ok := unfired(ctx, cancel, p.ExpiresAt); ok {
			return stopOrder(ctx, actx, OrderStop{OrderID: p.OrderID, Status: stop})
		}
		if workflow.GetInfo(ctx).GetCurrentHistoryLength() > triggerHistoryLimit {
			// Right after the cancel check: a signal arriving now fails this task, retried with the signal.
			return workflow.NewContinueAsNewError(ctx, TriggerOrderWorkflowName, p)
		}
		var w OrderWatch
		if err := workflow.ExecuteActivity(actx, ActivityWatchOrder, p.OrderID).Get(ctx, &w); err != nil {
			return fmt.Errorf("watch order %s: %w", p.OrderID, err)
		}
		if w.Reached {
			break
		}
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("waiting: the pool's price is %s, the order's %s (expires %s)", w.Price, w.Trigger,
			p.ExpiresAt.UTC().Format(time.RFC3339)))
		if cancelled := sleepOrCancel(ctx, cancel, min(p.CheckEvery, p.ExpiresAt.Sub(workflow.Now(ctx)))); cancelled {
			return stopOrder(ctx, actx, OrderStop{OrderID: p.OrderID, Status: OrderStopCancelled})
		}
	}
	if cancel.ReceiveAsync(nil) {
		return stopOrder(ctx, actx, OrderStop{OrderID: p.OrderID, Status: OrderStopCancelled})
	}
	workflow.SetCurrentDetails(ctx, "fired: the pool's price reached the order's")
	var f OrderFire
	if err := workflow.ExecuteActivity(actx, ActivityFireOrder, p.OrderID).Get(ctx, &f); err != nil {
		return fmt.Errorf("fire order %s: %w", p.OrderID, err)
	}
	if !f.Fired {
		return nil
	}
	return runOrder(ctx, f.Order)
}

// unfired says whether the order ends before its next read: cancelled (a signal is waiting) or expired.
func unfired(ctx workflow.Context, cancel workflow.ReceiveChannel, expiresAt time.Time) (string, bool) {
	if cancel.ReceiveAsync(nil) {
		return OrderStopCancelled, true
	}
	if !workflow.Now(ctx).Before(expiresAt) {
		return OrderStopExpired, true
	}
	return "", false
}

// sleepOrCancel waits d on a durable timer, or until the cancel signal arrives (true).
func sleepOrCancel(ctx workflow.Context, cancel workflow.ReceiveChannel, d time.Duration) bool {
	tctx, stopTimer := workflow.WithCancel(ctx)
	defer stopTimer()
	cancelled := false
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(workflow.NewTimer(tctx, max(d, time.Millisecond)), func(workflow.Future) {})
	sel.AddReceive(cancel, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		cancelled = true
	})
	sel.Select(ctx)
	return cancelled
}

// stopOrder records the order ended unfired.
func stopOrder(ctx, actx workflow.Context, s OrderStop) error {
	workflow.SetCurrentDetails(ctx, s.Status)
	if err := workflow.ExecuteActivity(actx, ActivityStopOrder, s).Get(ctx, nil); err != nil {
		return fmt.Errorf("record order %s %s: %w", s.OrderID, s.Status, err)
	}
	return nil
}
