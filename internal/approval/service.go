package approval

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	svctemporal "github.com/svcplatform/svc/temporal"
	"github.com/svcplatform/svc/workflows"
)

// Engine is the part of the Temporal client approvals need (sdkclient.Client has it).
type Engine interface {
	ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
	SignalWithStartWorkflow(ctx context.Context, workflowID, signalName string, signalArg any,
		opts sdkclient.StartWorkflowOptions, workflow any, workflowArgs ...any) (sdkclient.WorkflowRun, error)
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Service makes decisions and starts approval workflows.
type Service struct {
	db       *bun.DB
	store    *Store
	temporal Engine
}

// NewService returns a Service.
func NewService(db *bun.DB, engine Engine) *Service {
	return &Service{db: db, store: NewStore(db), temporal: engine}
}

// Store returns the service's store.
func (s *Service) Store() *Store { return s.store }

// Create stores a service-action approval with its approval.requested event and starts its workflow.
// Creating the same id again (a retried request) answers the stored approval and starts nothing new.
func (s *Service) Create(ctx context.Context, a *schema.Approval) (*schema.Approval, error) {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := Insert(ctx, tx, a); err != nil {
			return err
		}
		return tx.NewSelect().Model(a).WherePK().Scan(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("create approval: %w", err)
	}
	if err := Start(ctx, s.temporal, a); err != nil {
		return nil, err
	}
	return a, nil
}

// Decide records a decision and delivers it to the approval's workflow in one step: the row is
// updated, the decision is signalled (starting the workflow if it is somehow missing), and only then does
// the update commit. A signal is durable in Temporal even while no worker runs; if it cannot be sent,
// nothing is recorded and the caller may retry.
func (s *Service) Decide(ctx context.Context, scope tenant.Scope, id string, d Decision) (*schema.Approval, error) {
	var out *schema.Approval
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		a, err := Decide(ctx, tx, scope, id, d)
		if err != nil {
			return err
		}
		signal := workflows.ApprovalDecision{Status: d.Status, KeyID: d.KeyID, Comment: d.Comment}
		pending := *a
		pending.Status = "pending"
		_, err = s.temporal.SignalWithStartWorkflow(ctx, a.WorkflowID, workflows.SignalApprovalDecision, signal,
			StartOptions(&pending), workflows.ApprovalWorkflowName, Params(a))
		if err != nil {
			return svcerr.New(svcerr.Unavailable, "the workflow engine did not take the decision; nothing was recorded, retry with the same Idempotency-Key")
		}
		out = a
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.tellRun(ctx, out)
	return out, nil
}

// tellRun passes a committed decision straight to the run (or wallet send or signature) it gates, so that workflow
// resumes without waiting for the approval's workflow to relay it. The relay still comes (the gated
// workflow receives both before it closes), so a lost signal here only costs time.
func (s *Service) tellRun(ctx context.Context, a *schema.Approval) {
	gated := GatedWorkflowID(a)
	if gated == "" {
		return
	}
	outcome := workflows.ApprovalOutcome{ApprovalID: a.ID, Status: a.Status}
	_ = s.temporal.SignalWorkflow(context.WithoutCancel(ctx), gated, "", workflows.SignalApprovalOutcome, outcome)
}

// GatedWorkflowID is the workflow that waits for a's outcome: its run's, its wallet send's or its wallet
// signature's; "" for a service action.
func GatedWorkflowID(a *schema.Approval) string {
	switch {
	case a.Kind == KindRun && a.RunID != nil:
		return workflows.RunWorkflowID(*a.RunID)
	case a.Kind == KindWalletTransaction && a.TransactionID != nil:
		return workflows.WalletTxWorkflowID(*a.TransactionID)
	case a.Kind == KindWalletSignature && a.SignatureID != nil:
		return workflows.WalletSigWorkflowID(*a.SignatureID)
	case a.Kind == KindAgentStep && a.AgentJobID != nil:
		return workflows.AgentJobWorkflowID(*a.AgentJobID)
	}
	return ""
}

// Starter starts workflows (the part of Engine Start needs).
type Starter interface {
	ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
}

// Start starts the approval's workflow; starting it again finds the one already there.
func Start(ctx context.Context, engine Starter, a *schema.Approval) error {
	_, err := engine.ExecuteWorkflow(ctx, StartOptions(a), workflows.ApprovalWorkflowName, Params(a))
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err == nil || errors.As(err, &started) {
		return nil
	}
	return svcerr.New(svcerr.Unavailable, "the workflow engine did not accept the approval; retry with the same Idempotency-Key")
}

// StartOptions are the start options of an approval's workflow: its id, search attributes and memo.
func StartOptions(a *schema.Approval) sdkclient.StartWorkflowOptions {
	memo := map[string]any{"approvalId": a.ID, "serviceId": a.ServiceID, "operationId": a.OperationID, "status": a.Status}
	if a.RunID != nil {
		memo["runId"] = *a.RunID
	}
	if a.TransactionID != nil {
		memo["transactionId"] = *a.TransactionID
	}
	if a.SignatureID != nil {
		memo["signatureId"] = *a.SignatureID
	}
	return sdkclient.StartWorkflowOptions{
		ID:                       a.WorkflowID,
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		TypedSearchAttributes:    svctemporal.ResourceAttributes(a.AccountID, a.ProjectID, a.ServiceID, a.OperationID),
		Memo:                     memo,
		StaticSummary:            fmt.Sprintf("approval %s: %s.%s", a.ID, a.ServiceID, a.OperationID),
	}
}

// Params is the input of an approval's workflow.
func Params(a *schema.Approval) workflows.ApprovalParams {
	return workflows.ApprovalParams{ApprovalID: a.ID, Kind: a.Kind, ExpiresAt: a.ExpiresAt, RunWorkflowID: GatedWorkflowID(a)}
}
