// Package worker builds the Temporal worker that executes every svc workflow and activity. The
// activities arrive built (app/ builds them once); cmd/svcd and the end-to-end tests use the same
// constructor, so tests exercise the production registration.
package worker

import (
	"go.temporal.io/sdk/activity"
	sdkclient "go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/workflows"
)

// New returns a worker on the svc task queue with every workflow and the activities of set registered;
// the caller starts and stops it.
func New(c sdkclient.Client, set activities.Set, opts sdkworker.Options) sdkworker.Worker {
	w := sdkworker.New(c, workflows.TaskQueue, opts)
	Register(w, set)
	return w
}

// Register registers every workflow and the activities of set on r (a worker or a test environment).
func Register(r interface {
	sdkworker.WorkflowRegistry
	sdkworker.ActivityRegistry
}, set activities.Set) {
	workflows.RegisterWorkflows(r)
	for _, reg := range set.Registrations() {
		r.RegisterActivityWithOptions(reg.Func, activity.RegisterOptions{Name: reg.Name})
	}
}
