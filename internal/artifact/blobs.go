// Package artifact keeps the files and outputs that runs produce: their bytes in a blob store (a local
// directory by default), their metadata in the artifacts table. Reading an artifact needs the
// artifacts:read scope and access to the service of the run that produced it; the API enforces both.
package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Blobs stores opaque byte streams under keys. Keys are relative, slash-separated paths whose segments
// are made of letters, digits, '_', '-' and '.' and do not start with '.' (see ValidKey), so no key can
// leave the store's root.
type Blobs interface {
	// Put stores everything r yields under key, replacing what was there, and returns its size and the
	// hex SHA-256 of its bytes. It is atomic: when it fails (r fails, ctx ends, the disk is full, the
	// process dies) nothing new is visible under key. A failure of r is returned wrapped.
	Put(ctx context.Context, key string, r io.Reader) (size int64, sha256hex string, err error)
	// Open returns the bytes stored under key; a key holding nothing answers an error matching
	// ErrBlobNotFound.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes what is stored under key; a key holding nothing is not an error.
	Delete(ctx context.Context, key string) error
}

// ErrBlobNotFound is what Blobs.Open answers for a key that holds nothing.
var ErrBlobNotFound = errors.New("blob not found")

// maxKeyLen bounds a key, well below any file system's path limits.
const maxKeyLen = 512

// ValidKey reports whether key is a valid blob key: 1..512 bytes of slash-separated segments, each
// non-empty, made of ASCII letters, digits, '_', '-' and '.', and not starting with '.' (which excludes
// "." and "..", and the names of the store's temporary files).
func ValidKey(key string) bool {
	if key == "" || len(key) > maxKeyLen {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg[0] == '.' {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
			if !ok {
				return false
			}
		}
	}
	return true
}

// LocalBlobs keeps blobs as files below a directory: the blob under "a/b" is the file DIR/a/b. Writes go
// to a temporary file in the destination's directory that is synced and then renamed over the key, so a
// crash never leaves a partial blob under a key; it may leave a temporary file (named .tmp-*), which no
// key can name.
type LocalBlobs struct {
	dir string
}

// NewLocalBlobs returns the store rooted at dir. Directories are created when the first blob is written.
func NewLocalBlobs(dir string) *LocalBlobs { return &LocalBlobs{dir: dir} }

// Dir is the store's root directory.
func (b *LocalBlobs) Dir() string { return b.dir }

// path is the file of key, or an error when key is invalid.
func (b *LocalBlobs) path(key string) (string, error) {
	if !ValidKey(key) {
		return "", fmt.Errorf("invalid blob key %q", key)
	}
	return filepath.Join(b.dir, filepath.FromSlash(key)), nil
}

// Put implements Blobs.
func (b *LocalBlobs) Put(ctx context.Context, key string, r io.Reader) (int64, string, error) {
	dst, err := b.path(key)
	if err != nil {
		return 0, "", err
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return 0, "", fmt.Errorf("create blob directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return 0, "", fmt.Errorf("create temporary blob: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), &ctxReader{ctx: ctx, r: r})
	if err != nil {
		return 0, "", fmt.Errorf("write blob %s: %w", key, err)
	}
	if err := tmp.Sync(); err != nil {
		return 0, "", fmt.Errorf("sync blob %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return 0, "", fmt.Errorf("close blob %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return 0, "", fmt.Errorf("commit blob %s: %w", key, err)
	}
	committed = true
	// The rename is durable once the directory is synced; a failure here leaves a complete blob.
	if err := syncDir(dir); err != nil {
		return 0, "", fmt.Errorf("sync blob directory: %w", err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Open implements Blobs. The returned reader is an *os.File, which also answers Stat.
func (b *LocalBlobs) Open(_ context.Context, key string) (io.ReadCloser, error) {
	p, err := b.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open blob %s: %w", key, ErrBlobNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open blob %s: %w", key, err)
	}
	return f, nil
}

// Delete implements Blobs.
func (b *LocalBlobs) Delete(_ context.Context, key string) error {
	p, err := b.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

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

// DefaultDir is where LocalBlobs keep artifacts unless configured otherwise: below the dev data
// directory.
const DefaultDir = ".data/artifacts"
