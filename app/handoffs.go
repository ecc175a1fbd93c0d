package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/svcplatform/svc/internal/codeprojects"
	"github.com/svcplatform/svc/internal/handoff"
	"github.com/svcplatform/svc/internal/vault"
)

// openVault opens the platform's vault, SVC_VAULT: nil when unset (handoffs then answer 503 naming it).
func openVault(dir string) (*vault.Vault, error) {
	if dir == "" {
		return nil, nil
	}
	v, err := vault.Open(dir, vault.Options{})
	if err != nil {
		return nil, fmt.Errorf("SVC_VAULT: %w", err)
	}
	return v, nil
}

// codeProjects is the code-project registry: in the vault, or the per-user fallback without one.
func codeProjects(d APIDeps) *codeprojects.Registry {
	root := ""
	if d.Vault != nil {
		root = d.Vault.Root()
	}
	return codeprojects.Open(root, d.ProjectsFile)
}

// handoffService plans and sends handoffs; without a vault it still reads the recorded ones.
func handoffService(d APIDeps) *handoff.Service {
	s := &handoff.Service{DB: d.DB, Vault: d.Vault, Opts: handoff.Options{CheckEvery: d.HandoffCheckEvery}}
	if d.Temporal != nil {
		s.Engine = d.Temporal
	}
	return s
}

// handoffActivities write handoffs' transfers to the worker's vault (failing, retried, without one).
func handoffActivities(d WorkerDeps) *handoff.Worker {
	if d.Vault == nil {
		return nil
	}
	return &handoff.Worker{DB: d.DB, Vault: d.Vault}
}

// StartVaultWatcher runs the vault watcher of a worker that has the vault (see handoff.Watcher): every
// interval (0: handoff.DefaultWatchEvery) it signals the workflows of handoffs whose transfer a receiver
// has acknowledged, until the returned stop is called; stop waits for it to end. A nil vault watches
// nothing.
func StartVaultWatcher(e handoff.Signaler, d WorkerDeps, interval time.Duration, log *slog.Logger) (stop func()) {
	if d.Vault == nil {
		return func() {}
	}
	w := &handoff.Watcher{DB: d.DB, Vault: d.Vault, Engine: e, Every: interval, Log: log}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	return func() { cancel(); <-done }
}

// handoffSweepSettle is how long a recorded handoff may wait for its request to start its workflow
// before the sweep starts it.
const handoffSweepSettle = time.Minute

// sweepHandoffs starts the workflows of handoffs a dying request recorded without starting
// (handoff.Service.Sweep).
func (a *APIProcess) sweepHandoffs(ctx context.Context) {
	if a.deps.Handoffs == nil || a.deps.Handoffs.Engine == nil {
		return
	}
	n, err := a.deps.Handoffs.Sweep(ctx, handoffSweepSettle, 100)
	if err != nil && ctx.Err() == nil {
		a.log.Warn("start unstarted handoffs", "err", err)
	}
	if n > 0 {
		a.log.Info("handed handoffs to their workflows", "count", n)
	}
}

// watching is what the worker's start line adds when it watches a vault.
func watching(d WorkerDeps) string {
	if d.Vault == nil {
		return ""
	}
	return "; watching the vault for handoff acks"
}
