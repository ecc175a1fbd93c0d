package blob

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Prefixed is a view of a Store below a key prefix: its key "k" is the store's "PREFIX/k". Capabilities
// keep their blobs in their own view (run artifacts under "artifacts/"), so one store holds them all and
// a sweep of one capability's orphans lists only its own keys.
type Prefixed struct {
	s      Store
	prefix string
}

// WithPrefix returns the view of s below dir, a valid key such as "artifacts" (a trailing '/' is
// optional); it panics on an invalid dir, a programming error.
func WithPrefix(s Store, dir string) *Prefixed {
	dir = strings.TrimSuffix(dir, "/")
	if !ValidKey(dir) {
		panic(fmt.Sprintf("blob.WithPrefix: invalid prefix %q", dir))
	}
	return &Prefixed{s: s, prefix: dir + "/"}
}

// Put implements Store.
func (p *Prefixed) Put(ctx context.Context, key string, r io.Reader) (int64, string, error) {
	if err := checkKey(key); err != nil {
		return 0, "", err
	}
	return p.s.Put(ctx, p.prefix+key, r)
}

// Open implements Store.
func (p *Prefixed) Open(ctx context.Context, key string) (Reader, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	return p.s.Open(ctx, p.prefix+key)
}

// OpenRange implements Store.
func (p *Prefixed) OpenRange(ctx context.Context, key string, offset, length int64) (Reader, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	return p.s.OpenRange(ctx, p.prefix+key, offset, length)
}

// Stat implements Store.
func (p *Prefixed) Stat(ctx context.Context, key string) (Info, error) {
	if err := checkKey(key); err != nil {
		return Info{}, err
	}
	info, err := p.s.Stat(ctx, p.prefix+key)
	info.Key = key
	return info, err
}

// List implements Store; the keys it reports are relative to the view.
func (p *Prefixed) List(ctx context.Context, prefix string, fn func(Info) error) error {
	return p.s.List(ctx, p.prefix+prefix, func(info Info) error {
		info.Key = strings.TrimPrefix(info.Key, p.prefix)
		return fn(info)
	})
}

// Delete implements Store.
func (p *Prefixed) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return p.s.Delete(ctx, p.prefix+key)
}
