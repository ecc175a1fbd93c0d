// Package activities holds the side effects of the platform's workflows. Each activity is a thin method
// on a struct carrying its dependencies and calls a domain package. An error that retrying cannot cure
// is returned as a non-retryable temporal.ApplicationError; any other error is retried by Temporal.
package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/workflows"
)

// Runs keeps run rows in step with their workflows.
type Runs struct {
	Store *run.Store
}

// MarkRunRunning moves a run from queued to running. Database errors are retried.
func (a *Runs) MarkRunRunning(ctx context.Context, runID string) error {
	return classify(a.Store.MarkRunning(ctx, runID))
}

// FinishRun records the run's outcome; it is idempotent, so retries are harmless.
func (a *Runs) FinishRun(ctx context.Context, o workflows.RunOutcome) error {
	return classify(a.Store.Finish(ctx, o))
}

// classify makes a missing run row final: retrying cannot make it appear, and failing loudly shows the
// misconfiguration (two deployments sharing a namespace) in the Web UI.
func classify(err error) error {
	if errors.Is(err, run.ErrRunMissing) {
		return temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrorTypeRunMissing, err)
	}
	return err
}
