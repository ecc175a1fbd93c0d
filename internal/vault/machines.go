package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// MachineSchemaV1 is the schema id of a machine card.
const MachineSchemaV1 = "svc.machine.v1"

// MachineCard describes one machine for the handoff planner: it lives at
// <vault>/.svc-machines/<machineId>.json and its collector refreshes it.
type MachineCard struct {
	// Schema is MachineSchemaV1.
	Schema string `json:"schema"`
	// MachineID is the durable machine id.
	MachineID string `json:"machineId"`
	// Host is the machine's host name.
	Host string `json:"host,omitempty"`
	// Runtimes are the runtime names the machine runs.
	Runtimes []string `json:"runtimes"`
	// Agents are the agents that can receive work, with their worker classes.
	Agents []AgentCard `json:"agents"`
	// Capabilities says what the machine's collector offers.
	Capabilities Capabilities `json:"capabilities"`
	// LastSeen is when the card was last written, ISO 8601 UTC.
	LastSeen string `json:"lastSeen"`
}

// AgentCard is one agent on a machine.
type AgentCard struct {
	// ID is the agent id.
	ID string `json:"id"`
	// Runtime is the runtime it runs in.
	Runtime string `json:"runtime"`
	// WorkerClasses are the kinds of task it takes (for example "code", "research").
	WorkerClasses []string `json:"workerClasses"`
}

// Capabilities are the features a collector offers.
type Capabilities struct {
	// FileTransfers: the collector serves /transfers.
	FileTransfers bool `json:"fileTransfers"`
}

// PublishMachine writes card (stamped with the schema and LastSeen now) atomically as the machine's
// card, replacing the previous one.
func (v *Vault) PublishMachine(card MachineCard) (*MachineCard, error) {
	id := Identity{MachineID: card.MachineID, Host: card.Host}
	if card.MachineID == "" {
		return nil, fmt.Errorf("publish machine card: no machine id")
	}
	if err := id.validate("machine"); err != nil {
		return nil, fmt.Errorf("publish machine card: %w", err)
	}
	card.Schema = MachineSchemaV1
	card.LastSeen = v.now().UTC().Format(timestampLayout)
	if card.Runtimes == nil {
		card.Runtimes = []string{}
	}
	if card.Agents == nil {
		card.Agents = []AgentCard{}
	}
	dir := filepath.Join(v.root, MachinesDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create machines directory: %w", err)
	}
	if err := writeJSONAtomic(filepath.Join(dir, card.MachineID+".json"), card); err != nil {
		return nil, fmt.Errorf("publish machine card: %w", err)
	}
	return &card, nil
}

// Machines reads every machine card that parses, ordered by machine id; sync artifacts are ignored.
func (v *Vault) Machines() ([]MachineCard, error) {
	dir := filepath.Join(v.root, MachinesDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []MachineCard{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list machine cards: %w", err)
	}
	out := []MachineCard{}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") || syncArtifact(name) {
			continue
		}
		if c, err := readMachineCard(filepath.Join(dir, name)); err == nil && c.MachineID+".json" == name {
			out = append(out, *c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].MachineID < out[j].MachineID })
	return out, nil
}

func readMachineCard(path string) (*MachineCard, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read machine card: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c MachineCard
	if err := dec.Decode(&c); err != nil || c.Schema != MachineSchemaV1 {
		return nil, fmt.Errorf("decode machine card %s: %v", filepath.Base(path), err)
	}
	if _, err := time.Parse(time.RFC3339, c.LastSeen); err != nil {
		return nil, fmt.Errorf("decode machine card %s: bad lastSeen", filepath.Base(path))
	}
	return &c, nil
}
