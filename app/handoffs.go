package app

import (
	"fmt"

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
