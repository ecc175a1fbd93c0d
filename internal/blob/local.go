package blob

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
	"strings"
	"syscall"
)

// Local keeps blobs as files below a directory: the blob under "a/b" is the file DIR/a/b. Writes go to a
// temporary file in the destination's directory (so on the same file system) that is synced and then
// renamed over the key, and the directory is synced after the rename, so a crash never leaves a partial
// blob under a key; it may leave a temporary file (named .tmp-*), which no key can name, List skips and
// RemoveStaleTemp removes.
type Local struct {
	dir string
}

// NewLocal returns the store rooted at dir. Directories are created when the first blob is written.
func NewLocal(dir string) *Local { return &Local{dir: dir} }

// Dir is the store's root directory.
func (l *Local) Dir() string { return l.dir }

// path is the file of key, or an error when key is invalid.
func (l *Local) path(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.dir, filepath.FromSlash(key)), nil
}

// Put implements Store.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) (int64, string, error) {
	dst, err := l.path(key)
	if err != nil {
		return 0, "", err
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return 0, "", fmt.Errorf("create blob directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, tempPrefix+"*")
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
	n, sum, err := writeSynced(ctx, tmp, r)
	if err != nil {
		return 0, "", fmt.Errorf("write blob %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return 0, "", fmt.Errorf("commit blob %s: %w", key, err)
	}
	committed = true
	// The rename is durable once the directory is synced; a failure here leaves a complete blob.
	if err := syncDir(dir); err != nil {
		return 0, "", fmt.Errorf("sync blob directory: %w", err)
	}
	return n, sum, nil
}

// writeSynced copies r into f while hashing it, then syncs and closes f.
func writeSynced(ctx context.Context, f *os.File, r io.Reader) (int64, string, error) {
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), &ctxReader{ctx: ctx, r: r})
	if err != nil {
		return 0, "", err
	}
	if err := f.Sync(); err != nil {
		return 0, "", fmt.Errorf("sync: %w", err)
	}
	if err := f.Close(); err != nil {
		return 0, "", fmt.Errorf("close: %w", err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Open implements Store.
func (l *Local) Open(ctx context.Context, key string) (Reader, error) {
	return l.OpenRange(ctx, key, 0, -1)
}

// OpenRange implements Store.
func (l *Local) OpenRange(_ context.Context, key string, offset, length int64) (Reader, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open blob %s: %w", key, notFound(err))
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open blob %s: %w", key, err)
	}
	if !info.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("open blob %s: %w", key, ErrNotFound) // a directory is a prefix, not a blob
	}
	size := info.Size()
	if offset < 0 || offset > size {
		_ = f.Close()
		return nil, fmt.Errorf("open blob %s: offset %d outside its %d bytes", key, offset, size)
	}
	if length < 0 || offset+length > size {
		length = size - offset
	}
	return &fileReader{Reader: io.NewSectionReader(f, offset, length), f: f, size: size}, nil
}

// fileReader reads a section of an open file.
type fileReader struct {
	io.Reader
	f    *os.File
	size int64
}

func (r *fileReader) Close() error { return r.f.Close() }
func (r *fileReader) Size() int64  { return r.size }

// Stat implements Store.
func (l *Local) Stat(_ context.Context, key string) (Info, error) {
	p, err := l.path(key)
	if err != nil {
		return Info{}, err
	}
	fi, err := os.Stat(p)
	if err == nil && !fi.Mode().IsRegular() {
		err = fs.ErrNotExist // a directory is a prefix of keys, not a blob
	}
	if err != nil {
		return Info{}, fmt.Errorf("stat blob %s: %w", key, notFound(err))
	}
	return Info{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

// List implements Store. It walks only the directory the prefix's complete segments name.
func (l *Local) List(_ context.Context, prefix string, fn func(Info) error) error {
	start := l.dir
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		if !ValidKey(prefix[:i]) {
			return fmt.Errorf("list blobs: invalid prefix %q", prefix)
		}
		start = filepath.Join(l.dir, filepath.FromSlash(prefix[:i]))
	}
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // nothing under the prefix, or a blob deleted during the walk
			}
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != start {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // a temporary file
		}
		return l.visit(p, d, prefix, fn)
	})
	if err != nil {
		return fmt.Errorf("list blobs %q: %w", prefix, err)
	}
	return nil
}

// visit calls fn with the blob at path p when it is a regular file whose key starts with prefix.
func (l *Local) visit(p string, d fs.DirEntry, prefix string, fn func(Info) error) error {
	if !d.Type().IsRegular() {
		return nil
	}
	rel, err := filepath.Rel(l.dir, p)
	if err != nil {
		return err
	}
	key := filepath.ToSlash(rel)
	if !strings.HasPrefix(key, prefix) || !ValidKey(key) {
		return nil
	}
	fi, err := d.Info()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return fn(Info{Key: key, Size: fi.Size(), ModTime: fi.ModTime()})
}

// Delete implements Store.
func (l *Local) Delete(_ context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	return nil
}

// notFound maps a missing file to ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return ErrNotFound
	}
	return err
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
