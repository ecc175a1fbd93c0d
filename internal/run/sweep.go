package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// LostAfter is how old a run whose workflow was never started may be for a sweep still to start it; an
// older one is failed with run_lost instead, since whoever asked for it has long been told it failed.
const LostAfter = 15 * time.Minute

// SweepBatch bounds how many runs one sweep looks at.
const SweepBatch = 100

// SweepStarts reconciles the runs a dying request may have left unstarted: each queued or
// awaiting_approval run created more than StartGrace ago and not looked at before. It asks Temporal about
// the run's workflow and
//   - completes the start when Temporal does not know it (the same workflow id, so at most one workflow
//     ever runs), or, for a run older than LostAfter, starts it only to record it failed with run_lost;
//   - completes the start of a waiting run's approval workflow when the run's own is running;
//   - records the run failed with run_lost when its workflow closed without recording an outcome.
//
// A run whose question or start fails is left for the next sweep. Several API processes may sweep at
// once: starts are idempotent, and failing goes through the workflow or a conditional update. It returns
// how many runs it settled.
func (s *Service) SweepStarts(ctx context.Context) (int, error) {
	var rows []schema.Run
	err := s.store.db.NewSelect().Model(&rows).
		Where("status IN (?)", bun.List([]string{client.RunQueued, client.RunAwaitingApproval})).
		Where("start_checked_at IS NULL").
		Where("created_at < now() - make_interval(secs => ?)", StartGrace.Seconds()).
		Order("created_at").Limit(SweepBatch).Scan(ctx)
	if err != nil {
		return 0, fmt.Errorf("list unstarted runs: %w", err)
	}
	var errs []error
	done := 0
	for i := range rows {
		if err := s.sweepOne(ctx, &rows[i]); err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", rows[i].ID, err))
			continue
		}
		done++
	}
	return done, errors.Join(errs...)
}

// sweepOne reconciles one unstarted run and stamps it looked at.
func (s *Service) sweepOne(ctx context.Context, r *schema.Run) error {
	apr, err := s.approvalOf(ctx, r)
	if err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	desc, err := s.temporal.DescribeWorkflowExecution(dctx, r.WorkflowID, "")
	cancel()
	var notFound *serviceerror.NotFound
	switch {
	case errors.As(err, &notFound) && time.Since(r.CreatedAt) >= LostAfter:
		err = s.startWorkflow(ctx, r, apr, fmt.Sprintf(
			"the request that created the run ended before starting it, and it was not started within %s", LostAfter))
	case errors.As(err, &notFound):
		err = s.startAll(ctx, r, apr)
	case err != nil:
		err = fmt.Errorf("describe workflow %s: %w", r.WorkflowID, err)
	case desc.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
		if apr != nil {
			err = approval.Start(ctx, s.temporal, apr)
		}
	default: // closed without recording an outcome (terminated, say): nothing else will ever finish it
		err = s.store.Finish(ctx, workflows.RunOutcome{RunID: r.ID, Status: client.RunFailed, ErrorCode: workflows.CodeRunLost,
			ErrorMessage: "the run's workflow ended without recording an outcome"})
	}
	if err != nil {
		return err
	}
	_, err = s.store.db.NewUpdate().Model((*schema.Run)(nil)).Set("start_checked_at = now()").Where("id = ?", r.ID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("stamp run %s looked at: %w", r.ID, err)
	}
	return nil
}

// approvalOf is the approval a run waits for, or nil.
func (s *Service) approvalOf(ctx context.Context, r *schema.Run) (*schema.Approval, error) {
	if r.ApprovalID == nil || r.Status != client.RunAwaitingApproval {
		return nil, nil
	}
	return approval.NewStore(s.store.db).ByID(ctx, *r.ApprovalID)
}
