package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"

	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/workflows"
)

// Wallets are the activities of wallet transactions.
type Wallets struct {
	// Sender signs and sends; nil fails the activities saying so (retried until a worker has a chain).
	Sender *wallet.Sender
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
	return workflows.WalletTxSigned{Hash: hash}, err
}

// BroadcastWalletTx sends the transaction's stored bytes.
func (w *Wallets) BroadcastWalletTx(ctx context.Context, transactionID string) error {
	if w.Sender == nil {
		return errNoWalletChain
	}
	return w.Sender.Broadcast(ctx, transactionID)
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
