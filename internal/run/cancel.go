package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// StartGrace is how long a queued (or awaiting_approval) run whose workflow Temporal does not know may
// still be in the middle of its start (the creating request, or its retry with the same Idempotency-Key, has not reached
// Temporal yet). Within it Cancel answers unavailable rather than deciding the run's fate.
const StartGrace = time.Minute

// Cancel requests cancellation of the run's workflow and returns the run as it is then: usually still
// queued or running, since the workflow ends it cancelled through its own bookkeeping. authorize, when
// not nil, is asked about the run before anything changes (e.g. the key's access to its service).
//
// A run of another scope, or no run, is not_found; a finished run is a conflict. When the workflow no
// longer exists or has closed without recording an outcome (terminated by an operator, or past its
// retention), nothing can finish the run, so Cancel records it cancelled itself.
func (s *Service) Cancel(ctx context.Context, scope tenant.Scope, id string, authorize func(*schema.Run) error) (*schema.Run, error) {
	r, err := s.store.Get(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	if authorize != nil {
		if err := authorize(r); err != nil {
			return nil, err
		}
	}
	if finished(r.Status) {
		return nil, alreadyFinished(r)
	}
	// Temporal treats a repeated request, and one for a workflow that has already closed, as a success.
	err = s.temporal.CancelWorkflow(ctx, r.WorkflowID, "")
	var notFound *serviceerror.NotFound
	switch {
	case errors.As(err, &notFound):
		return s.cancelOrphan(ctx, scope, id, false)
	case err != nil:
		return nil, fmt.Errorf("cancel workflow %s: %w", r.WorkflowID, err)
	}
	now, err := s.store.Get(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	if finished(now.Status) || s.workflowOpen(ctx, r.WorkflowID) {
		return now, nil
	}
	return s.cancelOrphan(ctx, scope, id, true)
}

// workflowOpen reports whether the workflow is still running; when Temporal cannot tell, it is assumed
// to be, so that an unanswered question never rewrites a run.
func (s *Service) workflowOpen(ctx context.Context, workflowID string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	desc, err := s.temporal.DescribeWorkflowExecution(ctx, workflowID, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return false
	}
	if err != nil {
		return true
	}
	return desc.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// cancelOrphan settles an unfinished run whose workflow is gone or closed: it records the run cancelled,
// unless the run may still be starting (not yet running, created less than StartGrace ago) or has meanwhile finished. A run
// that finished meanwhile is answered as it is when Temporal accepted the request (requested), since the
// request may be why it finished, and is a conflict otherwise.
func (s *Service) cancelOrphan(ctx context.Context, scope tenant.Scope, id string, requested bool) (*schema.Run, error) {
	r, err := s.store.Get(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	if finished(r.Status) {
		if requested {
			return r, nil
		}
		return nil, alreadyFinished(r)
	}
	if (r.Status == client.RunQueued || r.Status == client.RunAwaitingApproval) && time.Since(r.CreatedAt) < StartGrace {
		return nil, svcerr.New(svcerr.Unavailable, "run %s is still being started; retry the cancellation shortly", id)
	}
	err = s.store.Finish(ctx, workflows.RunOutcome{RunID: id, Status: client.RunCancelled,
		ErrorCode: "cancelled", ErrorMessage: "the run was cancelled"})
	if err != nil {
		return nil, fmt.Errorf("record orphaned run %s cancelled: %w", id, err)
	}
	return s.store.Get(ctx, scope, id)
}

func alreadyFinished(r *schema.Run) error {
	return svcerr.New(svcerr.Conflict, "run %s has already finished: it is %s", r.ID, r.Status).
		WithDetails("status", r.Status)
}
