// Package worker builds the Temporal worker that executes every svc workflow and activity. cmd/svcd and
// the end-to-end tests use the same constructor, so tests exercise the production registration.
package worker

import (
	"context"

	"github.com/uptrace/bun"
	"go.temporal.io/sdk/activity"
	sdkclient "go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/connection"
	"github.com/svcplatform/svc/internal/delivery"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/topup"
	"github.com/svcplatform/svc/internal/webhook"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/workflows"
)

// Deps are what the activities need.
type Deps struct {
	DB *bun.DB
	// Temporal lets activities start workflows (the run of an approved service action); New sets it to
	// the worker's own client when nil.
	Temporal run.Engine
	// Gateway are the external services (services.yaml) whose runs this worker performs; nil means none.
	Gateway *gateway.Catalog
	// Box opens connection credentials (needed when Gateway has services) and webhook secrets (without
	// it, webhook delivery attempts fail saying so).
	Box *secretbox.Box
	// AllowLoopback lets runs call services, and webhook deliveries reach endpoints, on loopback
	// addresses and over http (dev mode).
	AllowLoopback bool
	// Artifacts keeps runs' outputs; the API must serve from the same store. Nil keeps none.
	Artifacts *artifact.Store
	// Chain is where x402 top-ups settle; nil fails their settlement attempts saying so (retried).
	Chain *evm.Chain
	// Facilitator, when set, settles top-ups through an external x402 facilitator; X402 describes what
	// payments are made in (both only needed with an external facilitator).
	Facilitator *x402.HTTPFacilitator
	X402        *x402.Config
	// Fault injects a test fault into top-up settlement (activities.FaultStallAfterSettle); never in
	// production.
	Fault string
}

// New returns a worker on the svc task queue with every workflow and activity registered; the caller
// starts and stops it.
func New(c sdkclient.Client, deps Deps, opts sdkworker.Options) sdkworker.Worker {
	w := sdkworker.New(c, workflows.TaskQueue, opts)
	if deps.Temporal == nil {
		deps.Temporal = c
	}
	Register(w, deps)
	return w
}

// Register registers every workflow and activity on r (a worker or a test environment).
func Register(r interface {
	sdkworker.WorkflowRegistry
	sdkworker.ActivityRegistry
}, deps Deps) {
	workflows.RegisterWorkflows(r)
	for _, reg := range activitySet(deps).Registrations() {
		r.RegisterActivityWithOptions(reg.Func, activity.RegisterOptions{Name: reg.Name})
	}
}

// activitySet builds every activity implementation with its dependencies.
func activitySet(deps Deps) activities.Set {
	approvals := &activities.Approvals{Store: approval.NewStore(deps.DB)}
	if deps.Temporal != nil {
		approvals.Runs = run.NewService(run.NewWriteStore(deps.DB), deps.Temporal).WithCatalog(runCatalog(deps))
	}
	return activities.Set{
		Runs:        &activities.Runs{Store: run.NewWriteStore(deps.DB), Artifacts: deps.Artifacts},
		Approvals:   approvals,
		Invocations: invocations(deps),
		Deliveries: &activities.Deliveries{Store: delivery.NewStore(deps.DB, nil), DB: deps.DB, CanSign: deps.Box != nil,
			Webhooks: webhook.NewStore(deps.DB, deps.Box, webhook.Options{AllowHTTP: deps.AllowLoopback, AllowLoopback: deps.AllowLoopback}),
			Sender:   delivery.NewSender(delivery.SenderOptions{AllowHTTP: deps.AllowLoopback, AllowLoopback: deps.AllowLoopback})},
		TopUps: &activities.TopUps{Store: topup.NewStore(deps.DB), Chain: deps.Chain, Facilitator: deps.Facilitator, X402: deps.X402, Fault: deps.Fault},
	}
}

// StartDispatcher runs the webhook dispatcher (see internal/delivery) beside a worker, starting delivery
// workflows with c, until the returned stop is called; stop waits for it to end.
func StartDispatcher(c delivery.Engine, db *bun.DB, opts delivery.DispatcherOptions) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	d := delivery.NewDispatcher(db, c, opts)
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	return func() { cancel(); <-done }
}

// runCatalog is the built-in services plus the worker's external ones.
func runCatalog(deps Deps) *catalog.Catalog {
	if deps.Gateway == nil {
		return catalog.Builtin()
	}
	cat, err := catalog.Builtin().With(deps.Gateway.ForCatalog()...)
	if err != nil { // services.yaml was validated when loaded; a clash leaves the built-in services
		return catalog.Builtin()
	}
	return cat
}

// invocations builds the activities of external services' runs. Without services or a key they still
// answer, failing such runs with service_unavailable instead of leaving them waiting for a worker.
func invocations(deps Deps) *activities.Invocations {
	cat := deps.Gateway
	if cat == nil || deps.Box == nil {
		cat = &gateway.Catalog{}
	}
	inv := &activities.Invocations{
		Runs: run.NewWriteStore(deps.DB), Gateway: cat, Ledger: ledger.New(deps.DB),
		Invoker:   gateway.NewInvoker(gateway.Options{AllowLoopback: deps.AllowLoopback}),
		Artifacts: deps.Artifacts,
	}
	if deps.Box != nil {
		inv.Connections = connection.NewStore(deps.DB, deps.Box)
	}
	return inv
}
