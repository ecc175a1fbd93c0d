package beneficiary

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	evmlaunch "github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/feeread"
	"github.com/svcplatform/svc/internal/launch"
	"github.com/svcplatform/svc/internal/sponsor"
	"github.com/svcplatform/svc/internal/sweep"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// The FeesManager's binding.
var feesABI = evmlaunch.NewFeesManager()

// Start starts transfer t's workflow beneficiary/<id> (one started before is fine), with its wallet
// transaction's approval when its policy asked for one.
func Start(ctx context.Context, e wallet.Engine, db bun.IDB, t *schema.BeneficiaryTransfer) error {
	tx := new(schema.WalletTransaction)
	if err := db.NewSelect().Model(tx).Where("id = ?", t.TransactionID).Scan(ctx); err != nil {
		return fmt.Errorf("read the wallet transaction of %s: %w", t.ID, err)
	}
	p := workflows.BeneficiaryParams{TransferID: t.ID, TransactionID: t.TransactionID}
	var err error
	if p.ApprovalID, p.ApprovalExpiresAt, err = launch.ApprovalOf(ctx, db, e, tx); err != nil {
		return err
	}
	return wallet.StartOnce(ctx, e, sdkclient.StartWorkflowOptions{ID: workflows.BeneficiaryWorkflowID(t.ID),
		TypedSearchAttributes: workflows.ResourceAttributes(t.AccountID, t.ProjectID, client.ServiceManagedWallets, client.OpBeneficiaryTransfersCreate),
		StaticSummary:         "move the beneficiary share of " + t.TokenAddress + " from " + t.WalletID + " to " + t.NewBeneficiary + " (" + t.ID + ")"},
		"beneficiary transfer", workflows.BeneficiaryWorkflowName, p)
}

// Sweep starts the workflows of transfers still transferring after settle whose request died between
// recording them and starting their workflow (recorded in the last day, at most limit); it answers how
// many it handed on. A transfer whose workflow runs or ran is left as it is.
func Sweep(ctx context.Context, db *bun.DB, e wallet.Engine, settle time.Duration, limit int) (int, error) {
	return sweep.Stale(ctx, db, sweep.Query{What: "beneficiary transfers", Statuses: []string{schema.BeneficiaryTransferring}, Settle: settle, Limit: limit},
		func(ctx context.Context, t *schema.BeneficiaryTransfer) (bool, error) {
			if !sweep.Recorded(ctx, db, (*schema.WalletTransaction)(nil), t.TransactionID) {
				return false, nil // its send was never recorded: a retry of the request records it
			}
			return true, Start(ctx, e, db, t)
		})
}

// Worker does the work of the transfer workflow's activities.
type Worker struct {
	DB      *bun.DB
	RPC     *ethclient.Client
	Sponsor *sponsor.Sponsor
	// FeesManager is the contract whose Release and UpdateBeneficiary events the receipt carries.
	FeesManager common.Address
}

// errNotEnded is a transfer whose wallet transaction has not ended yet (the activity is retried).
var errNotEnded = errors.New("the beneficiary transfer's wallet transaction has not ended yet")

// SponsorGas tops the transfer's wallet up with its transaction's gas (once). A transaction the chain
// refuses already is not sponsored: its send fails and says why.
func (w *Worker) SponsorGas(ctx context.Context, transferID string, beat func()) (workflows.LaunchSponsored, error) {
	if w.Sponsor == nil || w.Sponsor.Key == nil || w.RPC == nil {
		return workflows.LaunchSponsored{}, sponsor.ErrNoSponsor
	}
	t, err := load(ctx, w.DB, transferID)
	if err != nil {
		return workflows.LaunchSponsored{}, err
	}
	hash, err := w.Sponsor.Fund(ctx, t.TransactionID, beat)
	if r, ok := sponsor.AsRefused(err); ok {
		return workflows.LaunchSponsored{Skipped: r.Error()}, nil
	}
	return workflows.LaunchSponsored{Hash: hash}, err
}

// Finish records the transfer's end once its wallet transaction has ended: transferred with the
// receipt's amounts, or failed with the send's reason.
func (w *Worker) Finish(ctx context.Context, transferID string) error {
	t, err := load(ctx, w.DB, transferID)
	if err != nil || t.Status != schema.BeneficiaryTransferring {
		return err
	}
	tx := new(schema.WalletTransaction)
	if err := w.DB.NewSelect().Model(tx).Where("id = ?", t.TransactionID).Scan(ctx); err != nil {
		return fmt.Errorf("read the wallet transaction of %s: %w", transferID, err)
	}
	switch tx.Status {
	case schema.WalletTxConfirmed:
		return w.transferred(ctx, t, tx)
	case schema.WalletTxFailed, schema.WalletTxRejected:
		return w.failed(ctx, t, tx.TxHash, derefOr(tx.ErrorCode, tx.Status), derefOr(tx.ErrorMessage, "the transfer transaction "+tx.Status))
	}
	return errNotEnded
}

// moved is what a transfer's receipt says: the old beneficiary's Release amounts and the shares moved.
type moved struct {
	released [2]string
	shares   string
}

// readReceipt finds t's Release (paid to the old beneficiary when the contract settled it; none when
// nothing was pending) and UpdateBeneficiary events among the receipt's logs.
func (w *Worker) readReceipt(r *types.Receipt, t *schema.BeneficiaryTransfer) moved {
	out := moved{released: [2]string{"0", "0"}, shares: t.Shares}
	from := common.HexToAddress(t.WalletAddress)
	for _, lg := range r.Logs {
		if lg.Address != w.FeesManager || len(lg.Topics) < 2 || lg.Topics[1] != common.HexToHash(t.PoolID) {
			continue
		}
		if ev, err := feesABI.UnpackReleaseEvent(lg); err == nil && ev.Beneficiary == from {
			out.released = [2]string{ev.Amount0.String(), ev.Amount1.String()}
		}
		if ev, err := feesABI.UnpackUpdateBeneficiaryEvent(lg); err == nil && ev.OldBeneficiary == from {
			out.shares = ev.Shares.String()
		}
	}
	return out
}

// transferred reads the confirmed transaction's receipt and records the transfer transferred.
func (w *Worker) transferred(ctx context.Context, t *schema.BeneficiaryTransfer, tx *schema.WalletTransaction) error {
	if w.RPC == nil || tx.TxHash == nil {
		return sponsor.ErrNoSponsor
	}
	r, err := w.RPC.TransactionReceipt(ctx, common.HexToHash(*tx.TxHash))
	if err != nil {
		return fmt.Errorf("read the receipt of %s: %w", *tx.TxHash, err)
	}
	m := w.readReceipt(r, t)
	block, gas := r.BlockNumber.Int64(), int64(r.GasUsed) //nolint:gosec // block numbers and gas fit in int64
	_, err = w.DB.NewUpdate().Model((*schema.BeneficiaryTransfer)(nil)).
		Set("status = ?, tx_hash = ?, block_number = ?, gas_used = ?, released0 = ?, released1 = ?, shares = ?, transferred_at = ?, updated_at = now()",
			schema.BeneficiaryTransferred, *tx.TxHash, block, gas, m.released[0], m.released[1], m.shares, time.Now().UTC()).
		Where("id = ? AND status = ?", t.ID, schema.BeneficiaryTransferring).Exec(ctx)
	return wrap(err, "record beneficiary transfer "+t.ID+" transferred")
}

func (w *Worker) failed(ctx context.Context, t *schema.BeneficiaryTransfer, hash *string, code, msg string) error {
	_, err := w.DB.NewUpdate().Model((*schema.BeneficiaryTransfer)(nil)).
		Set("status = ?, tx_hash = ?, error_code = ?, error_message = ?, updated_at = now()", schema.BeneficiaryFailed, hash, code, msg).
		Where("id = ? AND status = ?", t.ID, schema.BeneficiaryTransferring).Exec(ctx)
	return wrap(err, "record beneficiary transfer "+t.ID+" failed")
}

func derefOr(s *string, or string) string {
	if s == nil || *s == "" {
		return or
	}
	return *s
}

// ToWire is the transfer as its account sees it.
func ToWire(t *schema.BeneficiaryTransfer) client.BeneficiaryTransfer {
	chainID, _ := strconv.ParseInt(strings.TrimPrefix(t.Chain, "eip155:"), 10, 64)
	shares, _ := new(big.Int).SetString(t.Shares, 10)
	if shares == nil {
		shares = new(big.Int)
	}
	out := client.BeneficiaryTransfer{ID: t.ID, Status: t.Status, WalletID: t.WalletID, From: t.WalletAddress, To: t.NewBeneficiary,
		TokenAddress: t.TokenAddress, PoolID: t.PoolID, Shares: t.Shares, SharePercent: feeread.Percent(shares), ChainID: chainID,
		TransactionID: t.TransactionID, TransactionHash: derefOr(t.TxHash, ""), BlockNumber: t.BlockNumber, GasUsed: t.GasUsed,
		ApprovalID: t.ApprovalID, Released0: derefOr(t.Released0, ""), Released1: derefOr(t.Released1, ""), WorkflowID: workflows.BeneficiaryWorkflowID(t.ID),
		Description: fmt.Sprintf("Move %s's beneficiary share of %s (pool %s) to %s; its pending fees are paid to it first",
			t.WalletAddress, t.TokenAddress, t.PoolID, t.NewBeneficiary), CreatedAt: t.CreatedAt.UnixMilli()}
	if t.ErrorCode != nil {
		out.Error = &client.RunError{Code: *t.ErrorCode, Message: derefOr(t.ErrorMessage, "")}
	}
	if t.TransferredAt != nil {
		ms := t.TransferredAt.UnixMilli()
		out.TransferredAt = &ms
	}
	return out
}
