package blob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Bucket is a Store on a gocloud.dev bucket (S3-compatible or GCS; see Open). Its writes are atomic the
// way the services' are: an object appears whole when its upload completes, and a write whose reader fails
// is aborted, so nothing is visible under its key.
type Bucket struct {
	b *gcblob.Bucket
}

// NewBucket returns the Store on b; Close closes b.
func NewBucket(b *gcblob.Bucket) *Bucket { return &Bucket{b: b} }

// Close releases the bucket's resources.
func (s *Bucket) Close() error {
	if err := s.b.Close(); err != nil {
		return fmt.Errorf("close blob bucket: %w", err)
	}
	return nil
}

// Put implements Store.
func (s *Bucket) Put(ctx context.Context, key string, r io.Reader) (int64, string, error) {
	if err := checkKey(key); err != nil {
		return 0, "", err
	}
	// Cancelling the writer's context before Close aborts the upload: nothing is written.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.b.NewWriter(wctx, key, &gcblob.WriterOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return 0, "", fmt.Errorf("write blob %s: %w", key, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), &ctxReader{ctx: ctx, r: r})
	if err != nil {
		cancel()
		_ = w.Close()
		return 0, "", fmt.Errorf("write blob %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return 0, "", fmt.Errorf("commit blob %s: %w", key, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Open implements Store.
func (s *Bucket) Open(ctx context.Context, key string) (Reader, error) {
	return s.OpenRange(ctx, key, 0, -1)
}

// OpenRange implements Store.
func (s *Bucket) OpenRange(ctx context.Context, key string, offset, length int64) (Reader, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if length == 0 {
		// Services answer an empty range as unsatisfiable; an empty read needs only the size.
		info, err := s.Stat(ctx, key)
		if err != nil {
			return nil, err
		}
		return &emptyReader{size: info.Size}, nil
	}
	if length < 0 {
		length = -1
	}
	r, err := s.b.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, fmt.Errorf("open blob %s: %w", key, bucketErr(err))
	}
	return r, nil
}

// emptyReader reads nothing from a blob of size bytes.
type emptyReader struct{ size int64 }

func (*emptyReader) Read([]byte) (int, error) { return 0, io.EOF }
func (*emptyReader) Close() error             { return nil }
func (e *emptyReader) Size() int64            { return e.size }

// Stat implements Store.
func (s *Bucket) Stat(ctx context.Context, key string) (Info, error) {
	if err := checkKey(key); err != nil {
		return Info{}, err
	}
	a, err := s.b.Attributes(ctx, key)
	if err != nil {
		return Info{}, fmt.Errorf("stat blob %s: %w", key, bucketErr(err))
	}
	return Info{Key: key, Size: a.Size, ModTime: a.ModTime}, nil
}

// List implements Store.
func (s *Bucket) List(ctx context.Context, prefix string, fn func(Info) error) error {
	it := s.b.List(&gcblob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list blobs %q: %w", prefix, err)
		}
		if obj.IsDir || !ValidKey(obj.Key) {
			continue
		}
		if err := fn(Info{Key: obj.Key, Size: obj.Size, ModTime: obj.ModTime}); err != nil {
			return err
		}
	}
}

// Delete implements Store.
func (s *Bucket) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := s.b.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	return nil
}

// bucketErr maps the bucket's not-found to ErrNotFound, keeping its message.
func bucketErr(err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	return err
}
