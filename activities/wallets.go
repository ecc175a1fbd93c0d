package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"

	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/workflows"
)

// Test-only faults of wallet transactions (as Wallets.Fault, from SVC_TEST_FAULT): each makes an
// activity stop, without heartbeats, until its context ends, so a crash test can kill the worker at that
// point and the workflow retries the activity on another worker. Never set them in production.
const (
	// FaultStallAfterSign stops SignWalletTx once the signed bytes, nonce and hash are committed, before
	// it answers: nothing is on the chain yet, and the retry must find the stored bytes, not sign again.
	FaultStallAfterSign = "stall-after-sign"
	// FaultStallAfterBroadcast stops BroadcastWalletTx after it sent the bytes and marked the
	// transaction broadcast, before the workflow waits for the receipt: the retry re-sends bytes the
	// chain already has.
	FaultStallAfterBroadcast = "stall-after-broadcast"
)

// Wallets are the activities of wallet transactions.
type Wallets struct {
	// Sender signs and sends; nil fails the activities saying so (retried until a worker has a chain).
	Sender *wallet.Sender
	// Fault injects a test fault (FaultStallAfterSign, FaultStallAfterBroadcast); empty in production.
	Fault string
}

var errNoWalletChain = errors.New("this worker has no chain to send wallet transactions on")

// SignWalletTx signs the transaction (once) and answers its hash, or why it is blocked.
func (w *Wallets) SignWalletTx(ctx context.Context, transactionID string) (workflows.WalletTxSigned, error) {
	if w.Sender == nil {
		return workflows.WalletTxSigned{}, errNoWalletChain
	}
	hash, err := w.Sender.Sign(ctx, transactionID)
	if b, ok := wallet.AsBlocked(err); ok {
		return workflows.WalletTxSigned{BlockedCode: b.Code, BlockedError: b.Message}, nil
	}
	if err == nil && w.Fault == FaultStallAfterSign {
		<-ctx.Done()
		return workflows.WalletTxSigned{}, ctx.Err()
	}
	return workflows.WalletTxSigned{Hash: hash}, err
}

// BroadcastWalletTx sends the transaction's stored bytes; a transaction whose nonce another one took
// answers why it will never be sent.
func (w *Wallets) BroadcastWalletTx(ctx context.Context, transactionID string) (workflows.WalletTxSent, error) {
	if w.Sender == nil {
		return workflows.WalletTxSent{}, errNoWalletChain
	}
	err := w.Sender.Broadcast(ctx, transactionID)
	if b, ok := wallet.AsBlocked(err); ok {
		return workflows.WalletTxSent{BlockedCode: b.Code, BlockedError: b.Message}, nil
	}
	if err != nil {
		return workflows.WalletTxSent{}, err
	}
	if w.Fault == FaultStallAfterBroadcast {
		<-ctx.Done()
		return workflows.WalletTxSent{}, ctx.Err()
	}
	return workflows.WalletTxSent{}, nil
}

// WaitWalletTxReceipt waits for the receipt, heartbeating; true when the transaction succeeded.
func (w *Wallets) WaitWalletTxReceipt(ctx context.Context, transactionID string) (bool, error) {
	if w.Sender == nil {
		return false, errNoWalletChain
	}
	return w.Sender.WaitReceipt(ctx, transactionID, func() { activity.RecordHeartbeat(ctx) })
}

// FinishWalletTx records the transaction's end with its event.
func (w *Wallets) FinishWalletTx(ctx context.Context, end workflows.WalletTxEnd) error {
	if w.Sender == nil {
		return errNoWalletChain
	}
	return w.Sender.Finish(ctx, end)
}

// SignWalletSig makes the wallet signature once and answers its final status.
func (w *Wallets) SignWalletSig(ctx context.Context, signatureID string) (workflows.WalletSigDone, error) {
	if w.Sender == nil {
		return workflows.WalletSigDone{}, errNoWalletChain
	}
	return w.Sender.SignSignature(ctx, signatureID)
}

// RejectWalletSig records the wallet signature rejected (its approval was not granted) and answers its
// final status.
func (w *Wallets) RejectWalletSig(ctx context.Context, end workflows.WalletSigEnd) (workflows.WalletSigDone, error) {
	if w.Sender == nil {
		return workflows.WalletSigDone{}, errNoWalletChain
	}
	return w.Sender.RejectSignature(ctx, end)
}
