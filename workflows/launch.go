package workflows

import (
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// LaunchParams is the input of LaunchWorkflow.
type LaunchParams struct {
	LaunchID      string
	TransactionID string
	// ApprovalID and ApprovalExpiresAt are the wallet transaction's approval, when its policy asked for
	// one (passed on to wallettx/<transactionId>).
	ApprovalID        string
	ApprovalExpiresAt time.Time
}

// LaunchSponsored is what ActivitySponsorLaunchGas answers: the gas top-up's hash ("" when the wallet
// needed none), or why it was not sent (the send will then fail on the chain and say so).
type LaunchSponsored struct {
	Hash    string
	Skipped string
}

// LaunchWorkflowID is the workflow id of a token launch.
func LaunchWorkflowID(launchID string) string { return "launch/" + launchID }

// launchSteps retry each step until it succeeds: each is idempotent on the launch's and its wallet
// transaction's stored state. The gas top-up and the launch's end wait for the chain, so they heartbeat.
var launchSteps = workflow.ActivityOptions{
	StartToCloseTimeout: 10 * time.Minute,
	HeartbeatTimeout:    20 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second},
}

// LaunchWorkflow (workflow id launch/<launchId>) deploys one token, exactly once: the launch's wallet
// transaction (FeesManager.launch, recorded by the request with an id derived from the launch's) is
// made payable by ActivitySponsorLaunchGas (the platform's sponsor tops the wallet up with its gas, once
// per transaction), then sent by the child workflow wallettx/<transactionId> (sign, broadcast, confirm,
// exactly once); ActivityFinishLaunch waits until that transaction has ended and records the launch
// deployed with the Launch event's token, pool and poolId, or failed with the send's reason. A child that
// is already running (started by the sends' sweep) is not started twice: the last step waits for the
// transaction's end whoever sends it.
func LaunchWorkflow(ctx workflow.Context, p LaunchParams) error {
	return sponsoredSend(ctx, sponsoredStep{What: "launch", ID: p.LaunchID, Sponsor: ActivitySponsorLaunchGas, Finish: ActivityFinishLaunch},
		WalletTxParams{TransactionID: p.TransactionID, ApprovalID: p.ApprovalID, ApprovalExpiresAt: p.ApprovalExpiresAt})
}

// sponsoredStep names what a sponsored send does: its activities that sponsor the gas and record the end.
type sponsoredStep struct {
	What, ID        string
	Sponsor, Finish string
}

// sponsoredSend runs a sponsored wallet send (token launches, fee claims, beneficiary transfers): s.Sponsor makes the wallet
// transaction payable, the child workflow wallettx/<transactionId> sends it exactly once (a child
// already running is not started twice), and s.Finish waits for its end and records it.
func sponsoredSend(ctx workflow.Context, s sponsoredStep, tx WalletTxParams) error {
	actx := workflow.WithActivityOptions(ctx, launchSteps)
	var sponsored LaunchSponsored
	if err := workflow.ExecuteActivity(actx, s.Sponsor, s.ID).Get(ctx, &sponsored); err != nil {
		return fmt.Errorf("sponsor the gas of %s %s: %w", s.What, s.ID, err)
	}
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
		workflow.GetLogger(ctx).Warn("the wallet transaction ended with an error", "what", s.What, "transactionId", tx.TransactionID, "err", err)
	}
	if err := workflow.ExecuteActivity(actx, s.Finish, s.ID).Get(ctx, nil); err != nil {
		return fmt.Errorf("record the end of %s %s: %w", s.What, s.ID, err)
	}
	return nil
}

// forwardApprovalOutcome hands the child wallettx/<id> an outcome its approval reached before the child
// existed (decided while the gas was being sponsored: the decision's signal found no workflow then). An
// outcome reached later is signalled to the running child by the approval itself; a second copy of one is
// harmless (the child drains late outcomes).
func forwardApprovalOutcome(ctx, actx workflow.Context, p WalletTxParams) {
	var got ApprovalOutcome
	if err := workflow.ExecuteActivity(actx, ActivityReadApprovalOutcome, p.ApprovalID).Get(ctx, &got); err != nil || got.Status == "" {
		return
	}
	_ = workflow.SignalExternalWorkflow(ctx, WalletTxWorkflowID(p.TransactionID), "", SignalApprovalOutcome, got).Get(ctx, nil)
}
