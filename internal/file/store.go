package file

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// DefaultPurgeAfter is how long a deleted file waits before its purge (seed 002: 24 hours).
const DefaultPurgeAfter = 24 * time.Hour

// Options tune a Store; zero fields take their defaults.
type Options struct {
	// Tiers are the storage limits per account tier (DefaultTiers when nil).
	Tiers Tiers
	// ReservationTTL is how long a reservation is held before the sweep releases it (one hour).
	ReservationTTL time.Duration
	// PurgeAfter is the delay between a soft delete and the purge (DefaultPurgeAfter).
	PurgeAfter time.Duration
	// Now is the clock (time.Now).
	Now func() time.Time
}

// Store keeps file rows and the storage accounting of migration 0018.
type Store struct {
	db             bun.IDB
	tiers          Tiers
	reservationTTL time.Duration
	purgeAfter     time.Duration
	now            func() time.Time
}

// NewStore returns a Store on db.
func NewStore(db bun.IDB, opts Options) *Store {
	s := &Store{db: db, tiers: opts.Tiers, reservationTTL: opts.ReservationTTL, purgeAfter: opts.PurgeAfter, now: opts.Now}
	if s.tiers == nil {
		s.tiers = DefaultTiers()
	}
	if s.reservationTTL <= 0 {
		s.reservationTTL = expiry
	}
	if s.purgeAfter <= 0 {
		s.purgeAfter = DefaultPurgeAfter
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// NewFile is what Create records: a file whose bytes are already in the blob store under BlobKey.
type NewFile struct {
	// ID is the file id (file_...); derive it from the request's idempotency key so a replay finds the
	// file its first attempt created.
	ID string
	// Scope is the uploader's account and project; KeyID the uploading key (nil for the platform).
	Scope tenant.Scope
	KeyID *string
	// Name, MediaType and Purpose are the upload's X-File-Name, Content-Type and X-Svc-File-Purpose.
	Name      string
	MediaType string
	Purpose   string
	// Bytes and SHA256 are what the blob store measured while writing the bytes.
	Bytes   int64
	SHA256  string
	BlobKey string
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Validate checks a new file's fields (see ValidateNameFor for the name's rules).
func (n NewFile) Validate() error {
	if err := ValidateNameFor(n.Purpose, n.Name); err != nil {
		return err
	}
	if err := ValidateMediaType(n.MediaType); err != nil {
		return err
	}
	if err := ValidatePurpose(n.Purpose); err != nil {
		return err
	}
	switch {
	case !ids.HasPrefix(n.ID, ids.File):
		return fmt.Errorf("create file: id %q lacks the %s_ prefix", n.ID, ids.File)
	case n.Bytes < 0 || !sha256Hex.MatchString(n.SHA256) || n.BlobKey == "":
		return fmt.Errorf("create file %s: size, sha256 or blob key missing", n.ID)
	}
	return nil
}

// Create settles the reservation into the file's row in one transaction: the reservation is deleted
// and the file's bytes move from reserved to used. It answers the row and whether this call created it;
// when a row with the id exists (a replay), that row is answered, the reservation is released, and the
// caller should delete its own blob. A file larger than its reservation, or a reservation no longer
// held (released or expired), is an error and nothing is recorded: release, and drop the blob.
func (s *Store) Create(ctx context.Context, r Reservation, n NewFile) (*schema.File, bool, error) {
	if n.MediaType == "" {
		n.MediaType = DefaultMediaType
	}
	if err := n.Validate(); err != nil {
		return nil, false, err
	}
	if r.AccountID != n.Scope.AccountID || n.Bytes > r.Bytes {
		return nil, false, fmt.Errorf("create file %s: %d bytes do not fit reservation %s of %d bytes", n.ID, n.Bytes, r.ID, r.Bytes)
	}
	f := &schema.File{ID: n.ID, AccountID: n.Scope.AccountID, ProjectID: n.Scope.ProjectID, KeyID: n.KeyID, Name: n.Name,
		MediaType: n.MediaType, Bytes: n.Bytes, SHA256: n.SHA256, Purpose: n.Purpose, BlobKey: n.BlobKey}
	var created bool
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		held, err := s.takeReservation(ctx, tx, r)
		if err != nil {
			return err
		}
		if held < 0 {
			return fmt.Errorf("create file %s: reservation %s is no longer held", n.ID, r.ID)
		}
		res, err := tx.NewInsert().Model(f).On("CONFLICT (id) DO NOTHING").Returning("status, created_at").Exec(ctx)
		if err != nil {
			return fmt.Errorf("record file %s: %w", n.ID, err)
		}
		if inserted, _ := res.RowsAffected(); inserted == 0 {
			return nil
		}
		created = true
		if err := addUsage(ctx, tx, n.Scope.AccountID, n.Bytes, 0); err != nil {
			return err
		}
		return outbox.Emit(ctx, tx, event(outbox.FileCreated, f))
	})
	if err != nil {
		return nil, false, err
	}
	if created {
		return f, true, nil
	}
	return s.replayed(ctx, n)
}

// replayed answers the existing row of a replayed create, refusing an id of another account.
func (s *Store) replayed(ctx context.Context, n NewFile) (*schema.File, bool, error) {
	existing := new(schema.File)
	if err := s.db.NewSelect().Model(existing).Where("id = ?", n.ID).Scan(ctx); err != nil {
		return nil, false, fmt.Errorf("read file %s: %w", n.ID, err)
	}
	if existing.AccountID != n.Scope.AccountID {
		return nil, false, fmt.Errorf("create file %s: the id belongs to another account", n.ID)
	}
	return existing, false, nil
}

// Get returns the live file with the id in the scope; not_found for a deleted file and for one of
// another account or project.
func (s *Store) Get(ctx context.Context, scope tenant.Scope, id string) (*schema.File, error) {
	f := new(schema.File)
	err := scope.Where(s.db.NewSelect().Model(f)).Where("id = ? AND status = ?", id, schema.FileActive).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("no file %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read file %s: %w", id, err)
	}
	return f, nil
}

// Filter selects the files List returns; empty fields match every file.
type Filter struct {
	// Purpose keeps the files of exactly this purpose.
	Purpose string
	// NamePrefix keeps the files whose name starts with it.
	NamePrefix string
}

// List returns the scope's live files matching f, newest first, a page at a time, and the cursor of the
// next page (nil on the last).
func (s *Store) List(ctx context.Context, scope tenant.Scope, f Filter, p page.Params) ([]schema.File, *string, error) {
	out := []schema.File{}
	q := scope.Where(s.db.NewSelect().Model(&out)).Where("status = ?", schema.FileActive)
	if f.Purpose != "" {
		q = q.Where("purpose = ?", f.Purpose)
	}
	if f.NamePrefix != "" {
		q = q.Where(`name LIKE ? ESCAPE '\'`, likePrefix(f.NamePrefix))
	}
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1)).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list files: %w", err)
	}
	out, next := page.Next(p, out, func(f schema.File) page.Cursor { return page.Cursor{CreatedAt: f.CreatedAt, ID: f.ID} })
	return out, next, nil
}

// likePrefix is a LIKE pattern matching strings that start with prefix, its wildcards escaped.
func likePrefix(prefix string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(prefix) + "%"
}

// Delete soft-deletes the live file with the id in the scope: in one transaction it leaves listings and
// reads (status deleted, purge_at set PurgeAfter from now) and its bytes stop counting against the
// account's storage. It answers the deleted row (start the purge timer for PurgeAt); not_found for a file
// already deleted or of another scope.
func (s *Store) Delete(ctx context.Context, scope tenant.Scope, id string) (*schema.File, error) {
	f := new(schema.File)
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := s.lockUsage(ctx, tx, scope.AccountID); err != nil {
			return err
		}
		now := s.now().UTC()
		q := tx.NewUpdate().Model(f).Set("status = ?", schema.FileDeleted).Set("deleted_at = ?", now).
			Set("purge_at = ?", now.Add(s.purgeAfter)).
			Where("id = ? AND status = ? AND account_id = ?", id, schema.FileActive, scope.AccountID)
		if scope.ProjectID == nil {
			q = q.Where("project_id IS NULL")
		} else {
			q = q.Where("project_id = ?", *scope.ProjectID)
		}
		if err := q.Returning("*").Scan(ctx); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return svcerr.NotFoundf("no file %q", id)
			}
			return fmt.Errorf("delete file %s: %w", id, err)
		}
		if err := addUsage(ctx, tx, scope.AccountID, -f.Bytes, 0); err != nil {
			return err
		}
		return outbox.Emit(ctx, tx, event(outbox.FileDeleted, f))
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Purge removes a deleted file's row for good and answers it, so the caller deletes its blob (BlobKey).
// It is idempotent for the purge timer: a file already purged, or not deleted, answers nil and is left.
func (s *Store) Purge(ctx context.Context, id string) (*schema.File, error) {
	f := new(schema.File)
	err := s.db.NewDelete().Model(f).Where("id = ? AND status = ?", id, schema.FileDeleted).Returning("*").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("purge file %s: %w", id, err)
	}
	return f, nil
}

// event is the outbox event of type about the file, recorded in the transaction that makes it happen.
func event(typ string, f *schema.File) outbox.Event {
	return outbox.Event{AccountID: f.AccountID, ProjectID: f.ProjectID, Type: typ, Subject: f.ID, Data: ToWire(f)}
}
