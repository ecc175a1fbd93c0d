package vault

import (
	"bytes"
	"context"
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

// Ack is the content of an ack file, acks/<machineId>--<runtime>--<agentId>.json ("_" stands for a
// member the receiver did not give; the machine part is the machine id, else the host).
type Ack struct {
	// TransferID is the acknowledged transfer.
	TransferID string `json:"transferId"`
	// MachineID is the receiver's machine id.
	MachineID string `json:"machineId,omitempty"`
	// Host is the receiver's host name.
	Host string `json:"host,omitempty"`
	// Runtime is the receiver's runtime, when it named one.
	Runtime string `json:"runtime,omitempty"`
	// AgentID is the receiver's agent, when it named one.
	AgentID string `json:"agentId,omitempty"`
	// AckedAt is when the receiver acknowledged, ISO 8601 UTC.
	AckedAt string `json:"ackedAt"`
	// Verified lists the payloads the receiver checked before acknowledging.
	Verified []VerifiedPayload `json:"verified"`
}

// VerifiedPayload is one payload as the receiver verified it.
type VerifiedPayload struct {
	// Name is the payload's file name.
	Name string `json:"name"`
	// SHA256 is the digest the receiver computed (equal to the manifest's).
	SHA256 string `json:"sha256"`
	// Bytes is the size the receiver found.
	Bytes int64 `json:"bytes"`
}

// Ack acknowledges transfer id for receiver: it refuses (conflict) unless the transfer is whole here,
// every payload matching the manifest's bytes and SHA-256 (hashed now, not taken from the cache), and answers not_found when the transfer is not
// targeted at receiver. It writes only the receiver's own ack file; acknowledging again keeps the first
// ack.
func (v *Vault) Ack(ctx context.Context, id string, receiver Identity) (*Ack, error) {
	if err := receiver.validateTarget("receiver"); err != nil {
		return nil, err
	}
	if !ValidID(id) {
		return nil, errNotFound(id)
	}
	m, err := v.readManifest(id)
	if err != nil {
		return nil, notVerified(id)
	}
	if !Targets(m.To, receiver) {
		return nil, errNotFound(id)
	}
	t, err := v.verified(ctx, m, true)
	if err != nil {
		return nil, notVerified(id)
	}
	path := filepath.Join(v.transferDir(id), AcksDir, receiver.ackFileName())
	if prev, err := readAck(path); err == nil && prev.TransferID == id {
		return prev, nil
	}
	ack := &Ack{TransferID: id, MachineID: receiver.MachineID, Host: receiver.Host, Runtime: receiver.Runtime,
		AgentID: receiver.AgentID, AckedAt: v.now().UTC().Format(timestampLayout)}
	for _, f := range t.Files {
		ack.Verified = append(ack.Verified, VerifiedPayload{Name: f.Name, SHA256: f.SHA256, Bytes: f.Bytes})
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create acks directory: %w", err)
	}
	if err := writeJSONAtomic(path, ack); err != nil {
		return nil, fmt.Errorf("write ack: %w", err)
	}
	return ack, nil
}

// Acks lists the ack files of transfer id that parse, ordered by file name; sync artifacts are ignored.
// An id without acks (or unknown) has none.
func (v *Vault) Acks(id string) ([]Ack, error) {
	if !ValidID(id) {
		return nil, errNotFound(id)
	}
	dir := filepath.Join(v.transferDir(id), AcksDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Ack{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list acks of %s: %w", id, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && !syncArtifact(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	out := []Ack{}
	for _, name := range names {
		if a, err := readAck(filepath.Join(dir, name)); err == nil && a.TransferID == id {
			out = append(out, *a)
		}
	}
	return out, nil
}

// hasAck reports whether receiver's own ack file for id exists and parses.
func (v *Vault) hasAck(id string, receiver Identity) bool {
	a, err := readAck(filepath.Join(v.transferDir(id), AcksDir, receiver.ackFileName()))
	return err == nil && a.TransferID == id
}

// readAck strictly decodes one ack file.
func readAck(path string) (*Ack, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read ack: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var a Ack
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("decode ack %s: %w", filepath.Base(path), err)
	}
	if _, err := time.Parse(time.RFC3339, a.AckedAt); err != nil {
		return nil, fmt.Errorf("decode ack %s: bad ackedAt", filepath.Base(path))
	}
	return &a, nil
}
