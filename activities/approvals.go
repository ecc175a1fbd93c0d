package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/workflows"
)

// Approvals keeps approval rows in step with their workflows and starts approved service actions.
type Approvals struct {
	Store *approval.Store
	// Runs starts the run of an approved service action; nil where no Temporal client is at hand.
	Runs *run.Service
}

// SettleApproval makes the row final with the decision the workflow received, or expires it when
// decision is nil, and returns the approval's outcome as the row then records it.
func (a *Approvals) SettleApproval(ctx context.Context, approvalID string, decision *workflows.ApprovalDecision) (workflows.ApprovalOutcome, error) {
	var d *approval.Decision
	if decision != nil {
		d = &approval.Decision{Status: decision.Status, KeyID: decision.KeyID, Comment: decision.Comment}
	}
	row, err := a.Store.Settle(ctx, approvalID, d)
	if err != nil {
		return workflows.ApprovalOutcome{}, classifyApproval(err)
	}
	return outcomeOf(row.ID, row.Status, row.RunID), nil
}

// CancelApproval marks a pending approval cancelled and returns its outcome.
func (a *Approvals) CancelApproval(ctx context.Context, approvalID string) (workflows.ApprovalOutcome, error) {
	row, err := a.Store.Cancel(ctx, approvalID)
	if err != nil {
		return workflows.ApprovalOutcome{}, classifyApproval(err)
	}
	return outcomeOf(row.ID, row.Status, row.RunID), nil
}

// StartApprovedRun creates and starts the run of an approved service action and returns its id.
func (a *Approvals) StartApprovedRun(ctx context.Context, approvalID string) (string, error) {
	row, err := a.Store.ByID(ctx, approvalID)
	if err != nil {
		return "", classifyApproval(err)
	}
	if a.Runs == nil {
		return "", temporal.NewNonRetryableApplicationError("this worker cannot start runs", "NoRunService", nil)
	}
	return a.Runs.CreateFromApproval(ctx, row)
}

func outcomeOf(id, status string, runID *string) workflows.ApprovalOutcome {
	o := workflows.ApprovalOutcome{ApprovalID: id, Status: status}
	if runID != nil {
		o.RunID = *runID
	}
	return o
}

// classifyApproval makes a missing approval row final, as classify does for runs.
func classifyApproval(err error) error {
	if errors.Is(err, approval.ErrMissing) {
		return temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrorTypeRunMissing, err)
	}
	return err
}
