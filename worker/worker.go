// Package worker builds the Temporal worker that executes every svc workflow and activity. cmd/svcd and
// the end-to-end tests use the same constructor, so tests exercise the production registration.
package worker

import (
	"github.com/uptrace/bun"
	"go.temporal.io/sdk/activity"
	sdkclient "go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/workflows"
)

// Deps are what the activities need.
type Deps struct {
	DB *bun.DB
}

// New returns a worker on the svc task queue with every workflow and activity registered; the caller
// starts and stops it.
func New(c sdkclient.Client, deps Deps, opts sdkworker.Options) sdkworker.Worker {
	w := sdkworker.New(c, workflows.TaskQueue, opts)
	Register(w, deps)
	return w
}

// Register registers every workflow and activity on r (a worker or a test environment).
func Register(r interface {
	sdkworker.WorkflowRegistry
	sdkworker.ActivityRegistry
}, deps Deps) {
	r.RegisterWorkflowWithOptions(workflows.RunWorkflow, workflow.RegisterOptions{Name: workflows.RunWorkflowName})
	runs := &activities.Runs{Store: run.NewWriteStore(deps.DB)}
	r.RegisterActivityWithOptions(runs.MarkRunRunning, activity.RegisterOptions{Name: workflows.ActivityMarkRunning})
	r.RegisterActivityWithOptions(runs.FinishRun, activity.RegisterOptions{Name: workflows.ActivityFinishRun})
}
