package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// WalletSigParams is the input of WalletSigWorkflow.
type WalletSigParams struct {
	SignatureID string
	// ApprovalID, when set, names the approval (kind wallet_signature) the signature waits for before it
	// is made; ApprovalExpiresAt is when it expires.
	ApprovalID        string
	ApprovalExpiresAt time.Time
}

// WalletSigDone is what ActivitySignWalletSig and ActivityRejectWalletSig answer: the signature's final
// status (signed; failed with the rule that stopped it; rejected with its approval's outcome). The
// signature itself stays in the database, out of the history.
type WalletSigDone struct {
	Status    string
	ErrorCode string
}

// WalletSigEnd is what ActivityRejectWalletSig records: why a signature will not be made.
type WalletSigEnd struct {
	SignatureID  string
	ErrorCode    string
	ErrorMessage string
}

// WalletSigWorkflowID is the workflow id of a wallet signature.
func WalletSigWorkflowID(signatureID string) string { return "walletsig/" + signatureID }

// walletSigStep retries the signing until it succeeds: it is idempotent on the signature's row (a
// signed row answers as it is, and signing is deterministic). An attempt longer than the timeout is one
// whose worker died.
var walletSigStep = workflow.ActivityOptions{
	StartToCloseTimeout: 15 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second},
}

// WalletSigWorkflow (workflow id walletsig/<signatureId>) makes one signature of a wallet, exactly
// once. A signature recorded pending_approval first waits for its approval's outcome (signalled as
// SignalApprovalOutcome by the API and by the approval's workflow, like a send's; settled from here
// should none arrive by a minute past the approval's expiry): rejected, expired or cancelled ends it
// rejected (ActivityRejectWalletSig releases its reserved spend). Then ActivitySignWalletSig re-checks
// the pause, opens the key, signs the stored digest and stores the signature (or records the signature
// failed, releasing its reserved spend). The key and the signature never enter the history: the
// activities answer only the status.
func WalletSigWorkflow(ctx workflow.Context, p WalletSigParams) (WalletSigDone, error) {
	actx := workflow.WithActivityOptions(ctx, walletSigStep)
	if p.ApprovalID == "" {
		return signWalletSig(ctx, actx, p.SignatureID)
	}
	lctx := workflow.WithLocalActivityOptions(ctx, bookkeepingOptions)
	got, late := awaitApprovalOutcome(lctx, p.ApprovalID, p.ApprovalExpiresAt, !p.ApprovalExpiresAt.IsZero())
	var done WalletSigDone
	var err error
	if got.Status == ApprovalApproved && ctx.Err() == nil {
		done, err = signWalletSig(ctx, actx, p.SignatureID)
	} else {
		if ctx.Err() != nil {
			ctx, _ = workflow.NewDisconnectedContext(ctx)
			actx = workflow.WithActivityOptions(ctx, walletSigStep)
		}
		done, err = rejectWalletSig(ctx, actx, walletSigEndOf(p, got.Status))
	}
	drainLateOutcomes(ctx, late)
	return done, err
}

// walletSigEndOf is the end of a signature whose approval ended with status (not approved); the codes
// are the send's.
func walletSigEndOf(p WalletSigParams, status string) WalletSigEnd {
	end := WalletSigEnd{SignatureID: p.SignatureID, ErrorCode: CodeWalletTxCancelled, ErrorMessage: "the approval " + p.ApprovalID + " was cancelled"}
	switch status {
	case ApprovalRejected:
		end.ErrorCode, end.ErrorMessage = CodeWalletTxRejected, "the approval "+p.ApprovalID+" was rejected"
	case ApprovalExpired:
		end.ErrorCode, end.ErrorMessage = CodeWalletTxExpired, "the approval "+p.ApprovalID+" expired before anyone decided"
	}
	return end
}

// signWalletSig makes the signature (or records why it was not made).
func signWalletSig(ctx, actx workflow.Context, id string) (WalletSigDone, error) {
	var done WalletSigDone
	if err := workflow.ExecuteActivity(actx, ActivitySignWalletSig, id).Get(ctx, &done); err != nil {
		return WalletSigDone{}, fmt.Errorf("sign wallet signature %s: %w", id, err)
	}
	return done, nil
}

// rejectWalletSig records that the signature will not be made, its approval not granted.
func rejectWalletSig(ctx, actx workflow.Context, end WalletSigEnd) (WalletSigDone, error) {
	var done WalletSigDone
	if err := workflow.ExecuteActivity(actx, ActivityRejectWalletSig, end).Get(ctx, &done); err != nil {
		return WalletSigDone{}, fmt.Errorf("record the rejection of wallet signature %s: %w", end.SignatureID, err)
	}
	return done, nil
}
