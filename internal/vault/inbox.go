package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/svcplatform/svc/internal/svcerr"
)

// InboxQuery selects the transfers a receiver sees.
type InboxQuery struct {
	// Receiver is the polling identity; it needs a machine reference (MachineID or Host).
	Receiver Identity
	// All includes the transfers the receiver has already acknowledged.
	All bool
}

// Transfer is a whole, verified transfer as a receiver sees it.
type Transfer struct {
	Manifest
	// Dir is the transfer's absolute directory in this vault copy.
	Dir string `json:"dir"`
	// Files are the payloads with their absolute local paths, in manifest order.
	Files []LocalPayload `json:"files"`
	// Acknowledged says whether the receiver asking has acknowledged it.
	Acknowledged bool `json:"acknowledged"`
}

// LocalPayload is a payload with its absolute path in this vault copy.
type LocalPayload struct {
	Payload
	// AbsPath is the payload file's absolute path.
	AbsPath string `json:"absPath"`
}

// Inbox lists, oldest first, the whole transfers targeted at q.Receiver (see Targets), without those it
// has acknowledged unless q.All. A transfer whose manifest is missing or unreadable, or any of whose
// payloads is missing or differs from the manifest's bytes and SHA-256, is not listed (a sync in
// progress). A receiver with no match gets an empty list, not an error.
func (v *Vault) Inbox(ctx context.Context, q InboxQuery) ([]Transfer, error) {
	if err := q.Receiver.validateTarget("receiver"); err != nil {
		return nil, err
	}
	ids, err := v.transferIDs()
	if err != nil {
		return nil, err
	}
	out := []Transfer{}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("inbox: %w", err)
		}
		m, err := v.readManifest(id)
		if err != nil || !Targets(m.To, q.Receiver) {
			continue
		}
		acked := v.hasAck(id, q.Receiver)
		if acked && !q.All {
			continue
		}
		t, err := v.verified(ctx, m, false)
		if err != nil {
			continue
		}
		t.Acknowledged = acked
		out = append(out, *t)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Verify returns the transfer id when it is whole: its manifest parses and every payload exists with
// the manifest's bytes and SHA-256. Otherwise it is a not_found error (absent, or not yet whole).
func (v *Vault) Verify(ctx context.Context, id string) (*Transfer, error) {
	if !ValidID(id) {
		return nil, errNotFound(id)
	}
	m, err := v.readManifest(id)
	if err != nil {
		return nil, errNotFound(id)
	}
	t, err := v.verified(ctx, m, true)
	if err != nil {
		return nil, errNotFound(id)
	}
	return t, nil
}

// transferIDs lists the directories of .svc-transfers that are transfer ids, ignoring sync artifacts.
func (v *Vault) transferIDs() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(v.root, TransfersDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list transfers: %w", err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && ValidID(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}

// readManifest reads and strictly decodes a transfer's manifest.
func (v *Vault) readManifest(id string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(v.transferDir(id), ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("read manifest of %s: %w", id, err)
	}
	return decodeManifest(data, id)
}

// verified checks every payload of m against its bytes and SHA-256, several files at once; with rehash it
// hashes every file even when the digest cache knows it.
func (v *Vault) verified(ctx context.Context, m *Manifest, rehash bool) (*Transfer, error) {
	t := &Transfer{Manifest: *m, Dir: v.transferDir(m.ID), Files: make([]LocalPayload, len(m.Payloads))}
	err := forEach(ctx, len(m.Payloads), func(i int) error {
		p := m.Payloads[i]
		abs := filepath.Join(v.root, filepath.FromSlash(p.Path))
		t.Files[i] = LocalPayload{Payload: p, AbsPath: abs}
		return v.checkPayload(abs, p, rehash)
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// errPayloadMismatch means a payload file is absent, of another size or of another digest.
var errPayloadMismatch = errors.New("payload does not match the manifest")

// checkPayload compares a payload file with its manifest entry, hashing only when the size matches and
// (unless rehash) the cache does not already know this version of the file.
func (v *Vault) checkPayload(abs string, p Payload, rehash bool) error {
	fi, err := os.Lstat(abs)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != p.Bytes {
		return fmt.Errorf("%s: %w", p.Name, errPayloadMismatch)
	}
	sum, ok := v.digests.get(abs, fi)
	if !ok || rehash {
		if sum, err = hashFile(abs); err != nil {
			return err
		}
		// Cache against the identity seen before hashing: a file rewritten meanwhile changes it.
		v.digests.put(abs, fi, sum)
	}
	if sum != p.SHA256 {
		return fmt.Errorf("%s: %w", p.Name, errPayloadMismatch)
	}
	return nil
}

// hashFile is the hex SHA-256 of a file's content, read in pooled scanChunk reads (io.Copy would read
// 32 KiB at a time).
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open payload: %w", err)
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	for {
		n, err := f.Read(*bp)
		h.Write((*bp)[:n])
		if errors.Is(err, io.EOF) {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", fmt.Errorf("hash payload %s: %w", filepath.Base(path), err)
		}
	}
}

// notVerified is the refusal of an ack for a transfer that is not whole here.
func notVerified(id string) error {
	return svcerr.New(svcerr.Conflict,
		"transfer %s is not verified here yet: its manifest or a payload is missing or does not match its bytes and sha256", id)
}
