// Package activities holds the side effects of the platform's workflows. Each activity is a thin method
// on a struct carrying its dependencies and calls a domain package. An error that retrying cannot cure
// is returned as a non-retryable temporal.ApplicationError; any other error is retried by Temporal.
package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/workflows"
)

// Runs keeps run rows in step with their workflows.
type Runs struct {
	Store *run.Store
	// Artifacts keeps a succeeded run's output as the artifact output.json; nil keeps none.
	Artifacts *artifact.Store
}

// OutputArtifactName is the name of the artifact holding a run's output.
const OutputArtifactName = "output.json"

// MarkRunRunning moves a run from queued to running. When the run's row is already final (cancelled
// before its workflow got to it, say), it answers the stored outcome with Final set, and the workflow
// ends with it instead of performing the operation. Database errors are retried.
func (a *Runs) MarkRunRunning(ctx context.Context, runID string) (workflows.RunStart, error) {
	r, err := a.Store.MarkRunning(ctx, runID)
	if err != nil || r == nil {
		return workflows.RunStart{}, classify(err)
	}
	o := workflows.RunOutcome{RunID: r.ID, Status: r.Status, Output: r.Output}
	if e := run.ToWire(r).Error; e != nil {
		o.ErrorCode, o.ErrorMessage = e.Code, e.Message
	}
	return workflows.RunStart{Final: true, Outcome: o}, nil
}

// FinishRun records the run's outcome, first keeping a succeeded run's output as an artifact; both are
// idempotent, so retries are harmless.
func (a *Runs) FinishRun(ctx context.Context, o workflows.RunOutcome) error {
	if err := a.keepOutput(ctx, o); err != nil {
		return err
	}
	return classify(a.Store.Finish(ctx, o))
}

// keepOutput saves a succeeded run's output as output.json (its id derives from the run's).
func (a *Runs) keepOutput(ctx context.Context, o workflows.RunOutcome) error {
	if a.Artifacts == nil || o.Status != client.RunSucceeded || len(o.Output) == 0 {
		return nil
	}
	r, err := a.Store.ByID(ctx, o.RunID)
	if err != nil {
		return classify(err)
	}
	_, err = a.Artifacts.Save(ctx, artifact.NewArtifact{
		ID: ids.Derive(ids.Artifact, r.ID, OutputArtifactName), AccountID: r.AccountID, ProjectID: r.ProjectID,
		RunID: r.ID, ServiceID: r.ServiceID, Name: OutputArtifactName, ContentType: "application/json",
		Body: bytes.NewReader(o.Output),
	})
	if svcerr.Is(err, svcerr.PayloadTooLarge) { // retrying cannot shrink it; the output stays in the run
		return nil
	}
	if err != nil {
		return fmt.Errorf("keep the output of run %s: %w", r.ID, err)
	}
	return nil
}

// classify makes a missing run row final: retrying cannot make it appear, and failing loudly shows the
// misconfiguration (two deployments sharing a namespace) in the Web UI. A value PostgreSQL refuses (an
// output holding \u0000, say) is final too, as ErrorTypeUnstorable: the workflow then records a storable
// outcome instead of retrying for ever.
func classify(err error) error {
	switch {
	case errors.Is(err, run.ErrRunMissing):
		return temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrorTypeRunMissing, err)
	case pg.Unstorable(err):
		return temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrorTypeUnstorable, err)
	}
	return err
}
