package vault

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"time"
)

// Layout names inside a vault.
const (
	// TransfersDir is the vault-relative directory holding one directory per transfer.
	TransfersDir = ".svc-transfers"
	// MachinesDir is the vault-relative directory holding one machine card per machine.
	MachinesDir = ".svc-machines"
	// ManifestFile is a transfer's manifest, written last.
	ManifestFile = "manifest.json"
	// PayloadDir is a transfer's directory of payload files.
	PayloadDir = "payload"
	// AcksDir is a transfer's directory of ack files, one per receiving identity.
	AcksDir = "acks"
)

// Schema and status values of a manifest.
const (
	// SchemaV1 is the schema id every manifest carries.
	SchemaV1 = "svc.transfer.v1"
	// StatusPending is the only status a manifest holds: acknowledgements live in ack files.
	StatusPending = "pending"
)

// IDPrefix starts every transfer id.
const IDPrefix = "transfer-"

// idSuffixAlphabet and idSuffixLen make the random end of a transfer id.
const (
	idSuffixAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	idSuffixLen      = 12
)

// idPattern is the shape of a transfer id: the prefix, a UTC timestamp with ':' and '.' made '-', and
// the 12-character suffix, for example transfer-2026-11-26T09-47-00-123Z-k3j4h5g6f7d8.
var idPattern = regexp.MustCompile(`^transfer-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-[a-z0-9]{12}$`)

// timestampLayout is ISO 8601 UTC with milliseconds, the form of createdAt.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// Manifest is a transfer's manifest.json.
type Manifest struct {
	// ID is the transfer id, also the name of its directory.
	ID string `json:"id"`
	// Schema is SchemaV1.
	Schema string `json:"schema"`
	// Status is StatusPending.
	Status string `json:"status"`
	// CreatedAt is when the sender created the transfer, ISO 8601 UTC.
	CreatedAt string `json:"createdAt"`
	// Note is optional context from the sender.
	Note string `json:"note,omitempty"`
	// From is the optional sender.
	From *Identity `json:"from,omitempty"`
	// To is the target; it names a machine (MachineID or Host).
	To Identity `json:"to"`
	// Payloads lists the copied files, one each.
	Payloads []Payload `json:"payloads"`
}

// Payload describes one copied file.
type Payload struct {
	// Name is the file's name inside the payload directory.
	Name string `json:"name"`
	// MediaType is its MIME type.
	MediaType string `json:"mediaType"`
	// Bytes is its size.
	Bytes int64 `json:"bytes"`
	// SHA256 is the lower-case hex digest of its content.
	SHA256 string `json:"sha256"`
	// Path is its path relative to the vault: .svc-transfers/<transfer-id>/payload/<name>.
	Path string `json:"path"`
}

// newTransferID makes a transfer id for a transfer created at t.
func newTransferID(t time.Time, random io.Reader) (string, error) {
	b := make([]byte, idSuffixLen)
	if _, err := io.ReadFull(random, b); err != nil {
		return "", fmt.Errorf("random transfer id suffix: %w", err)
	}
	for i := range b {
		b[i] = idSuffixAlphabet[int(b[i])%len(idSuffixAlphabet)]
	}
	stamp := strings.NewReplacer(":", "-", ".", "-").Replace(t.UTC().Format(timestampLayout))
	return IDPrefix + stamp + "-" + string(b), nil
}

// ValidID reports whether id has the shape of a transfer id (and so is safe as a directory name).
func ValidID(id string) bool { return idPattern.MatchString(id) }

// payloadPath is the vault-relative path of a payload file.
func payloadPath(id, name string) string { return path.Join(TransfersDir, id, PayloadDir, name) }

// decodeManifest reads a manifest strictly: unknown fields, trailing data, another schema, a payload
// path that is not where the layout puts it, or a payload name that could leave the payload directory
// make it unreadable, and so its transfer invisible.
func decodeManifest(data []byte, dirName string) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode manifest: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decode manifest: data after the JSON object")
	}
	if m.Schema != SchemaV1 || m.ID != dirName || !ValidID(m.ID) || m.To.validateTarget("to") != nil {
		return nil, fmt.Errorf("manifest of %s: wrong schema, id or target", dirName)
	}
	seen := map[string]bool{}
	for _, p := range m.Payloads {
		if checkPayloadName(p.Name) != nil || seen[p.Name] || p.Path != payloadPath(m.ID, p.Name) ||
			p.Bytes < 0 || !isHexDigest(p.SHA256) {
			return nil, fmt.Errorf("manifest of %s: bad payload entry %q", dirName, p.Name)
		}
		seen[p.Name] = true
	}
	return &m, nil
}

func isHexDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// randReader is where transfer ids get their randomness unless Options says otherwise.
var randReader = rand.Reader
