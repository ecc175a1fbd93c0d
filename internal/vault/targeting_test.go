package vault_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/vault"
)

// TestTargets covers every row of seed 001's targeting rules, plus the choice that a manifest's machine id
// wins over its host.
func TestTargets(t *testing.T) {
	t.Parallel()
	type id = vault.Identity
	rows := []struct {
		name     string
		to       id
		receiver id
		want     bool
	}{
		// Rule 1 and 6: the machine reference.
		{"machine id matches", id{MachineID: "m1"}, id{MachineID: "m1"}, true},
		{"wrong machine id hidden", id{MachineID: "m1"}, id{MachineID: "m2"}, false},
		{"host matches when no machine id", id{Host: "box"}, id{MachineID: "m9", Host: "box"}, true},
		{"wrong host hidden", id{Host: "box"}, id{Host: "other"}, false},
		{"host must be equal, not case-folded", id{Host: "box"}, id{Host: "Box"}, false},
		{"host target, receiver reports no host", id{Host: "box"}, id{MachineID: "m1"}, false},
		{"machine id wins over host: id matches, host differs", id{MachineID: "m1", Host: "box"}, id{MachineID: "m1", Host: "other"}, true},
		{"machine id wins over host: host matches, id differs", id{MachineID: "m1", Host: "box"}, id{MachineID: "m2", Host: "box"}, false},
		{"target without machine reference reaches nobody", id{Runtime: "r"}, id{MachineID: "m1", Runtime: "r"}, false},
		// Rule 2 and 3: explicit runtime and agent narrow.
		{"runtime matches", id{MachineID: "m1", Runtime: "codex"}, id{MachineID: "m1", Runtime: "codex"}, true},
		{"wrong runtime hidden", id{MachineID: "m1", Runtime: "codex"}, id{MachineID: "m1", Runtime: "claude"}, false},
		{"wrong agent hidden", id{MachineID: "m1", Runtime: "codex", AgentID: "a1"}, id{MachineID: "m1", Runtime: "codex", AgentID: "a2"}, false},
		{"wrong runtime hidden even with the right agent", id{MachineID: "m1", Runtime: "codex", AgentID: "a1"}, id{MachineID: "m1", Runtime: "claude", AgentID: "a1"}, false},
		{"machine-wide transfer seen by an agent inbox", id{MachineID: "m1"}, id{MachineID: "m1", Runtime: "codex", AgentID: "a1"}, true},
		{"machine-level inbox sees a runtime transfer", id{MachineID: "m1", Runtime: "codex"}, id{MachineID: "m1"}, true},
		// Rule 4: a runtime-level inbox sees the runtime's agent-specific transfers.
		{"runtime inbox sees agent-specific transfer", id{MachineID: "m1", Runtime: "codex", AgentID: "a1"}, id{MachineID: "m1", Runtime: "codex"}, true},
		{"runtime inbox sees runtime-wide transfer", id{MachineID: "m1", Runtime: "codex"}, id{MachineID: "m1", Runtime: "codex"}, true},
		{"runtime inbox of another runtime hidden", id{MachineID: "m1", Runtime: "codex", AgentID: "a1"}, id{MachineID: "m1", Runtime: "claude"}, false},
		// Rule 5: an agent-level inbox sees runtime-wide transfers and its own.
		{"agent inbox sees runtime-wide transfer", id{MachineID: "m1", Runtime: "codex"}, id{MachineID: "m1", Runtime: "codex", AgentID: "a1"}, true},
		{"agent inbox sees its own transfer", id{MachineID: "m1", Runtime: "codex", AgentID: "a1"}, id{MachineID: "m1", Runtime: "codex", AgentID: "a1"}, true},
		{"agent inbox, agent-only target", id{MachineID: "m1", AgentID: "a1"}, id{MachineID: "m1", Runtime: "codex", AgentID: "a1"}, true},
		{"agent inbox, agent-only target for another agent", id{MachineID: "m1", AgentID: "a1"}, id{MachineID: "m1", Runtime: "codex", AgentID: "a2"}, false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, r.want, vault.Targets(r.to, r.receiver))
		})
	}
}
