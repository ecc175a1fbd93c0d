package vault

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/svcplatform/svc/internal/svcerr"
)

// Identity names a sender, a target or a receiver: a machine (by durable id or host name), optionally
// narrowed to one runtime and one agent. In a target each member narrows the routing; a target needs a
// machine reference (MachineID or Host).
type Identity struct {
	// MachineID is the durable machine id; it is the preferred machine reference.
	MachineID string `json:"machineId,omitempty"`
	// Host is the host name the machine reports.
	Host string `json:"host,omitempty"`
	// Runtime is the runtime name (for example an agent harness).
	Runtime string `json:"runtime,omitempty"`
	// AgentID is one agent of the runtime.
	AgentID string `json:"agentId,omitempty"`
}

// namePart is what an identity member may hold: it becomes part of an ack file's name, so it is a
// portable file-name fragment without "--" (the separator of ack file names).
var namePart = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// validate refuses an identity member that could not name a file; param prefixes the member's name in
// errors (for example "to").
func (id Identity) validate(param string) error {
	for _, m := range []struct{ name, value string }{
		{"machineId", id.MachineID}, {"host", id.Host}, {"runtime", id.Runtime}, {"agentId", id.AgentID},
	} {
		if m.value == "" {
			continue
		}
		if !namePart.MatchString(m.value) || strings.Contains(m.value, "--") {
			return svcerr.Invalid(joinParam(param, m.name),
				"%s must be 1-128 letters, digits, '.', '_' or '-', start with a letter or digit and hold no \"--\"",
				joinParam(param, m.name))
		}
	}
	return nil
}

// validateTarget is validate plus the rule that a target names its machine.
func (id Identity) validateTarget(param string) error {
	if id.MachineID == "" && id.Host == "" {
		return svcerr.Invalid(joinParam(param, "machineId"), "%s needs a machine reference: machineId or host", param)
	}
	return id.validate(param)
}

// machineRef is the receiver's machine reference in ack file names: its machine id, else its host.
func (id Identity) machineRef() string {
	if id.MachineID != "" {
		return id.MachineID
	}
	return id.Host
}

// ackFileName is the name of a receiver's ack file, <machineId>--<runtime>--<agentId>.json, with "_" for
// a member the receiver did not give.
func (id Identity) ackFileName() string {
	return fmt.Sprintf("%s--%s--%s.json", orPlaceholder(id.machineRef()), orPlaceholder(id.Runtime),
		orPlaceholder(id.AgentID))
}

func orPlaceholder(s string) string {
	if s == "" {
		return "_"
	}
	return s
}

func joinParam(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// Targets reports whether a transfer addressed to target is for receiver. It is seed 001's targeting
// rules in one place:
//
//  1. The machine: when target.MachineID is set it must equal receiver.MachineID (the machine id wins
//     when a target sets both it and Host; Host is then ignored); otherwise target.Host must equal
//     receiver.Host exactly. A target with neither reaches nobody.
//  2. An explicit target.Runtime hides the transfer from a receiver that names another runtime.
//  3. An explicit target.AgentID hides the transfer from a receiver that names another agent.
//  4. A receiver that names no agent (a runtime-level or machine-level inbox) sees the agent-specific
//     transfers of its runtime; one that names no runtime sees every runtime's transfers of its machine.
//  5. An agent-level receiver sees runtime-wide transfers plus those for exactly its agent.
func Targets(target, receiver Identity) bool {
	switch {
	case target.MachineID != "":
		if target.MachineID != receiver.MachineID {
			return false
		}
	case target.Host != "":
		if target.Host != receiver.Host {
			return false
		}
	default:
		return false
	}
	if target.Runtime != "" && receiver.Runtime != "" && target.Runtime != receiver.Runtime {
		return false
	}
	return target.AgentID == "" || receiver.AgentID == "" || target.AgentID == receiver.AgentID
}
