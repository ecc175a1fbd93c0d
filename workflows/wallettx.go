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
}

// WalletTxSigned is what ActivitySignWalletTx answers: the signed transaction's hash, or why it was not
// signed (the wallet was paused meanwhile; the chain refuses it).
type WalletTxSigned struct {
	Hash         string
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

// walletTxReceipt waits for the receipt, heartbeating, for as long as the chain takes.
var walletTxReceipt = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Minute,
	HeartbeatTimeout:    10 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second},
}

// WalletTxWorkflow (workflow id wallettx/<transactionId>) sends one outbound transaction of a wallet,
// exactly once: ActivitySignWalletTx re-checks the pause, takes a nonce and stores the signed bytes and
// hash in one database transaction; ActivityBroadcastWalletTx sends those bytes (a node that already has
// them is fine); ActivityWaitWalletTxReceipt waits for the receipt; ActivityFinishWalletTx records
// confirmed or failed (a failure releases the reserved spend) with its event. A retry, a restart or a
// second worker re-sends the same bytes, so the same hash confirms once.
func WalletTxWorkflow(ctx workflow.Context, p WalletTxParams) error {
	actx := workflow.WithActivityOptions(ctx, walletTxSteps)
	var signed WalletTxSigned
	if err := workflow.ExecuteActivity(actx, ActivitySignWalletTx, p.TransactionID).Get(ctx, &signed); err != nil {
		return fmt.Errorf("sign wallet transaction %s: %w", p.TransactionID, err)
	}
	end := WalletTxEnd{TransactionID: p.TransactionID, Status: "confirmed"}
	if signed.BlockedCode != "" {
		end.Status, end.ErrorCode, end.ErrorMessage = "failed", signed.BlockedCode, signed.BlockedError
		return finishWalletTx(actx, ctx, end)
	}
	if err := workflow.ExecuteActivity(actx, ActivityBroadcastWalletTx, p.TransactionID).Get(ctx, nil); err != nil {
		return fmt.Errorf("broadcast wallet transaction %s: %w", p.TransactionID, err)
	}
	var succeeded bool
	rctx := workflow.WithActivityOptions(ctx, walletTxReceipt)
	if err := workflow.ExecuteActivity(rctx, ActivityWaitWalletTxReceipt, p.TransactionID).Get(ctx, &succeeded); err != nil {
		return fmt.Errorf("wait for the receipt of wallet transaction %s: %w", p.TransactionID, err)
	}
	if !succeeded {
		end.Status, end.ErrorCode, end.ErrorMessage = "failed", "reverted", "the transaction was mined but reverted"
	}
	return finishWalletTx(actx, ctx, end)
}

func finishWalletTx(actx, ctx workflow.Context, end WalletTxEnd) error {
	if err := workflow.ExecuteActivity(actx, ActivityFinishWalletTx, end).Get(ctx, nil); err != nil {
		return fmt.Errorf("record the end of wallet transaction %s: %w", end.TransactionID, err)
	}
	return nil
}
