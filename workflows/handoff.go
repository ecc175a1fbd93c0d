package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Statuses of a handoff (as the handoffs table and the client package name them).
const (
	HandoffAwaitingAck  = "awaiting_ack"
	HandoffAcknowledged = "acknowledged"
	HandoffExpired      = "expired"
	HandoffFailed       = "failed"
)

// ErrorTypeHandoffRefused is the application error type of a transfer the vault refused to write (a
// payload missing, or holding a secret): retrying cannot cure it, so the handoff ends failed.
const ErrorTypeHandoffRefused = "HandoffRefused"

// maxHandoffChecksPerRun bounds one run's history: after this many ack checks the workflow continues as
// new with the same deadline and transfer.
const maxHandoffChecksPerRun = 500

// HandoffParams is the input of HandoffWorkflow.
type HandoffParams struct {
	HandoffID string
	// Deadline is when waiting for an ack gives up (the handoff ends expired).
	Deadline time.Time
	// CheckEvery is the durable timer between two checks of the transfer's acks.
	CheckEvery time.Duration
	// TransferID is the vault transfer once written (set when the workflow continues as new).
	TransferID string
}

// HandoffAckCheck is the input of ActivityCheckHandoffAcks.
type HandoffAckCheck struct {
	HandoffID  string
	TransferID string
}

// HandoffEnd is what ActivityFinishHandoff records.
type HandoffEnd struct {
	HandoffID  string
	TransferID string
	// Status is HandoffAcknowledged, HandoffExpired or HandoffFailed.
	Status string
	// Error says why a failed handoff's transfer was refused (it names a finding, never a secret).
	Error string
}

// HandoffWorkflowID is the workflow id of a handoff.
func HandoffWorkflowID(handoffID string) string { return "handoff/" + handoffID }

// handoffSteps retry each step until it succeeds (each is idempotent on the handoff's row and the vault);
// a worker without the vault fails them, so they wait for one that has it.
var handoffSteps = workflow.ActivityOptions{
	StartToCloseTimeout: 10 * time.Minute,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second},
}

// HandoffWorkflow (workflow id handoff/<handoffId>) hands files or a task to another machine through the
// synced vault: ActivityWriteHandoffTransfer writes the transfer (a refused transfer ends the handoff
// failed), then the workflow checks the transfer's acks with ActivityCheckHandoffAcks, sleeping on a
// durable timer between checks (SignalHandoffAck wakes it early), until a receiver has acknowledged
// (acknowledged) or the deadline has passed (expired); ActivityFinishHandoff records the end. The
// status is kept in the memo, which the Web UI shows.
func HandoffWorkflow(ctx workflow.Context, p HandoffParams) (string, error) {
	actx := workflow.WithActivityOptions(ctx, handoffSteps)
	if p.TransferID == "" {
		err := workflow.ExecuteActivity(actx, ActivityWriteHandoffTransfer, p.HandoffID).Get(ctx, &p.TransferID)
		var refused *temporal.ApplicationError
		if errors.As(err, &refused) && refused.Type() == ErrorTypeHandoffRefused {
			return finishHandoff(ctx, actx, HandoffEnd{HandoffID: p.HandoffID, Status: HandoffFailed, Error: refused.Message()})
		}
		if err != nil {
			return "", fmt.Errorf("write the transfer of handoff %s: %w", p.HandoffID, err)
		}
		upsertStatus(ctx, HandoffAwaitingAck)
	}
	wake := workflow.GetSignalChannel(ctx, SignalHandoffAck)
	for checks := 0; ; checks++ {
		var acks int
		check := HandoffAckCheck{HandoffID: p.HandoffID, TransferID: p.TransferID}
		if err := workflow.ExecuteActivity(actx, ActivityCheckHandoffAcks, check).Get(ctx, &acks); err != nil {
			return "", fmt.Errorf("check the acks of handoff %s: %w", p.HandoffID, err)
		}
		end := HandoffEnd{HandoffID: p.HandoffID, TransferID: p.TransferID}
		remaining := p.Deadline.Sub(workflow.Now(ctx))
		switch {
		case acks > 0:
			end.Status = HandoffAcknowledged
			return finishHandoff(ctx, actx, end)
		case remaining <= 0:
			end.Status = HandoffExpired
			return finishHandoff(ctx, actx, end)
		case checks >= maxHandoffChecksPerRun:
			return "", workflow.NewContinueAsNewError(ctx, HandoffWorkflowName, p)
		}
		sleepOrWake(ctx, wake, min(p.CheckEvery, remaining))
	}
}

// sleepOrWake waits on a durable timer for d, or until a SignalHandoffAck arrives (then the timer is
// cancelled).
func sleepOrWake(ctx workflow.Context, wake workflow.ReceiveChannel, d time.Duration) {
	timerCtx, stopTimer := workflow.WithCancel(ctx)
	defer stopTimer()
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(workflow.NewTimer(timerCtx, d), func(workflow.Future) {})
	sel.AddReceive(wake, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) })
	sel.Select(ctx)
}

// finishHandoff records the handoff's end and keeps its status in the memo.
func finishHandoff(ctx, actx workflow.Context, end HandoffEnd) (string, error) {
	if err := workflow.ExecuteActivity(actx, ActivityFinishHandoff, end).Get(ctx, nil); err != nil {
		return "", fmt.Errorf("record the end of handoff %s: %w", end.HandoffID, err)
	}
	upsertStatus(ctx, end.Status)
	return end.Status, nil
}
