package run

import (
	"context"
	"database/sql"
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

// SweepRetry is how long after an attempt a sweep may try again a run it could not settle (or one whose
// sweeping process died mid-attempt).
const SweepRetry = time.Minute

// SweepStarts reconciles the runs a dying request may have left unstarted: each queued or
// awaiting_approval run created more than StartGrace ago and not settled by a sweep before, first those
// never tried. It claims the run (see claim), asks Temporal about its workflow and
//   - completes the start when Temporal does not know it (the same workflow id, so at most one workflow
//     ever runs), or, for a run older than LostAfter, starts it only to record it failed with run_lost;
//   - completes the start of a waiting run's approval workflow when the run's own is running;
//   - records the run failed with run_lost when its workflow closed without recording an outcome.
//
// A run whose question or start fails is tried again SweepRetry later, behind the runs still to try; one
// still failing past LostAfter is recorded failed with run_lost. Several API processes may sweep at once:
// each run is claimed by one, starts are idempotent, and failing goes through the workflow or a
// conditional update. It returns how many runs it settled.
func (s *Service) SweepStarts(ctx context.Context) (int, error) {
	var rows []schema.Run
	err := s.store.db.NewSelect().Model(&rows).Column("id").
		Where("status IN (?)", bun.List([]string{client.RunQueued, client.RunAwaitingApproval})).
		Where("start_checked_at IS NULL").
		Where("created_at < now() - make_interval(secs => ?)", StartGrace.Seconds()).
		Where("start_retry_at IS NULL OR start_retry_at <= now()").
		OrderExpr("coalesce(start_retry_at, created_at)").Limit(SweepBatch).Scan(ctx)
	if err != nil {
		return 0, fmt.Errorf("list unstarted runs: %w", err)
	}
	var errs []error
	done := 0
	for _, r := range rows {
		settled, err := s.sweepOne(ctx, r.ID)
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", r.ID, err))
		}
		if settled {
			done++
		}
	}
	return done, errors.Join(errs...)
}

// sweepOne claims one unstarted run, reconciles it and stamps it settled. It reports whether it settled
// the run; a run another sweep claimed, or that ended meanwhile (cancelled, say), is passed by.
func (s *Service) sweepOne(ctx context.Context, id string) (bool, error) {
	r, err := s.claim(ctx, id)
	if err != nil || r == nil {
		return false, err
	}
	if err := s.reconcile(ctx, r); err != nil {
		if time.Since(r.CreatedAt) < LostAfter {
			return false, err // tried again after SweepRetry
		}
		// Still unsettled past LostAfter: fail the row itself. A workflow that exists after all finds the
		// row final when it would mark it running, and ends without performing.
		ferr := s.store.Finish(ctx, workflows.RunOutcome{RunID: r.ID, Status: client.RunFailed, ErrorCode: workflows.CodeRunLost,
			ErrorMessage: fmt.Sprintf("the request that created the run ended before starting it, and it could not be started within %s", LostAfter)})
		if ferr == nil && r.ApprovalID != nil {
			// Nobody can act on the approval of a run that failed.
			if _, cerr := approval.NewStore(s.store.db).Cancel(ctx, *r.ApprovalID); cerr != nil && !errors.Is(cerr, approval.ErrMissing) {
				ferr = cerr
			}
		}
		if ferr != nil {
			return false, errors.Join(err, ferr)
		}
	}
	_, err = s.store.db.NewUpdate().Model((*schema.Run)(nil)).Set("start_checked_at = now()").Where("id = ?", r.ID).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("stamp run %s looked at: %w", r.ID, err)
	}
	return true, nil
}

// claim takes the run for one sweep attempt: it records the attempt (start_retry_at, SweepRetry ahead)
// if the run is still unstarted and due, and returns the row as it is now, or nil when it is not (another
// sweep holds it, or it ended meanwhile: cancelled while no workflow existed, say).
func (s *Service) claim(ctx context.Context, id string) (*schema.Run, error) {
	r := new(schema.Run)
	err := s.store.db.NewUpdate().Model(r).
		Set("start_retry_at = now() + make_interval(secs => ?)", SweepRetry.Seconds()).
		Where("id = ?", id).
		Where("status IN (?)", bun.List([]string{client.RunQueued, client.RunAwaitingApproval})).
		Where("start_checked_at IS NULL").
		Where("start_retry_at IS NULL OR start_retry_at <= now()").
		Returning("*").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim run %s: %w", id, err)
	}
	return r, nil
}

// reconcile completes the start of one claimed run, or fails it (see SweepStarts).
func (s *Service) reconcile(ctx context.Context, r *schema.Run) error {
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
	return err
}

// approvalOf is the approval a run waits for, or nil.
func (s *Service) approvalOf(ctx context.Context, r *schema.Run) (*schema.Approval, error) {
	if r.ApprovalID == nil || r.Status != client.RunAwaitingApproval {
		return nil, nil
	}
	return approval.NewStore(s.store.db).ByID(ctx, *r.ApprovalID)
}
