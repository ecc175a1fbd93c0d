package wallet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Engine starts workflows (the Temporal client).
type Engine interface {
	ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
}

// Starts hands recorded sends to their workflows, from the request and from a sweep that catches a
// start a dying request left undone.
type Starts struct {
	Store  *Store
	Engine Engine
}

// Start starts transaction t's workflow wallettx/<id> (and, for a send that waits for an approval, the
// approval's workflow first); one started before is fine.
func (s *Starts) Start(ctx context.Context, t *schema.WalletTransaction) error {
	params := workflows.WalletTxParams{TransactionID: t.ID}
	if t.ApprovalID != nil {
		a, err := approval.NewStore(s.Store.db).ByID(ctx, *t.ApprovalID)
		if err != nil {
			return err
		}
		if err := approval.Start(ctx, s.Engine, a); err != nil {
			return err
		}
		params.ApprovalID, params.ApprovalExpiresAt = a.ID, a.ExpiresAt
	}
	return StartOnce(ctx, s.Engine, sdkclient.StartWorkflowOptions{ID: workflows.WalletTxWorkflowID(t.ID),
		TypedSearchAttributes: workflows.ResourceAttributes(t.AccountID, t.ProjectID, client.ServiceManagedWallets, client.OpWalletsTransactionsCreate),
		StaticSummary:         "send " + t.ID + " from " + t.WalletID}, "send", workflows.WalletTxWorkflowName, params)
}

// StartOnce starts workflow name (on the platform's task queue, its id never reused) for a resource a
// request recorded, what naming it in the error: one started before is fine; any other failure is a 503
// asking for a retry with the same Idempotency-Key, which finds the recorded resource and starts it.
func StartOnce(ctx context.Context, e Engine, opts sdkclient.StartWorkflowOptions, what, name string, params any) error {
	opts.TaskQueue, opts.WorkflowIDReusePolicy = workflows.TaskQueue, enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
	_, err := e.ExecuteWorkflow(ctx, opts, name, params)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &started) {
		return svcerr.New(svcerr.Unavailable, "the %s is recorded but its workflow did not start; retry with the same Idempotency-Key", what)
	}
	return nil
}

// Sweep starts the workflows of sends still queued and unsigned after settle (their request died
// between recording them and starting their workflow), and of sends pending an approval recorded in the
// ten settle periods before that, at most limit of them; it answers how many it handed on. A send whose
// workflow runs is left as it is.
func (s *Starts) Sweep(ctx context.Context, settle time.Duration, limit int) (int, error) {
	var stale []schema.WalletTransaction
	before := time.Now().Add(-settle)
	// A token launch's, fee claim's or beneficiary transfer's transaction is its own workflow's to start
	// (after its gas is sponsored): their own sweeps hand them on. A trading order's approve and swap are
	// its order workflow's to start, in their order.
	err := s.Store.db.NewSelect().Model(&stale).Where("tx_hash IS NULL AND created_at < ?", before).
		Where("NOT EXISTS (SELECT 1 FROM token_launches l WHERE l.transaction_id = ?TableAlias.id)").
		Where("NOT EXISTS (SELECT 1 FROM fee_claims c WHERE c.transaction_id = ?TableAlias.id)").
		Where("NOT EXISTS (SELECT 1 FROM beneficiary_transfers b WHERE b.transaction_id = ?TableAlias.id)").
		Where("NOT EXISTS (SELECT 1 FROM trading_orders o WHERE ?TableAlias.id IN (o.swap_tx_id, o.approve_tx_id))").
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("status = ?", schema.WalletTxQueued).
				WhereOr("status = ? AND created_at > ?", schema.WalletTxPendingApproval, before.Add(-10*settle))
		}).OrderExpr("created_at").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return 0, fmt.Errorf("list unsigned sends: %w", err)
	}
	n := 0
	for i := range stale {
		if err := s.Start(ctx, &stale[i]); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
