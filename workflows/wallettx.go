package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// WalletTxParams is the input of WalletTxWorkflow.
type WalletTxParams struct {
	TransactionID string
	// ApprovalID, when set, names the approval (kind wallet_transaction) the send waits for before it is
	// signed; ApprovalExpiresAt is when it expires.
	ApprovalID        string
	ApprovalExpiresAt time.Time
}

// Codes of sends that end rejected: their approval was not granted.
const (
	CodeWalletTxRejected  = "approval_rejected"
	CodeWalletTxExpired   = "approval_expired"
	CodeWalletTxCancelled = "approval_cancelled"
)

// WalletTxSigned is what ActivitySignWalletTx answers: the signed transaction's hash, or why it was not
// signed (the wallet was paused meanwhile; the chain refuses it).
type WalletTxSigned struct {
	Hash         string
	BlockedCode  string
	BlockedError string
}

// WalletTxSent is what ActivityBroadcastWalletTx answers: empty once the chain holds the transaction,
// or why it never will (another transaction took its nonce).
type WalletTxSent struct {
	BlockedCode  string
	BlockedError string
}

// WalletTxEnd is what ActivityFinishWalletTx records.
type WalletTxEnd struct {
	TransactionID string
	Status        string
	ErrorCode     string
	ErrorMessage  string
}

// WalletTxWorkflowID is the workflow id of a wallet transaction.
func WalletTxWorkflowID(transactionID string) string { return "wallettx/" + transactionID }

// walletTxSteps retry the signing, broadcast and bookkeeping until they succeed: each is idempotent on
// the transaction's stored state. Each is a few chain calls and one database transaction, so an attempt
// that takes longer than StartToCloseTimeout is one whose worker died (Temporal learns of it only then):
// the bound is how long a crash between signing and broadcast holds the send up.
var walletTxSteps = workflow.ActivityOptions{
	StartToCloseTimeout: 15 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second},
}

// walletTxQuickSteps are the same steps run as local activities, inside the workflow task that reaches
// them (no round trip through the server to schedule, start and complete each: about 80 ms a step under
// load). They stay retried until they succeed (ScheduleToCloseTimeout would otherwise default to the
// attempt's timeout); a worker that dies during one fails its workflow task, whose retry runs the step
// again, idempotent as ever.
var walletTxQuickSteps = workflow.LocalActivityOptions{
	ScheduleToCloseTimeout: 7 * 24 * time.Hour,
	StartToCloseTimeout:    15 * time.Second,
	RetryPolicy:            &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second},
}

// walletTxLocalSteps is the version of WalletTxWorkflow whose signing, broadcast and bookkeeping run as
// local activities (walletTxQuickSteps); histories recorded before it replay with regular activities.
const walletTxLocalSteps = 1

// txSteps runs the send's short steps (sign, broadcast, finish): as local activities since
// walletTxLocalSteps, as regular activities (walletTxSteps) in histories from before.
type txSteps struct {
	ctx   workflow.Context
	local bool
}

// newTxSteps reads the version of this run (recorded at its first workflow task) and answers its steps.
func newTxSteps(ctx workflow.Context) txSteps {
	local := workflow.GetVersion(ctx, "wallettx-local-steps", workflow.DefaultVersion, walletTxLocalSteps) == walletTxLocalSteps
	return txSteps{ctx: ctx, local: local}.on(ctx)
}

// on answers the same steps run from ctx (a disconnected context, say).
func (s txSteps) on(ctx workflow.Context) txSteps {
	if s.local {
		return txSteps{ctx: workflow.WithLocalActivityOptions(ctx, walletTxQuickSteps), local: true}
	}
	return txSteps{ctx: workflow.WithActivityOptions(ctx, walletTxSteps)}
}

// run starts step name with args.
func (s txSteps) run(name string, args ...any) workflow.Future {
	if s.local {
		return workflow.ExecuteLocalActivity(s.ctx, name, args...)
	}
	return workflow.ExecuteActivity(s.ctx, name, args...)
}

// walletTxReceipt waits for the receipt, heartbeating, for as long as the chain takes.
var walletTxReceipt = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Minute,
	HeartbeatTimeout:    10 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second},
}

// WalletTxWorkflow (workflow id wallettx/<transactionId>) sends one outbound transaction of a wallet,
// exactly once. A send recorded pending_approval first waits for its approval's outcome (signalled as
// SignalApprovalOutcome by the API and by the approval's workflow, like a run's; settled from here
// should none arrive by a minute past the approval's expiry): rejected, expired or cancelled ends it
// rejected (ActivityFinishWalletTx releases its reserved spend). Then ActivitySignWalletTx signs only a
// queued or approved send, re-checks the pause (a wallet paused after the approval blocks it: failed
// with code paused), takes a nonce and stores the signed bytes and hash in one database transaction;
// ActivityBroadcastWalletTx sends those bytes (a node that already has them is fine);
// ActivityWaitWalletTxReceipt waits for the receipt; ActivityFinishWalletTx records confirmed or failed
// (a failure releases the reserved spend) with its event. A retry, a restart or a second worker re-sends
// the same bytes, so the same hash confirms once. Since walletTxLocalSteps the signing, broadcast and
// bookkeeping are local activities (walletTxQuickSteps): the send is signed and broadcast in the
// workflow task that starts it, and ended in the one that sees its receipt.
func WalletTxWorkflow(ctx workflow.Context, p WalletTxParams) error {
	steps := newTxSteps(ctx)
	if p.ApprovalID == "" {
		return sendWalletTx(ctx, steps, p)
	}
	lctx := workflow.WithLocalActivityOptions(ctx, bookkeepingOptions)
	got, late := awaitApprovalOutcome(lctx, p.ApprovalID, p.ApprovalExpiresAt, !p.ApprovalExpiresAt.IsZero())
	var err error
	if got.Status == ApprovalApproved && ctx.Err() == nil {
		err = sendWalletTx(ctx, steps, p)
	} else {
		end := WalletTxEnd{TransactionID: p.TransactionID, Status: "rejected", ErrorCode: CodeWalletTxCancelled,
			ErrorMessage: "the approval " + p.ApprovalID + " was cancelled"}
		switch got.Status {
		case ApprovalRejected:
			end.ErrorCode, end.ErrorMessage = CodeWalletTxRejected, "the approval "+p.ApprovalID+" was rejected"
		case ApprovalExpired:
			end.ErrorCode, end.ErrorMessage = CodeWalletTxExpired, "the approval "+p.ApprovalID+" expired before anyone decided"
		}
		if ctx.Err() != nil {
			ctx, _ = workflow.NewDisconnectedContext(ctx)
			steps = steps.on(ctx)
		}
		err = finishWalletTx(ctx, steps, end)
	}
	drainLateOutcomes(ctx, late)
	return err
}

// sendWalletTx signs, broadcasts and confirms the send, and records its end.
func sendWalletTx(ctx workflow.Context, steps txSteps, p WalletTxParams) error {
	var signed WalletTxSigned
	if err := steps.run(ActivitySignWalletTx, p.TransactionID).Get(ctx, &signed); err != nil {
		return fmt.Errorf("sign wallet transaction %s: %w", p.TransactionID, err)
	}
	end := WalletTxEnd{TransactionID: p.TransactionID, Status: "confirmed"}
	if signed.BlockedCode != "" {
		end.Status, end.ErrorCode, end.ErrorMessage = "failed", signed.BlockedCode, signed.BlockedError
		return finishWalletTx(ctx, steps, end)
	}
	var sent WalletTxSent
	if err := steps.run(ActivityBroadcastWalletTx, p.TransactionID).Get(ctx, &sent); err != nil {
		return fmt.Errorf("broadcast wallet transaction %s: %w", p.TransactionID, err)
	}
	if sent.BlockedCode != "" {
		end.Status, end.ErrorCode, end.ErrorMessage = "failed", sent.BlockedCode, sent.BlockedError
		return finishWalletTx(ctx, steps, end)
	}
	var succeeded bool
	rctx := workflow.WithActivityOptions(ctx, walletTxReceipt)
	if err := workflow.ExecuteActivity(rctx, ActivityWaitWalletTxReceipt, p.TransactionID).Get(ctx, &succeeded); err != nil {
		return fmt.Errorf("wait for the receipt of wallet transaction %s: %w", p.TransactionID, err)
	}
	if !succeeded {
		end.Status, end.ErrorCode, end.ErrorMessage = "failed", "reverted", "the transaction was mined but reverted"
	}
	return finishWalletTx(ctx, steps, end)
}

// finishWalletTx records the send's end.
func finishWalletTx(ctx workflow.Context, steps txSteps, end WalletTxEnd) error {
	if err := steps.run(ActivityFinishWalletTx, end).Get(ctx, nil); err != nil {
		return fmt.Errorf("record the end of wallet transaction %s: %w", end.TransactionID, err)
	}
	return nil
}
