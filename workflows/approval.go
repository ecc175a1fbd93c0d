package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Approval kinds (as internal/approval names them).
const (
	approvalKindRun           = "run"
	approvalKindServiceAction = "service_action"
	approvalKindWalletTx      = "wallet_transaction"
	approvalKindWalletSig     = "wallet_signature"
	approvalKindAgentStep     = "agent_step"
)

// Approval statuses and decisions (as the client package names them).
const (
	ApprovalApproved  = "approved"
	ApprovalRejected  = "rejected"
	ApprovalExpired   = "expired"
	ApprovalCancelled = "cancelled"
)

// ApprovalParams is the input of ApprovalWorkflow.
type ApprovalParams struct {
	ApprovalID string
	Kind       string // run or service_action
	// RunWorkflowID is the workflow a "run" approval (its run), a "wallet_transaction" approval (its
	// send, wallettx/<id>) or a "wallet_signature" approval (its signature, walletsig/<id>) gates; it
	// receives the outcome as SignalApprovalOutcome.
	RunWorkflowID string
	ExpiresAt     time.Time
}

// ApprovalDecision is the payload of SignalApprovalDecision: what a key decided.
type ApprovalDecision struct {
	Status  string // approved or rejected
	KeyID   string
	Comment string
}

// ApprovalOutcome is how an approval ended, as its row records it.
type ApprovalOutcome struct {
	ApprovalID string
	Status     string // approved, rejected, expired or cancelled
	// RunID is the run an approved service action started.
	RunID string
}

// ApprovalWorkflow waits for a decision on one approval until it expires, makes the row final, and
// passes the outcome on: to the run it gates, or, for an approved service action, by starting its run.
// Cancelling the workflow cancels a pending approval.
func ApprovalWorkflow(ctx workflow.Context, p ApprovalParams) (ApprovalOutcome, error) {
	ctx = workflow.WithLocalActivityOptions(ctx, bookkeepingOptions)
	outcome, err := awaitDecision(ctx, p)
	if temporal.IsCanceledError(ctx.Err()) {
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		if err := workflow.ExecuteLocalActivity(dctx, ActivityCancelApproval, p.ApprovalID).Get(dctx, &outcome); err != nil {
			return ApprovalOutcome{}, fmt.Errorf("cancel approval: %w", err)
		}
		upsertStatus(dctx, outcome.Status)
		if gates(p) && outcome.Status == ApprovalCancelled {
			// Cancelled by an operator rather than by its run: the run must not wait for ever. (When the
			// run cancelled it, the run has ended and the signal finds nobody.)
			_ = workflow.SignalExternalWorkflow(dctx, p.RunWorkflowID, "", SignalApprovalOutcome, outcome).Get(dctx, nil)
		}
		return outcome, temporal.NewCanceledError("the approval was cancelled")
	}
	if err != nil {
		return ApprovalOutcome{}, err
	}
	upsertStatus(ctx, outcome.Status)
	switch {
	case gates(p):
		// The run (or send) may be gone (cancelled meanwhile); then nobody waits for the outcome.
		_ = workflow.SignalExternalWorkflow(ctx, p.RunWorkflowID, "", SignalApprovalOutcome, outcome).Get(ctx, nil)
	case p.Kind == approvalKindServiceAction && outcome.Status == ApprovalApproved:
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: 30 * time.Second,
			RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
		})
		if err := workflow.ExecuteActivity(actx, ActivityStartApprovedRun, p.ApprovalID).Get(actx, &outcome.RunID); err != nil {
			return outcome, fmt.Errorf("start the approved run: %w", err)
		}
	}
	return outcome, nil
}

// gates reports whether the approval gates a workflow that waits for its outcome (a run's, a wallet
// send's, a wallet signature's).
func gates(p ApprovalParams) bool {
	switch p.Kind {
	case approvalKindRun, approvalKindWalletTx, approvalKindWalletSig, approvalKindAgentStep:
		return p.RunWorkflowID != ""
	}
	return false
}

// awaitDecision waits for the first decision or the expiry and settles the row with it.
func awaitDecision(ctx workflow.Context, p ApprovalParams) (ApprovalOutcome, error) {
	var decision *ApprovalDecision
	expired := false
	timerCtx, stopTimer := workflow.WithCancel(ctx)
	defer stopTimer()
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(workflow.GetSignalChannel(ctx, SignalApprovalDecision), func(c workflow.ReceiveChannel, _ bool) {
		var d ApprovalDecision
		c.Receive(ctx, &d)
		decision = &d
	})
	if wait := p.ExpiresAt.Sub(workflow.Now(ctx)); wait > 0 {
		sel.AddFuture(workflow.NewTimer(timerCtx, wait), func(f workflow.Future) { expired = f.Get(ctx, nil) == nil })
	} else {
		expired = true
	}
	sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
	for !expired && decision == nil && ctx.Err() == nil {
		sel.Select(ctx)
	}
	if ctx.Err() != nil {
		return ApprovalOutcome{}, ctx.Err()
	}
	var out ApprovalOutcome
	err := workflow.ExecuteLocalActivity(ctx, ActivitySettleApproval, p.ApprovalID, decision).Get(ctx, &out)
	if err != nil {
		return ApprovalOutcome{}, fmt.Errorf("settle approval: %w", err)
	}
	return out, nil
}

// upsertStatus keeps the status in the workflow's memo, which the Web UI shows.
func upsertStatus(ctx workflow.Context, status string) {
	_ = workflow.UpsertMemo(ctx, map[string]any{"status": status})
}
