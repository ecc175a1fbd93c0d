// Package artifact keeps the files and outputs that runs produce: their bytes in the platform's blob store
// (internal/blob; below "artifacts/" of the configured store), their metadata in the artifacts table.
// Reading an artifact needs the artifacts:read scope and access to the service of the run that produced
// it; the API enforces both.
package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
)

// HashingReader passes reads through while hashing them with SHA-256, for readers that check what they
// read against a recorded digest.
type HashingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

// NewHashingReader returns a HashingReader of r.
func NewHashingReader(r io.Reader) *HashingReader { return &HashingReader{r: r, h: sha256.New()} }

// Read implements io.Reader.
func (h *HashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// Sum is the hex SHA-256 of the bytes read so far.
func (h *HashingReader) Sum() string { return hex.EncodeToString(h.h.Sum(nil)) }

// Size is the number of bytes read so far.
func (h *HashingReader) Size() int64 { return h.n }
