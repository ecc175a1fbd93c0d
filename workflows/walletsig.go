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
}

// WalletSigDone is what ActivitySignWalletSig answers: the signature's final status (signed, or failed
// with the rule that stopped it). The signature itself stays in the database, out of the history.
type WalletSigDone struct {
	Status    string
	ErrorCode string
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
// once: ActivitySignWalletSig re-checks the pause, opens the key, signs the stored digest and stores the
// signature (or records the signature failed, releasing its reserved spend). The key and the signature
// never enter the history: the activity answers only the status.
func WalletSigWorkflow(ctx workflow.Context, p WalletSigParams) (WalletSigDone, error) {
	actx := workflow.WithActivityOptions(ctx, walletSigStep)
	var done WalletSigDone
	if err := workflow.ExecuteActivity(actx, ActivitySignWalletSig, p.SignatureID).Get(ctx, &done); err != nil {
		return WalletSigDone{}, fmt.Errorf("sign wallet signature %s: %w", p.SignatureID, err)
	}
	return done, nil
}
