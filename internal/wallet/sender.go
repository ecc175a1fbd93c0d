package wallet

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Sender does the work of the wallet transaction workflow's activities: it is the only place a wallet's
// key is opened.
type Sender struct {
	DB      *bun.DB
	Box     *secretbox.Box
	RPC     *ethclient.Client
	ChainID *big.Int
}

// CodeNonceUsed is the error code of a signed send whose nonce another transaction of the wallet took.
const CodeNonceUsed = "nonce_used"

// rebroadcastEvery is how often a send waiting for its receipt checks that the node still holds it, and
// sends its bytes again if the node dropped it (a restarted node, an evicted pool entry).
const rebroadcastEvery = 30 * time.Second

// Blocked is a send that will never be signed or sent: the reason is its error code.
type Blocked struct{ Code, Message string }

// Error implements error.
func (b *Blocked) Error() string { return b.Message }

// Sign answers the hash of transaction id's signed bytes, signing them first if they are not stored yet:
// a send in pending_approval is signed only once its approval's row says approved; the pause is checked
// again (a wallet paused after the approval blocks the send), then the nonce is taken from the wallet's counter and the signed bytes are
// stored with it in one database transaction, so a crash before the commit leaves nothing and a retry
// after it finds the same bytes.
func (s *Sender) Sign(ctx context.Context, id string) (string, error) {
	t, w, err := s.load(ctx, s.DB, id, "")
	if err != nil || t.TxHash != nil {
		if err != nil {
			return "", err
		}
		return *t.TxHash, nil
	}
	if err := s.signable(ctx, t); err != nil {
		return "", err
	}
	p, err := PolicyOf(w)
	if err != nil {
		return "", err
	}
	if p.Paused {
		return "", &Blocked{Code: RulePaused, Message: "the wallet was paused before the transaction was signed (rule paused): it sends nothing"}
	}
	unsigned, err := s.shape(ctx, t, w)
	if err != nil {
		return "", err
	}
	pending, err := s.RPC.PendingNonceAt(ctx, Address(w))
	if err != nil {
		return "", fmt.Errorf("read the wallet's nonce on the chain: %w", err)
	}
	var hash string
	err = s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		hash, err = s.signLocked(ctx, tx, id, w, unsigned, pending)
		return err
	})
	return hash, err
}

// signable says whether t may be signed: it is queued, or pending_approval with its approval approved.
func (s *Sender) signable(ctx context.Context, t *schema.WalletTransaction) error {
	switch {
	case t.Status == schema.WalletTxQueued:
		return nil
	case t.Status == schema.WalletTxPendingApproval && t.ApprovalID != nil:
		a, err := approval.NewStore(s.DB).ByID(ctx, *t.ApprovalID)
		if err != nil {
			return err
		}
		if a.Status == client.ApprovalApproved {
			return nil
		}
		return &Blocked{Code: "not_approved", Message: "the approval " + a.ID + " is " + a.Status}
	}
	return &Blocked{Code: "not_queued", Message: "the transaction is " + t.Status}
}

// signLocked takes the nonce and stores the signed bytes, under the wallet's nonce and the transaction's
// row locks.
func (s *Sender) signLocked(ctx context.Context, tx bun.Tx, id string, w *schema.Wallet, unsigned types.DynamicFeeTx, pending uint64) (string, error) {
	if _, err := tx.NewRaw("INSERT INTO wallet_nonces (wallet_id, next_nonce) VALUES (?, ?) ON CONFLICT DO NOTHING", w.ID, pending).Exec(ctx); err != nil {
		return "", fmt.Errorf("start the wallet's nonce counter: %w", err)
	}
	var next uint64
	if err := tx.NewRaw("SELECT next_nonce FROM wallet_nonces WHERE wallet_id = ? FOR UPDATE", w.ID).Scan(ctx, &next); err != nil {
		return "", fmt.Errorf("lock the wallet's nonce counter: %w", err)
	}
	t, _, err := s.load(ctx, tx, id, "UPDATE")
	if err != nil || t.TxHash != nil {
		if err != nil {
			return "", err
		}
		return *t.TxHash, nil // another attempt signed it meanwhile
	}
	unsigned.Nonce = max(next, pending)
	key, err := OpenKey(s.Box, w.ID, Address(w), Sealed{Key: w.SealedKey, DataKey: w.SealedDataKey})
	if err != nil {
		return "", err
	}
	signed, err := types.SignNewTx(key, types.LatestSignerForChainID(s.ChainID), &unsigned)
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return "", fmt.Errorf("encode the signed transaction: %w", err)
	}
	hash := signed.Hash().Hex()
	nonce := int64(unsigned.Nonce)
	if _, err := tx.NewUpdate().Model(t).Set("nonce = ?, raw_tx = ?, tx_hash = ?, status = ?, updated_at = now()", nonce, raw, hash, schema.WalletTxQueued).WherePK().Exec(ctx); err != nil {
		return "", fmt.Errorf("store the signed transaction: %w", err)
	}
	if _, err := tx.NewRaw("UPDATE wallet_nonces SET next_nonce = ? WHERE wallet_id = ?", unsigned.Nonce+1, w.ID).Exec(ctx); err != nil {
		return "", fmt.Errorf("advance the wallet's nonce: %w", err)
	}
	return hash, nil
}

// shape builds the unsigned transaction: its call, gas and fees. A send the chain refuses (it reverts,
// or the wallet cannot pay) is Blocked.
func (s *Sender) shape(ctx context.Context, t *schema.WalletTransaction, w *schema.Wallet) (types.DynamicFeeTx, error) {
	to := common.HexToAddress(t.TxTo)
	value := mustBig(t.Value)
	gas, err := s.RPC.EstimateGas(ctx, ethereum.CallMsg{From: Address(w), To: &to, Value: value, Data: t.Data})
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "revert") || strings.Contains(msg, "insufficient funds") {
			return types.DynamicFeeTx{}, &Blocked{Code: "chain_refused", Message: "the chain refuses this send: " + msg}
		}
		return types.DynamicFeeTx{}, fmt.Errorf("estimate gas: %w", err)
	}
	tip, feeCap, err := evm.Fees(ctx, s.RPC)
	if err != nil {
		return types.DynamicFeeTx{}, err
	}
	return types.DynamicFeeTx{ChainID: s.ChainID, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas + gas/5, To: &to, Value: value, Data: t.Data}, nil
}

// load reads transaction id and its wallet.
func (s *Sender) load(ctx context.Context, db bun.IDB, id, lock string) (*schema.WalletTransaction, *schema.Wallet, error) {
	t := new(schema.WalletTransaction)
	q := db.NewSelect().Model(t).Where("id = ?", id)
	if lock != "" {
		q = q.For(lock)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("read wallet transaction %s: %w", id, err)
	}
	w := new(schema.Wallet)
	if err := db.NewSelect().Model(w).Where("id = ?", t.WalletID).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("read wallet %s: %w", t.WalletID, err)
	}
	return t, w, nil
}

// Broadcast sends transaction id's stored bytes; a node that already has them (or has mined them) is
// fine.
func (s *Sender) Broadcast(ctx context.Context, id string) error {
	t, _, err := s.load(ctx, s.DB, id, "")
	if err != nil {
		return err
	}
	if t.RawTx == nil {
		return fmt.Errorf("wallet transaction %s is not signed", id)
	}
	signed := new(types.Transaction)
	if err := signed.UnmarshalBinary(t.RawTx); err != nil {
		return fmt.Errorf("decode the signed transaction: %w", err)
	}
	if err := s.RPC.SendTransaction(ctx, signed); err != nil && !s.known(ctx, signed.Hash(), err) {
		if strings.Contains(err.Error(), "nonce too low") {
			return &Blocked{Code: CodeNonceUsed, Message: fmt.Sprintf("the chain already holds another transaction with this wallet's nonce %d "+
				"(one sent outside the platform?), so %s can never be mined: nothing was sent", signed.Nonce(), signed.Hash().Hex())}
		}
		return fmt.Errorf("broadcast %s: %w", signed.Hash().Hex(), err)
	}
	_, err = s.DB.NewUpdate().Model((*schema.WalletTransaction)(nil)).Set("status = ?, updated_at = now()", schema.WalletTxBroadcast).
		Where("id = ? AND status = ?", id, schema.WalletTxQueued).Exec(ctx)
	return err
}

// known reports whether the chain already has hash (the send's error then says so).
func (s *Sender) known(ctx context.Context, hash common.Hash, err error) bool {
	msg := err.Error()
	if strings.Contains(msg, "already known") {
		return true
	}
	if _, _, terr := s.RPC.TransactionByHash(ctx, hash); terr == nil {
		return true
	}
	r, rerr := s.RPC.TransactionReceipt(ctx, hash)
	return rerr == nil && r != nil
}

// WaitReceipt waits for transaction id's receipt (beat keeps the activity alive) and says whether it
// succeeded.
func (s *Sender) WaitReceipt(ctx context.Context, id string, beat func()) (bool, error) {
	t, _, err := s.load(ctx, s.DB, id, "")
	if err != nil {
		return false, err
	}
	if t.TxHash == nil {
		return false, fmt.Errorf("wallet transaction %s is not signed", id)
	}
	last := time.Now()
	r, err := evm.WaitReceipt(ctx, s.RPC, common.HexToHash(*t.TxHash), func() {
		if beat != nil {
			beat()
		}
		if time.Since(last) >= rebroadcastEvery {
			last = time.Now()
			s.rebroadcast(ctx, t)
		}
	})
	if err != nil {
		return false, err
	}
	return r.Status == types.ReceiptStatusSuccessful, nil
}

// rebroadcast sends t's stored bytes again when the node no longer knows the transaction. Errors are
// left for the next round: the wait goes on either way.
func (s *Sender) rebroadcast(ctx context.Context, t *schema.WalletTransaction) {
	signed := new(types.Transaction)
	if t.RawTx == nil || signed.UnmarshalBinary(t.RawTx) != nil {
		return
	}
	if _, _, err := s.RPC.TransactionByHash(ctx, signed.Hash()); !errors.Is(err, ethereum.NotFound) {
		return
	}
	_ = s.RPC.SendTransaction(ctx, signed)
}

// Finish records transaction id's end once (confirmed, failed, or rejected when its approval was not
// granted), with its event; a failure or a rejection releases the reserved spend.
func (s *Sender) Finish(ctx context.Context, end workflows.WalletTxEnd) error {
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		t, _, err := s.load(ctx, tx, end.TransactionID, "UPDATE")
		if err != nil {
			return err
		}
		if t.Status == schema.WalletTxConfirmed || t.Status == schema.WalletTxFailed || t.Status == schema.WalletTxRejected {
			return nil
		}
		now := time.Now().UTC()
		t.Status, t.UpdatedAt = end.Status, now
		typ := outbox.WalletTransactionConfirmed
		if end.Status == schema.WalletTxConfirmed {
			t.ConfirmedAt = &now
		} else {
			typ = outbox.WalletTransactionFailed
			if end.Status == schema.WalletTxRejected {
				typ = outbox.WalletTransactionRejected
			}
			t.ErrorCode, t.ErrorMessage = &end.ErrorCode, &end.ErrorMessage
			if _, err := tx.NewRaw("UPDATE wallet_spends SET released_at = now() WHERE wallet_id = ? AND transaction_id = ?",
				t.WalletID, t.ID).Exec(ctx); err != nil {
				return fmt.Errorf("release the spend of %s: %w", t.ID, err)
			}
		}
		if _, err := tx.NewUpdate().Model(t).Column("status", "updated_at", "confirmed_at", "error_code", "error_message").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("record the end of %s: %w", t.ID, err)
		}
		return outbox.Emit(ctx, tx, outbox.Event{AccountID: t.AccountID, ProjectID: t.ProjectID, Type: typ, Subject: t.ID,
			Data: TransactionToWire(t)})
	})
}

// AsBlocked returns the Blocked in err's chain, if any.
func AsBlocked(err error) (*Blocked, bool) {
	var b *Blocked
	ok := errors.As(err, &b)
	return b, ok
}
