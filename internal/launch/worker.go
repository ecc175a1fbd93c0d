package launch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/sponsor"
	"github.com/svcplatform/svc/internal/sweep"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Start starts launch l's workflow launch/<id>; one started before is fine.
func Start(ctx context.Context, e wallet.Engine, l *schema.TokenLaunch, p workflows.LaunchParams) error {
	return wallet.StartOnce(ctx, e, sdkclient.StartWorkflowOptions{ID: workflows.LaunchWorkflowID(l.ID),
		TypedSearchAttributes: workflows.ResourceAttributes(l.AccountID, l.ProjectID, client.ServiceManagedWallets, client.OpTokenLaunchesDeploy),
		StaticSummary:         "launch " + l.TokenSymbol + " (" + l.ID + ") from " + l.WalletID}, "launch", workflows.LaunchWorkflowName, p)
}

// Sweep starts the workflows of launches still deploying after settle (their request died between
// recording them and starting their workflow), recorded in the last day, at most limit of them; it
// answers how many it handed on. A launch whose workflow runs or ran is left as it is.
func Sweep(ctx context.Context, db *bun.DB, e wallet.Engine, settle time.Duration, limit int) (int, error) {
	return sweep.Stale(ctx, db, sweep.Query{What: "launches", Statuses: []string{schema.LaunchDeploying}, Settle: settle, Limit: limit}, func(ctx context.Context, l *schema.TokenLaunch) (bool, error) {
		t := new(schema.WalletTransaction)
		if err := db.NewSelect().Model(t).Where("id = ?", l.TransactionID).Scan(ctx); err != nil {
			return false, nil // its send was never recorded: a retry of the request records it
		}
		p, err := paramsOf(ctx, db, e, l, t)
		if err != nil {
			return false, err
		}
		return true, Start(ctx, e, l, p)
	})
}

// paramsOf are the launch workflow's parameters for launch l with wallet transaction t: when the wallet's
// policy asked for an approval, its workflow is started (one started before is fine) and its id and
// expiry passed on to wallettx/<id>, as wallet sends do.
func paramsOf(ctx context.Context, db bun.IDB, e wallet.Engine, l *schema.TokenLaunch, t *schema.WalletTransaction) (workflows.LaunchParams, error) {
	p := workflows.LaunchParams{LaunchID: l.ID, TransactionID: t.ID}
	var err error
	p.ApprovalID, p.ApprovalExpiresAt, err = ApprovalOf(ctx, db, e, t)
	return p, err
}

// ApprovalOf is wallet transaction t's approval, when its wallet's policy asked for one: its workflow is
// started (one started before is fine) and its id and expiry answered for wallettx/<id>, as wallet sends
// do. Without one it answers "".
func ApprovalOf(ctx context.Context, db bun.IDB, e wallet.Engine, t *schema.WalletTransaction) (string, time.Time, error) {
	if t.ApprovalID == nil {
		return "", time.Time{}, nil
	}
	a, err := approval.NewStore(db).ByID(ctx, *t.ApprovalID)
	if err != nil {
		return "", time.Time{}, err
	}
	if err := approval.Start(ctx, e, a); err != nil {
		return "", time.Time{}, err
	}
	return a.ID, a.ExpiresAt, nil
}

// Worker does the work of the launch workflow's activities.
type Worker struct {
	DB          *bun.DB
	RPC         *ethclient.Client
	Sponsor     *sponsor.Sponsor
	FeesManager common.Address
}

// errNotEnded is a launch whose wallet transaction has not ended yet (the activity is retried).
var errNotEnded = errors.New("the launch's wallet transaction has not ended yet")

// SponsorGas tops the launch's wallet up with its transaction's gas (once) and records the top-up's
// hash on the launch. A transaction the chain refuses already (the wallet lacks the seed liquidity) is
// not sponsored: its send fails and says why.
func (w *Worker) SponsorGas(ctx context.Context, launchID string, beat func()) (workflows.LaunchSponsored, error) {
	if w.Sponsor == nil || w.Sponsor.Key == nil || w.RPC == nil {
		return workflows.LaunchSponsored{}, sponsor.ErrNoSponsor
	}
	l, err := w.load(ctx, launchID)
	if err != nil {
		return workflows.LaunchSponsored{}, err
	}
	hash, err := w.Sponsor.Fund(ctx, l.TransactionID, beat)
	if r, ok := sponsor.AsRefused(err); ok {
		return workflows.LaunchSponsored{Skipped: r.Error()}, nil
	}
	if err != nil || hash == "" {
		return workflows.LaunchSponsored{Hash: hash}, err
	}
	_, err = w.DB.NewUpdate().Model((*schema.TokenLaunch)(nil)).Set("sponsor_tx_hash = ?, updated_at = now()", hash).Where("id = ?", launchID).Exec(ctx)
	return workflows.LaunchSponsored{Hash: hash}, wrap(err, "record the gas top-up of "+launchID)
}

// PrepareGas signs and stores the launch's gas top-up without sending it (a test fault's first half).
func (w *Worker) PrepareGas(ctx context.Context, launchID string) error {
	if w.Sponsor == nil || w.Sponsor.Key == nil {
		return sponsor.ErrNoSponsor
	}
	l, err := w.load(ctx, launchID)
	if err != nil {
		return err
	}
	_, err = w.Sponsor.Prepare(ctx, l.TransactionID)
	return err
}

// ApprovalOutcome reads approval id's outcome: its final status, or "" while it is pending.
func (w *Worker) ApprovalOutcome(ctx context.Context, id string) (workflows.ApprovalOutcome, error) {
	a, err := approval.NewStore(w.DB).ByID(ctx, id)
	if err != nil {
		return workflows.ApprovalOutcome{}, err
	}
	if a.Status == client.ApprovalPending {
		return workflows.ApprovalOutcome{ApprovalID: id}, nil
	}
	return workflows.ApprovalOutcome{ApprovalID: id, Status: a.Status}, nil
}

// Finish records the launch's end once its wallet transaction has ended: deployed with the receipt's
// Launch event, or failed with the send's reason.
func (w *Worker) Finish(ctx context.Context, launchID string) error {
	l, err := w.load(ctx, launchID)
	if err != nil || l.Status != schema.LaunchDeploying {
		return err
	}
	t := new(schema.WalletTransaction)
	if err := w.DB.NewSelect().Model(t).Where("id = ?", l.TransactionID).Scan(ctx); err != nil {
		return fmt.Errorf("read the wallet transaction of %s: %w", launchID, err)
	}
	switch t.Status {
	case schema.WalletTxConfirmed:
		return w.deployed(ctx, l, t)
	case schema.WalletTxFailed, schema.WalletTxRejected:
		code, msg := derefOr(t.ErrorCode, t.Status), derefOr(t.ErrorMessage, "the launch transaction "+t.Status)
		return w.failed(ctx, l, t.TxHash, code, msg)
	}
	return errNotEnded
}

// deployed reads the Launch event of the confirmed transaction and records the launch deployed.
func (w *Worker) deployed(ctx context.Context, l *schema.TokenLaunch, t *schema.WalletTransaction) error {
	if w.RPC == nil || t.TxHash == nil {
		return sponsor.ErrNoSponsor
	}
	r, err := w.RPC.TransactionReceipt(ctx, common.HexToHash(*t.TxHash))
	if err != nil {
		return fmt.Errorf("read the receipt of %s: %w", *t.TxHash, err)
	}
	fm := launch.NewFeesManager()
	for _, lg := range r.Logs {
		if lg.Address != w.FeesManager {
			continue
		}
		ev, err := fm.UnpackLaunchEvent(lg)
		if err != nil || common.Hash(ev.Salt).Hex() != l.Salt {
			continue
		}
		token, pool, poolID, init := ev.Token.Hex(), ev.Pool.Hex(), common.Hash(ev.PoolId).Hex(), w.FeesManager.Hex()
		_, err = w.DB.NewUpdate().Model((*schema.TokenLaunch)(nil)).
			Set("status = ?, token_address = ?, pool_address = ?, pool_id = ?, initializer = ?, tx_hash = ?, deployed_at = ?, updated_at = now()",
				schema.LaunchDeployed, token, pool, poolID, init, *t.TxHash, time.Now().UTC()).
			Where("id = ? AND status = ?", l.ID, schema.LaunchDeploying).Exec(ctx)
		return wrap(err, "record launch "+l.ID+" deployed")
	}
	return w.failed(ctx, l, t.TxHash, "no_launch_event", "the launch transaction confirmed without a Launch event of the fee manager")
}

func (w *Worker) failed(ctx context.Context, l *schema.TokenLaunch, hash *string, code, msg string) error {
	_, err := w.DB.NewUpdate().Model((*schema.TokenLaunch)(nil)).
		// The predicted token, pool id and initializer go: nothing was deployed there.
		Set("status = ?, tx_hash = ?, error_code = ?, error_message = ?, token_address = NULL, pool_id = NULL, initializer = NULL, updated_at = now()",
			schema.LaunchFailed, hash, code, msg).
		Where("id = ? AND status = ?", l.ID, schema.LaunchDeploying).Exec(ctx)
	return wrap(err, "record launch "+l.ID+" failed")
}

func (w *Worker) load(ctx context.Context, id string) (*schema.TokenLaunch, error) {
	l := new(schema.TokenLaunch)
	if err := w.DB.NewSelect().Model(l).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read launch %s: %w", id, err)
	}
	return l, nil
}

func derefOr(s *string, or string) string {
	if s == nil || *s == "" {
		return or
	}
	return *s
}

// ToWire is the launch as its account sees it.
func ToWire(l *schema.TokenLaunch) client.TokenLaunch {
	out := client.TokenLaunch{ID: l.ID, Status: l.Status, TokenName: l.TokenName, TokenSymbol: l.TokenSymbol, Chain: l.Chain,
		FeeRecipient: client.FeeRecipient{Type: l.FeeRecipientType, Value: l.FeeRecipientValue}, FeeAddress: l.FeeRecipientAddress,
		Deployer: client.LaunchAddress{WalletAddress: l.DeployerAddress}, WalletID: l.WalletID, TransactionID: l.TransactionID,
		TokenAddress: derefOr(l.TokenAddress, ""), PoolAddress: derefOr(l.PoolAddress, ""), PoolID: derefOr(l.PoolID, ""),
		Initializer: derefOr(l.Initializer, ""), TransactionHash: derefOr(l.TxHash, ""), SponsorTxHash: derefOr(l.SponsorTxHash, ""),
		WorkflowID: workflows.LaunchWorkflowID(l.ID), CreatedAt: l.CreatedAt.UnixMilli(), LaunchMetadata: metadataOf(l)}
	if l.ErrorCode != nil {
		out.Error = &client.RunError{Code: *l.ErrorCode, Message: derefOr(l.ErrorMessage, "")}
	}
	if l.DeployedAt != nil {
		ms := l.DeployedAt.UnixMilli()
		out.DeployedAt = &ms
	}
	return out
}

// RecordOf is the launch as seed 002's launch record (GET /token-launches).
func RecordOf(l *schema.TokenLaunch) client.LaunchRecord {
	return client.LaunchRecord{ActivityID: l.ID, Status: l.Status, TokenName: l.TokenName, TokenSymbol: l.TokenSymbol, Chain: l.Chain,
		TokenAddress: derefOr(l.TokenAddress, ""), Deployer: client.LaunchAddress{WalletAddress: l.DeployerAddress},
		FeeRecipient: client.LaunchAddress{WalletAddress: l.FeeRecipientAddress}, Timestamp: l.CreatedAt.UnixMilli(), LaunchMetadata: metadataOf(l)}
}
