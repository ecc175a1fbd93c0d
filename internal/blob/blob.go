// Package blob is the one store of every byte the platform keeps (run artifacts, project files and what
// later capabilities build on them): opaque byte streams under keys, in a local directory in dev and in
// an S3-compatible or GCS bucket in production, selected by URL (see Open).
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	gcblob "gocloud.dev/blob"
	// The drivers of the schemes Open accepts besides file://.
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
)

// Store keeps opaque byte streams under keys. Keys are relative, slash-separated paths whose segments are
// made of letters, digits, '_', '-' and '.' and do not start with '.' (see ValidKey); every method refuses
// another key, so no key can leave a store's root or name its temporary files.
type Store interface {
	// Put stores everything r yields under key, replacing what was there, and returns its size and the
	// hex SHA-256 of its bytes, computed while the bytes stream. It is atomic: when it fails (r fails, ctx
	// ends, the disk is full, the process dies) nothing new is visible under key. A failure of r is
	// returned wrapped.
	Put(ctx context.Context, key string, r io.Reader) (size int64, sha256hex string, err error)
	// Open returns all the bytes stored under key. A key holding nothing answers an error matching
	// ErrNotFound.
	Open(ctx context.Context, key string) (Reader, error)
	// OpenRange returns length bytes from offset of the blob under key (up to its end when length is
	// negative or runs past the end), for HTTP Range reads. The offset must lie within the blob.
	OpenRange(ctx context.Context, key string, offset, length int64) (Reader, error)
	// Stat describes the blob under key, or answers an error matching ErrNotFound.
	Stat(ctx context.Context, key string) (Info, error)
	// List calls fn with every blob whose key starts with prefix ("" for all), in no promised order,
	// and stops at fn's first error, which it returns.
	List(ctx context.Context, prefix string, fn func(Info) error) error
	// Delete removes what is stored under key; a key holding nothing is not an error.
	Delete(ctx context.Context, key string) error
}

// Reader yields the bytes of one blob (or of a range of it).
type Reader interface {
	io.ReadCloser
	// Size is the size of the whole blob, whatever range is read, so a reader can check it against a
	// recorded size before serving a byte.
	Size() int64
}

// Info describes a stored blob.
type Info struct {
	// Key is the blob's key (relative to the store or view it was listed from).
	Key string
	// Size is its size in bytes.
	Size int64
	// ModTime is when it was last written, for sweeps of blobs no row refers to.
	ModTime time.Time
}

// ErrNotFound is what Open, OpenRange and Stat answer for a key that holds nothing.
var ErrNotFound = errors.New("blob not found")

// maxKeyLen bounds a key, well below any file system's path limits and S3's 1024 bytes.
const maxKeyLen = 512

// ValidKey reports whether key is a valid blob key: 1..512 bytes of slash-separated segments, each
// non-empty, made of ASCII letters, digits, '_', '-' and '.', and not starting with '.' (which excludes
// "." and "..", and the names of the local store's temporary files).
func ValidKey(key string) bool {
	if key == "" || len(key) > maxKeyLen {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if !validSegment(seg) {
			return false
		}
	}
	return true
}

func validSegment(seg string) bool {
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
	return true
}

// checkKey answers an error naming key when it is invalid.
func checkKey(key string) error {
	if !ValidKey(key) {
		return fmt.Errorf("invalid blob key %q", key)
	}
	return nil
}

// Open opens the store a URL names:
//
//   - file:///abs/dir (or file:rel/dir): a local directory (see Local);
//   - s3://bucket?region=R&endpoint=https://host&use_path_style=true: Amazon S3 or any S3-compatible
//     server, credentials from the AWS default chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, ...);
//   - gs://bucket: Google Cloud Storage, credentials from Application Default Credentials.
//
// A bucket's query parameters are those of gocloud.dev/blob/s3blob and gcsblob.
func Open(ctx context.Context, rawURL string) (Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob store URL: %w", err)
	}
	switch u.Scheme {
	case "file":
		dir := u.Path
		if u.Opaque != "" {
			dir = u.Opaque
		}
		if dir == "" || u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("blob store URL %q: want file:///absolute/dir or file:relative/dir", rawURL)
		}
		return NewLocal(dir), nil
	case "s3", "gs":
		b, err := gcblob.OpenBucket(ctx, rawURL)
		if err != nil {
			return nil, fmt.Errorf("open blob bucket %s://%s: %w", u.Scheme, u.Host, err)
		}
		return NewBucket(b), nil
	default:
		return nil, fmt.Errorf("blob store URL %q: the scheme must be file, s3 or gs", rawURL)
	}
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
