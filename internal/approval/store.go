// Package approval keeps approvals: decisions a key with approvals:write makes before an action runs.
// Each approval is driven by a Temporal workflow approval/<id> (workflows.ApprovalWorkflow); its row here
// is where a decision is made exactly once, by a conditional update of a pending row, together with the
// approval.decided event.
package approval

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// Kinds of approvals.
const (
	KindRun           = "run"
	KindServiceAction = "service_action"
	// KindWalletTransaction gates a wallet send (approvals.transaction_id); its workflow wallettx/<id>
	// waits for the outcome.
	KindWalletTransaction = "wallet_transaction"
	// KindWalletSignature gates a wallet signature (approvals.signature_id); its workflow walletsig/<id>
	// waits for the outcome.
	KindWalletSignature = "wallet_signature"
	// KindAgentStep gates an agent job's money-moving or signing tool call (approvals.agent_job_id,
	// agent_step_id); its workflow agentjob/<id> waits for the outcome.
	KindAgentStep = "agent_step"
)

// Expiry bounds.
const (
	DefaultTTL = 24 * time.Hour
	MaxTTL     = 7 * 24 * time.Hour
)

// Store reads and writes approval rows.
type Store struct {
	db bun.IDB
}

// NewStore returns a Store on db.
func NewStore(db bun.IDB) *Store { return &Store{db: db} }

// Insert stores a new approval and its approval.requested event in db (the caller's transaction). A
// retried insert of the same id changes nothing.
func Insert(ctx context.Context, db bun.IDB, a *schema.Approval) error {
	res, err := db.NewInsert().Model(a).On("CONFLICT (id) DO NOTHING").Returning("created_at, updated_at").Exec(ctx)
	if err != nil {
		return fmt.Errorf("insert approval: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	return outbox.Emit(ctx, db, event(outbox.ApprovalRequested, a))
}

func event(typ string, a *schema.Approval) outbox.Event {
	return outbox.Event{AccountID: a.AccountID, ProjectID: a.ProjectID, Type: typ, Subject: a.ID, Data: ToWire(a)}
}

// Get returns the approval with the id in the scope, or not_found.
func (s *Store) Get(ctx context.Context, scope tenant.Scope, id string) (*schema.Approval, error) {
	a := new(schema.Approval)
	err := scope.Where(s.db.NewSelect().Model(a)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("no approval %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("load approval: %w", err)
	}
	return a, nil
}

// ByID returns the approval with the id in any scope (for the worker, which acts for the workflow).
func (s *Store) ByID(ctx context.Context, id string) (*schema.Approval, error) {
	a := new(schema.Approval)
	err := s.db.NewSelect().Model(a).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("approval %s: %w", id, ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("load approval %s: %w", id, err)
	}
	return a, nil
}

// ErrMissing means the approval's row is not in this database.
var ErrMissing = errors.New("approval row not found in this database")

// Filter narrows List.
type Filter struct {
	Status    string
	ServiceID string
	RunID     string
	// Services, when not nil, lists the only services whose approvals the caller may see.
	Services []string
}

// List returns the scope's approvals matching f, newest first, and the cursor of the next page.
func (s *Store) List(ctx context.Context, scope tenant.Scope, f Filter, p page.Params) ([]*schema.Approval, *string, error) {
	var rows []*schema.Approval
	q := scope.Where(s.db.NewSelect().Model(&rows)).OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1))
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.ServiceID != "" {
		q = q.Where("service_id = ?", f.ServiceID)
	}
	if f.RunID != "" {
		q = q.Where("run_id = ?", f.RunID)
	}
	if f.Services != nil {
		q = q.Where("service_id IN (?)", bun.List(append(f.Services, "")))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list approvals: %w", err)
	}
	rows, next := page.Next(p, rows, func(a *schema.Approval) page.Cursor { return page.Cursor{CreatedAt: a.CreatedAt, ID: a.ID} })
	return rows, next, nil
}

// Decision is an approver's answer.
type Decision struct {
	// Status is client.ApprovalApproved or client.ApprovalRejected.
	Status  string
	KeyID   string
	Comment string
}

// Decide records a decision on a pending, unexpired approval in db (the caller's transaction, which
// should deliver the decision to the workflow before it commits), with its approval.decided event. The
// row stays locked until db commits, so a concurrent decision waits and then finds it decided. A decided
// or expired approval answers conflict; one outside the scope, not_found.
func Decide(ctx context.Context, db bun.IDB, scope tenant.Scope, id string, d Decision) (*schema.Approval, error) {
	a := new(schema.Approval)
	q := db.NewUpdate().Model(a).
		Set("status = ?", d.Status).Set("decided_by_key_id = ?", d.KeyID).Set("comment = ?", nullable(d.Comment)).
		Set("decided_at = now()").Set("updated_at = now()").
		Where("id = ? AND account_id = ?", id, scope.AccountID).Where("status = ?", client.ApprovalPending).
		Where("expires_at > now()")
	q = scopeProject(q, scope)
	err := q.Returning("*").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, whyNotPending(ctx, db, scope, id)
	}
	if err != nil {
		return nil, fmt.Errorf("decide approval: %w", err)
	}
	if err := outbox.Emit(ctx, db, event(outbox.ApprovalDecided, a)); err != nil {
		return nil, err
	}
	return a, nil
}

func scopeProject(q *bun.UpdateQuery, scope tenant.Scope) *bun.UpdateQuery {
	if scope.ProjectID == nil {
		return q.Where("project_id IS NULL")
	}
	return q.Where("project_id = ?", *scope.ProjectID)
}

// whyNotPending words the refusal of a decision: not_found, or conflict naming the status.
func whyNotPending(ctx context.Context, db bun.IDB, scope tenant.Scope, id string) error {
	a := new(schema.Approval)
	err := scope.Where(db.NewSelect().Model(a)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return svcerr.NotFoundf("no approval %q", id)
	}
	if err != nil {
		return fmt.Errorf("load approval: %w", err)
	}
	status := a.Status
	if status == client.ApprovalPending { // pending but past its expiry: the workflow is about to expire it
		status = client.ApprovalExpired
	}
	return &svcerr.Error{Code: svcerr.Conflict, Param: "approvalId",
		Message: fmt.Sprintf("approval %s is already %s", id, status), Details: map[string]any{"status": status}}
}

// Settle makes the workflow's view final in the row: it records d when the approval is still pending
// (the API's own write did not commit), or expires it when d is nil, and returns the approval as it then
// is. Whatever committed first wins: a decision made just before the expiry timer fired stands.
func (s *Store) Settle(ctx context.Context, id string, d *Decision) (*schema.Approval, error) {
	var out *schema.Approval
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		a := new(schema.Approval)
		q := tx.NewUpdate().Model(a).Set("updated_at = now()").Where("id = ? AND status = ?", id, client.ApprovalPending)
		typ := outbox.ApprovalExpired
		if d == nil {
			q = q.Set("status = ?", client.ApprovalExpired)
		} else {
			typ = outbox.ApprovalDecided
			q = q.Set("status = ?", d.Status).Set("decided_by_key_id = ?", d.KeyID).
				Set("comment = ?", nullable(d.Comment)).Set("decided_at = now()")
		}
		err := q.Returning("*").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			out, err = (&Store{db: tx}).ByID(ctx, id)
			return err
		}
		if err != nil {
			return fmt.Errorf("settle approval %s: %w", id, err)
		}
		out = a
		return outbox.Emit(ctx, tx, event(typ, a))
	})
	return out, err
}

// Cancel marks a pending approval cancelled (its run was cancelled) and returns it as it then is.
func (s *Store) Cancel(ctx context.Context, id string) (*schema.Approval, error) {
	_, err := s.db.NewUpdate().Model((*schema.Approval)(nil)).Set("status = ?", client.ApprovalCancelled).
		Set("updated_at = now()").Where("id = ? AND status = ?", id, client.ApprovalPending).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("cancel approval %s: %w", id, err)
	}
	return s.ByID(ctx, id)
}

// SetRun records the run an approved service action started.
func (s *Store) SetRun(ctx context.Context, db bun.IDB, id, runID string) error {
	_, err := db.NewUpdate().Model((*schema.Approval)(nil)).Set("run_id = ?", runID).Set("updated_at = now()").
		Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record the run of approval %s: %w", id, err)
	}
	return nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ToWire converts a row to the API's shape.
func ToWire(a *schema.Approval) client.Approval {
	out := client.Approval{
		ID: a.ID, Kind: a.Kind, Status: a.Status, ServiceID: a.ServiceID, OperationID: a.OperationID,
		Input: map[string]any{}, Reason: a.Reason, RunID: a.RunID, RequestedBy: a.KeyID, DecidedBy: a.DecidedByKeyID,
		Comment: a.Comment, ExpiresAt: a.ExpiresAt.UTC(), CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(),
		TransactionID: a.TransactionID, SignatureID: a.SignatureID,
	}
	_ = json.Unmarshal(a.Input, &out.Input)
	if a.DecidedAt != nil {
		t := a.DecidedAt.UTC()
		out.DecidedAt = &t
	}
	return out
}
