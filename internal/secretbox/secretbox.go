// Package secretbox encrypts secrets at rest with AES-256-GCM under the deployment's master key
// (SVC_ENCRYPTION_KEY), and derives purpose-bound sub-keys from it (for example the credit-token
// signing key), so one secret configures the whole deployment.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the length of the master key in bytes.
const KeySize = 32

// Box seals and opens values with one key.
type Box struct {
	master []byte
	aead   cipher.AEAD
}

// New returns a Box for a 32-byte master key.
func New(master []byte) (*Box, error) {
	if len(master) != KeySize {
		return nil, fmt.Errorf("secretbox: master key must be %d bytes, got %d", KeySize, len(master))
	}
	block, err := aes.NewCipher(master)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	return &Box{master: append([]byte(nil), master...), aead: aead}, nil
}

// Seal encrypts plaintext; aad binds the ciphertext to its context (a row id, say) without being secret.
func (b *Box) Seal(plaintext, aad []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	_, _ = rand.Read(nonce)
	return b.aead.Seal(nonce, nonce, plaintext, aad)
}

// Open decrypts what Seal made with the same aad.
func (b *Box) Open(sealed, aad []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("secretbox: sealed value too short")
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], aad)
	if err != nil {
		return nil, fmt.Errorf("secretbox: open: %w", err)
	}
	return out, nil
}

// Derive returns a 32-byte key for one purpose (HMAC-SHA256 of the purpose under the master key).
func (b *Box) Derive(purpose string) []byte {
	m := hmac.New(sha256.New, b.master)
	m.Write([]byte("svc/" + purpose))
	return m.Sum(nil)
}

// ParseKey decodes a master key given as standard or URL-safe base64 (44 or 43 characters) or hex.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == KeySize {
			return k, nil
		}
	}
	return nil, fmt.Errorf("secretbox: key must be %d bytes in base64", KeySize)
}

// LoadOrCreateKeyFile reads a base64 master key from path, or creates the file (mode 0600) with a new
// random key when it does not exist. It is meant for development; production passes SVC_ENCRYPTION_KEY.
func LoadOrCreateKeyFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		return ParseKey(string(data))
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("secretbox: read key file: %w", err)
	}
	key := make([]byte, KeySize)
	_, _ = rand.Read(key)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("secretbox: create key dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("secretbox: create key file: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		return nil, fmt.Errorf("secretbox: write key file: %w", err)
	}
	return key, nil
}
