package codeproof

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// identityFile is what an identity file holds. The private key never leaves it.
type identityFile struct {
	DID        string    `json:"did"`
	PrivateKey []byte    `json:"privateKeySeed"` // the Ed25519 seed (32 bytes)
	CreatedAt  time.Time `json:"createdAt"`
}

// safeAccountID is what an account id may look like in a file name.
var safeAccountID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// identityPath is the account's identity file: <data>/identities/<account>.json.
func (s *Service) identityPath(accountID string) (string, error) {
	if !safeAccountID.MatchString(accountID) {
		return "", fmt.Errorf("identity: unusable account id %q", accountID)
	}
	return filepath.Join(s.cfg.DataDir, "identities", accountID+".json"), nil
}

// loadIdentity reads the account's identity; nil without error when there is none.
func (s *Service) loadIdentity(accountID string) (*identityFile, error) {
	p, err := s.identityPath(accountID)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read identity: %w", err)
	}
	var id identityFile
	if err := json.Unmarshal(raw, &id); err != nil {
		return nil, fmt.Errorf("read identity %s: %w", filepath.Base(p), err)
	}
	return &id, nil
}

// newIdentity makes a key and writes the account's identity file (mode 0600, in a 0700 folder).
func (s *Service) newIdentity(accountID string) (*identityFile, error) {
	p, err := s.identityPath(accountID)
	if err != nil {
		return nil, err
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate identity key: %w", err)
	}
	id := &identityFile{DID: DIDKey(pub), PrivateKey: priv.Seed(), CreatedAt: s.now().UTC().Truncate(time.Second)}
	raw, err := json.MarshalIndent(id, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode identity: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("identity folder: %w", err)
	}
	if err := WriteFileAtomic(p, raw, 0o600); err != nil {
		return nil, fmt.Errorf("write identity: %w", err)
	}
	return id, nil
}

// WriteFileAtomic writes data to path through a temporary file in the same folder (created with
// perm), fsynced and renamed over path, then fsyncs the folder: readers see the old or the new file.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("chmod temporary file: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write temporary file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync temporary file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close temporary file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		_ = dir.Sync()
		_ = dir.Close()
	}
	return nil
}
