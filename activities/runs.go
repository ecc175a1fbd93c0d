// Package activities holds the side effects of the platform's workflows. Each activity is a thin method
// on a struct carrying its dependencies and calls a domain package. An error that retrying cannot cure
// is returned as a non-retryable temporal.ApplicationError; any other error is retried by Temporal.
package activities

import (
	"context"

	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/workflows"
)

// Runs keeps run rows in step with their workflows.
type Runs struct {
	Store *run.Store
}

// MarkRunRunning moves a run from queued to running. Database errors are retried.
func (a *Runs) MarkRunRunning(ctx context.Context, runID string) error {
	return a.Store.MarkRunning(ctx, runID)
}

// FinishRun records the run's outcome; it is idempotent, so retries are harmless.
func (a *Runs) FinishRun(ctx context.Context, o workflows.RunOutcome) error {
	return a.Store.Finish(ctx, o)
}
