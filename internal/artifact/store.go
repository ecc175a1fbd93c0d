package artifact

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// DefaultMaxBytes is the default cap on one artifact's size: 100 MiB.
const DefaultMaxBytes int64 = 100 << 20

// DefaultContentType is the content type of an artifact saved without one.
const DefaultContentType = "application/octet-stream"

// MaxNameLen bounds an artifact's name, in bytes.
const MaxNameLen = 255

// Options tune a Store.
type Options struct {
	// MaxBytes caps one artifact's size (DefaultMaxBytes when zero or negative).
	MaxBytes int64
	// Now is the clock of the orphan sweep (time.Now).
	Now func() time.Time
}

// Store saves and reads artifacts: metadata in the artifacts table, bytes in its blob store.
type Store struct {
	db       bun.IDB
	blobs    blob.Store
	maxBytes int64
	now      func() time.Time
}

// NewStore returns a Store on db keeping bytes in blobs.
func NewStore(db bun.IDB, blobs blob.Store, opts Options) *Store {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{db: db, blobs: blobs, maxBytes: opts.MaxBytes, now: opts.Now}
}

// MaxBytes is the size cap of one artifact.
func (s *Store) MaxBytes() int64 { return s.maxBytes }

// NewArtifact is what Save stores.
type NewArtifact struct {
	// ID is the artifact id (art_...). Derive it from the run, e.g. ids.Derive(ids.Artifact, runID, name),
	// so a retried save finds the artifact its first attempt stored.
	ID string
	// AccountID and ProjectID are the run's scope.
	AccountID string
	ProjectID *string
	// RunID is the run that produced the artifact; ServiceID is the run's service, whose access reading
	// the artifact requires.
	RunID     string
	ServiceID string
	// Name is a file name: 1..255 bytes of text without control characters, '/' or '\', and not "." or "..".
	Name string
	// ContentType is a media type (DefaultContentType when empty).
	ContentType string
	// Body yields the bytes; Save reads it to the end (or until the size cap is passed).
	Body io.Reader
}

// errTooLarge marks a body that passed the size cap.
var errTooLarge = errors.New("artifact exceeds the size cap")

// Save stores an artifact and answers its row. It is idempotent by ID: when a row with the id exists,
// it is answered as it is and Body is not read, so no second blob is written. A body larger than the
// size cap answers payload_too_large and stores nothing. The blob is written before the row, under a key
// unique to the attempt; a crash in between leaves an unreferenced blob, never a row without its bytes.
func (s *Store) Save(ctx context.Context, n NewArtifact) (*schema.Artifact, error) {
	if err := n.validate(); err != nil {
		return nil, err
	}
	if a, err := s.byID(ctx, n.ID); err == nil {
		return a, sameArtifact(a, n)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	key := blobKey(n.AccountID, n.ID)
	size, sum, err := s.blobs.Put(ctx, key, &capReader{r: n.Body, left: s.maxBytes})
	if errors.Is(err, errTooLarge) {
		return nil, svcerr.New(svcerr.PayloadTooLarge, "artifact %q is larger than %d bytes", n.Name, s.maxBytes).
			WithDetails("maxBytes", s.maxBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("save artifact %s: %w", n.ID, err)
	}
	ct := n.ContentType
	if ct == "" {
		ct = DefaultContentType
	}
	a := &schema.Artifact{ID: n.ID, AccountID: n.AccountID, ProjectID: n.ProjectID, RunID: n.RunID, ServiceID: n.ServiceID,
		Name: n.Name, ContentType: ct, SizeBytes: size, SHA256: sum, BlobKey: key}
	res, err := s.db.NewInsert().Model(a).On("CONFLICT (id) DO NOTHING").Returning("created_at").Exec(ctx)
	if err != nil {
		s.dropBlob(key)
		return nil, fmt.Errorf("record artifact %s: %w", n.ID, err)
	}
	if inserted, _ := res.RowsAffected(); inserted == 0 {
		// A concurrent save of the same id won: answer its row, and drop this attempt's blob.
		s.dropBlob(key)
		existing, err := s.byID(ctx, n.ID)
		if err != nil {
			return nil, fmt.Errorf("read artifact %s: %w", n.ID, err)
		}
		return existing, sameArtifact(existing, n)
	}
	return a, nil
}

// dropBlob deletes a blob no row refers to; a failure only leaves an unreferenced blob behind.
func (s *Store) dropBlob(key string) {
	_ = s.blobs.Delete(context.Background(), key)
}

// sameArtifact refuses an id that names an artifact of another account or run: ids derived from the run
// cannot collide, so this is a caller's bug, not a retry.
func sameArtifact(a *schema.Artifact, n NewArtifact) error {
	if a.AccountID != n.AccountID || a.RunID != n.RunID {
		return fmt.Errorf("save artifact %s: the id belongs to another account or run", n.ID)
	}
	return nil
}

// blobKey is the blob key of one save attempt of an artifact: unique per attempt, so concurrent saves of
// one id never write over each other's bytes.
func blobKey(accountID, artifactID string) string {
	return accountID + "/" + artifactID + "." + strings.ToLower(rand.Text())
}

func (n NewArtifact) validate() error {
	switch {
	case !ids.HasPrefix(n.ID, ids.Artifact):
		return fmt.Errorf("save artifact: id %q lacks the %s_ prefix", n.ID, ids.Artifact)
	case !blob.ValidKey(n.AccountID) || !blob.ValidKey(n.ID):
		return fmt.Errorf("save artifact: account %q or id %q has characters ids never have", n.AccountID, n.ID)
	case n.RunID == "":
		return errors.New("save artifact: the run id is empty")
	case n.ServiceID == "":
		return errors.New("save artifact: the service id is empty")
	case n.Body == nil:
		return errors.New("save artifact: the body is nil")
	}
	if err := ValidateName(n.Name); err != nil {
		return err
	}
	if len(n.ContentType) > 255 || strings.ContainsFunc(n.ContentType, isControl) {
		return svcerr.Invalid("contentType", "contentType must be a media type of at most 255 characters")
	}
	return nil
}

// ValidateName checks an artifact name: 1..255 bytes of valid UTF-8 without control characters, '/' or
// '\', and neither "." nor "..", so it is safe as a file name in any directory.
func ValidateName(name string) error {
	switch {
	case name == "" || len(name) > MaxNameLen:
		return svcerr.Invalid("name", "an artifact name has 1 to %d bytes", MaxNameLen)
	case !utf8.ValidString(name) || strings.ContainsFunc(name, isControl) || strings.ContainsAny(name, `/\`):
		return svcerr.Invalid("name", "an artifact name is text without control characters, '/' or '\\'")
	case name == "." || name == "..":
		return svcerr.Invalid("name", "an artifact name cannot be %q", name)
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// capReader fails with errTooLarge once more than left bytes are read.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1] // one byte beyond the cap is enough to know it is passed
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, errTooLarge
	}
	return n, err
}

// byID reads the row with the id in any scope, for Save's idempotency.
func (s *Store) byID(ctx context.Context, id string) (*schema.Artifact, error) {
	a := new(schema.Artifact)
	if err := s.db.NewSelect().Model(a).Where("id = ?", id).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("read artifact %s: %w", id, err)
	}
	return a, nil
}

// Get returns the artifact with the id in the scope, or not_found (also for another scope's artifact).
func (s *Store) Get(ctx context.Context, scope tenant.Scope, id string) (*schema.Artifact, error) {
	a := new(schema.Artifact)
	err := scope.Where(s.db.NewSelect().Model(a)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("no artifact %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read artifact %s: %w", id, err)
	}
	return a, nil
}

// ToWire converts an artifact to the API's shape.
func ToWire(a *schema.Artifact) client.Artifact {
	return client.Artifact{ID: a.ID, RunID: a.RunID, ServiceID: a.ServiceID, Name: a.Name, ContentType: a.ContentType,
		SizeBytes: a.SizeBytes, SHA256: a.SHA256, CreatedAt: a.CreatedAt.UTC()}
}

// Filter selects the artifacts List returns. Empty fields match every artifact.
type Filter struct {
	// RunID keeps only the artifacts of this run.
	RunID string
	// Services, when not nil, keeps only artifacts of these services (those a key may use); an empty
	// non-nil list matches none.
	Services []string
}

// List returns the scope's artifacts matching f, newest first, one page at a time, and the cursor of the
// next page (nil on the last page).
func (s *Store) List(ctx context.Context, scope tenant.Scope, f Filter, p page.Params) ([]schema.Artifact, *string, error) {
	out := []schema.Artifact{}
	if f.Services != nil && len(f.Services) == 0 {
		return out, nil, nil
	}
	q := scope.Where(s.db.NewSelect().Model(&out))
	if f.RunID != "" {
		q = q.Where("run_id = ?", f.RunID)
	}
	if f.Services != nil {
		q = q.Where("service_id IN (?)", bun.List(f.Services))
	}
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1)).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list artifacts: %w", err)
	}
	out, next := page.Next(p, out, func(a schema.Artifact) page.Cursor { return page.Cursor{CreatedAt: a.CreatedAt, ID: a.ID} })
	return out, next, nil
}

// Open returns the bytes of an artifact. A blob whose size differs from the recorded one is refused before
// any byte is read; the caller should still check the SHA-256 of what it reads against a.SHA256 (see
// HashingReader). A missing blob answers an error matching blob.ErrNotFound.
func (s *Store) Open(ctx context.Context, a *schema.Artifact) (io.ReadCloser, error) {
	rc, err := s.blobs.Open(ctx, a.BlobKey)
	if err != nil {
		return nil, fmt.Errorf("open artifact %s: %w", a.ID, err)
	}
	if rc.Size() != a.SizeBytes {
		_ = rc.Close()
		return nil, fmt.Errorf("open artifact %s: the blob has %d bytes, %d were recorded", a.ID, rc.Size(), a.SizeBytes)
	}
	return rc, nil
}
