package vault

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Options configure a Vault. The zero value is ready.
type Options struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Random supplies transfer id suffixes (default crypto/rand).
	Random io.Reader
}

// Vault is one local copy of a synced vault folder. It is safe for concurrent use.
type Vault struct {
	root   string
	now    func() time.Time
	random io.Reader
	// digests caches verified payload digests by file identity (see verifyCache).
	digests verifyCache
	// beforeManifest, when set by a test, runs after the payload files and before the manifest.
	beforeManifest func() error
}

// Open returns the vault rooted at dir, which must be an existing directory; it is made absolute.
func Open(dir string, opts Options) (*Vault, error) {
	if dir == "" {
		return nil, fmt.Errorf("open vault: no vault directory given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open vault %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open vault: %s is not a directory", abs)
	}
	v := &Vault{root: abs, now: opts.Now, random: opts.Random}
	if v.now == nil {
		v.now = time.Now
	}
	if v.random == nil {
		v.random = randReader
	}
	v.digests.entries = map[string]cachedDigest{}
	return v, nil
}

// Root is the vault's absolute directory.
func (v *Vault) Root() string { return v.root }

// transferDir is the absolute directory of a transfer.
func (v *Vault) transferDir(id string) string { return filepath.Join(v.root, TransfersDir, id) }

// verifyCache remembers the SHA-256 of payload files already hashed, keyed by path and checked against
// size, modification time and inode, so polling an inbox does not rehash unchanged files.
type verifyCache struct {
	mu      sync.Mutex
	entries map[string]cachedDigest
}

type cachedDigest struct {
	size    int64
	modTime time.Time
	ino     uint64
	sha256  string
}

func (c *verifyCache) get(path string, fi os.FileInfo) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[path]
	if !ok || e.size != fi.Size() || !e.modTime.Equal(fi.ModTime()) || e.ino != inode(fi) {
		return "", false
	}
	return e.sha256, true
}

func (c *verifyCache) put(path string, fi os.FileInfo, sum string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[path] = cachedDigest{size: fi.Size(), modTime: fi.ModTime(), ino: inode(fi), sha256: sum}
}
