package feeclaim

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	evmlaunch "github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/launch"
	"github.com/svcplatform/svc/internal/sponsor"
	"github.com/svcplatform/svc/internal/sweep"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// The FeesManager's binding.
var feesABI = evmlaunch.NewFeesManager()

// Start starts claim c's workflow feeclaim/<id> (one started before is fine), with its wallet
// transaction's approval when its policy asked for one.
func Start(ctx context.Context, e wallet.Engine, db bun.IDB, c *schema.FeeClaim) error {
	t := new(schema.WalletTransaction)
	if err := db.NewSelect().Model(t).Where("id = ?", c.TransactionID).Scan(ctx); err != nil {
		return fmt.Errorf("read the wallet transaction of %s: %w", c.ID, err)
	}
	p := workflows.FeeClaimParams{ClaimID: c.ID, TransactionID: c.TransactionID}
	var err error
	if p.ApprovalID, p.ApprovalExpiresAt, err = launch.ApprovalOf(ctx, db, e, t); err != nil {
		return err
	}
	return wallet.StartOnce(ctx, e, sdkclient.StartWorkflowOptions{ID: workflows.FeeClaimWorkflowID(c.ID),
		TypedSearchAttributes: workflows.ResourceAttributes(c.AccountID, c.ProjectID, client.ServiceManagedWallets, client.OpFeeClaimsCreate),
		StaticSummary:         "claim the fees of " + c.TokenAddress + " (" + c.ID + ") from " + c.WalletID}, "fee claim", workflows.FeeClaimWorkflowName, p)
}

// Sweep starts the workflows of claims still claiming after settle whose request died between recording
// them and starting their workflow (recorded in the last day, at most limit); it answers how many it
// handed on. A claim whose workflow runs or ran is left as it is.
func Sweep(ctx context.Context, db *bun.DB, e wallet.Engine, settle time.Duration, limit int) (int, error) {
	return sweep.Stale(ctx, db, sweep.Query{What: "fee claims", Statuses: []string{schema.FeeClaimClaiming}, Settle: settle, Limit: limit}, func(ctx context.Context, c *schema.FeeClaim) (bool, error) {
		if !sweep.Recorded(ctx, db, (*schema.WalletTransaction)(nil), c.TransactionID) {
			return false, nil // its send was never recorded: a retry of the request records it
		}
		return true, Start(ctx, e, db, c)
	})
}

// Worker does the work of the claim workflow's activities.
type Worker struct {
	DB      *bun.DB
	RPC     *ethclient.Client
	Sponsor *sponsor.Sponsor
	// FeesManager is the contract whose Release event the claim's receipt carries.
	FeesManager common.Address
}

// errNotEnded is a claim whose wallet transaction has not ended yet (the activity is retried).
var errNotEnded = errors.New("the fee claim's wallet transaction has not ended yet")

// SponsorGas tops the claim's wallet up with its transaction's gas (once). A transaction the chain
// refuses already is not sponsored: its send fails and says why.
func (w *Worker) SponsorGas(ctx context.Context, claimID string, beat func()) (workflows.LaunchSponsored, error) {
	if w.Sponsor == nil || w.Sponsor.Key == nil || w.RPC == nil {
		return workflows.LaunchSponsored{}, sponsor.ErrNoSponsor
	}
	c, err := load(ctx, w.DB, claimID)
	if err != nil {
		return workflows.LaunchSponsored{}, err
	}
	hash, err := w.Sponsor.Fund(ctx, c.TransactionID, beat)
	if r, ok := sponsor.AsRefused(err); ok {
		return workflows.LaunchSponsored{Skipped: r.Error()}, nil
	}
	return workflows.LaunchSponsored{Hash: hash}, err
}

// Finish records the claim's end once its wallet transaction has ended: claimed with the receipt's
// Release amounts, or failed with the send's reason.
func (w *Worker) Finish(ctx context.Context, claimID string) error {
	c, err := load(ctx, w.DB, claimID)
	if err != nil || c.Status != schema.FeeClaimClaiming {
		return err
	}
	t := new(schema.WalletTransaction)
	if err := w.DB.NewSelect().Model(t).Where("id = ?", c.TransactionID).Scan(ctx); err != nil {
		return fmt.Errorf("read the wallet transaction of %s: %w", claimID, err)
	}
	switch t.Status {
	case schema.WalletTxConfirmed:
		return w.claimed(ctx, c, t)
	case schema.WalletTxFailed, schema.WalletTxRejected:
		return w.failed(ctx, c, t.TxHash, derefOr(t.ErrorCode, t.Status), derefOr(t.ErrorMessage, "the claim transaction "+t.Status))
	}
	return errNotEnded
}

// claimed reads the Release event of the confirmed transaction and records the claim claimed.
func (w *Worker) claimed(ctx context.Context, c *schema.FeeClaim, t *schema.WalletTransaction) error {
	if w.RPC == nil || t.TxHash == nil {
		return sponsor.ErrNoSponsor
	}
	r, err := w.RPC.TransactionReceipt(ctx, common.HexToHash(*t.TxHash))
	if err != nil {
		return fmt.Errorf("read the receipt of %s: %w", *t.TxHash, err)
	}
	a0, a1 := "0", "0" // a claim with nothing to release emits no Release
	for _, lg := range r.Logs {
		if lg.Address != w.FeesManager {
			continue
		}
		ev, err := feesABI.UnpackReleaseEvent(lg)
		if err != nil || common.Hash(ev.PoolId).Hex() != c.PoolID || ev.Beneficiary != common.HexToAddress(c.WalletAddress) {
			continue
		}
		a0, a1 = ev.Amount0.String(), ev.Amount1.String()
	}
	block, gas := r.BlockNumber.Int64(), int64(r.GasUsed) //nolint:gosec // block numbers and gas fit in int64
	_, err = w.DB.NewUpdate().Model((*schema.FeeClaim)(nil)).
		Set("status = ?, tx_hash = ?, block_number = ?, gas_used = ?, amount0 = ?, amount1 = ?, claimed_at = ?, updated_at = now()",
			schema.FeeClaimClaimed, *t.TxHash, block, gas, a0, a1, time.Now().UTC()).
		Where("id = ? AND status = ?", c.ID, schema.FeeClaimClaiming).Exec(ctx)
	return wrap(err, "record fee claim "+c.ID+" claimed")
}

func (w *Worker) failed(ctx context.Context, c *schema.FeeClaim, hash *string, code, msg string) error {
	_, err := w.DB.NewUpdate().Model((*schema.FeeClaim)(nil)).
		Set("status = ?, tx_hash = ?, error_code = ?, error_message = ?, updated_at = now()", schema.FeeClaimFailed, hash, code, msg).
		Where("id = ? AND status = ?", c.ID, schema.FeeClaimClaiming).Exec(ctx)
	return wrap(err, "record fee claim "+c.ID+" failed")
}

func derefOr(s *string, or string) string {
	if s == nil || *s == "" {
		return or
	}
	return *s
}

// ToWire is the claim as its account sees it: seed 002's claim receipt and the claim's record.
func ToWire(c *schema.FeeClaim) client.FeeClaim {
	chainID, _ := strconv.ParseInt(strings.TrimPrefix(c.Chain, "eip155:"), 10, 64)
	out := client.FeeClaim{FeeClaimReceipt: client.FeeClaimReceipt{TransactionHash: derefOr(c.TxHash, ""), Status: c.Status,
		Signer: c.WalletAddress, ChainID: chainID, Description: fmt.Sprintf("Claim the fees of %s (pool %s) to %s", c.TokenAddress, c.PoolID, c.WalletAddress),
		BlockNumber: c.BlockNumber, GasUsed: c.GasUsed},
		ID: c.ID, WalletID: c.WalletID, TokenAddress: c.TokenAddress, PoolID: c.PoolID, TransactionID: c.TransactionID,
		Amount0: derefOr(c.Amount0, ""), Amount1: derefOr(c.Amount1, ""), WorkflowID: workflows.FeeClaimWorkflowID(c.ID), CreatedAt: c.CreatedAt.UnixMilli(),
		ApprovalID: c.ApprovalID}
	if c.ErrorCode != nil {
		out.Error = &client.RunError{Code: *c.ErrorCode, Message: derefOr(c.ErrorMessage, "")}
	}
	if c.ClaimedAt != nil {
		ms := c.ClaimedAt.UnixMilli()
		out.ClaimedAt = &ms
	}
	return out
}
