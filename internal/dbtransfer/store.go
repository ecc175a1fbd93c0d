// Package dbtransfer moves portable copies of accounts' managed databases in and out (seed 000's
// database transfers): an export writes a signed ZIP archive (internal/dbarchive) into the blob store; an
// import receives an archive as numbered parts, and once its part list is closed the parts, concatenated,
// are verified and restored into the account's database in one transaction. Each transfer is run by the
// workflow dbtransfer/<id>; this package holds its rows, its blobs and the work of its activities.
package dbtransfer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Defaults of Options.
const (
	// DefaultPartMaxBytes caps one part of an import.
	DefaultPartMaxBytes = 256 << 20
	// DefaultArchiveMaxBytes caps an import's parts together.
	DefaultArchiveMaxBytes = 16 << 30
	// DefaultAwaitParts is how long an import waits for its part list to close before it expires.
	DefaultAwaitParts = 24 * time.Hour
	// DefaultKeepArchive is how long a completed export's archive stays downloadable.
	DefaultKeepArchive = 24 * time.Hour
)

// Options tune transfers; zero fields take the defaults above.
type Options struct {
	PartMaxBytes    int64
	ArchiveMaxBytes int64
	AwaitParts      time.Duration
	KeepArchive     time.Duration
}

func (o Options) withDefaults() Options {
	if o.PartMaxBytes <= 0 {
		o.PartMaxBytes = DefaultPartMaxBytes
	}
	if o.ArchiveMaxBytes <= 0 {
		o.ArchiveMaxBytes = DefaultArchiveMaxBytes
	}
	if o.AwaitParts <= 0 {
		o.AwaitParts = DefaultAwaitParts
	}
	if o.KeepArchive <= 0 {
		o.KeepArchive = DefaultKeepArchive
	}
	return o
}

// Store keeps transfers' rows in the platform database and their bytes in a blob store (the platform's,
// below its transfers prefix).
type Store struct {
	db    *bun.DB
	blobs blob.Store
	opts  Options
}

// NewStore returns a Store on db and blobs.
func NewStore(db *bun.DB, blobs blob.Store, opts Options) *Store {
	return &Store{db: db, blobs: blobs, opts: opts.withDefaults()}
}

// Options returns the store's options, defaults filled in.
func (s *Store) Options() Options { return s.opts }

// archiveKey is where an export's archive lives.
func archiveKey(t *schema.DatabaseTransfer) string {
	return t.AccountID + "/" + t.ID + "/archive.zip"
}

// transferPrefix holds every blob of a transfer.
func transferPrefix(t *schema.DatabaseTransfer) string { return t.AccountID + "/" + t.ID + "/" }

// Create records a new transfer, or answers the one of that id recorded before (a replayed request).
func (s *Store) Create(ctx context.Context, id, accountID, kind string, allowUnsigned bool) (*schema.DatabaseTransfer, error) {
	status := schema.TransferRunning
	if kind == schema.TransferImport {
		status = schema.TransferAwaitingParts
	}
	t := &schema.DatabaseTransfer{ID: id, AccountID: accountID, Kind: kind, Status: status, AllowUnsigned: allowUnsigned}
	if kind == schema.TransferImport {
		expires := time.Now().Add(s.opts.AwaitParts)
		t.ExpiresAt = &expires
	}
	if _, err := s.db.NewInsert().Model(t).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
		return nil, fmt.Errorf("record database transfer: %w", err)
	}
	return s.Get(ctx, accountID, id)
}

// errNotFound answers a transfer that does not exist for the caller's account.
func errNotFound(id string) error { return svcerr.NotFoundf("database transfer %s not found", id) }

// Get reads the account's transfer id (another account's is not found).
func (s *Store) Get(ctx context.Context, accountID, id string) (*schema.DatabaseTransfer, error) {
	t := new(schema.DatabaseTransfer)
	err := s.db.NewSelect().Model(t).Where("id = ? AND account_id = ?", id, accountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("read database transfer %s: %w", id, err)
	}
	return t, nil
}

// load reads transfer id whatever its account (for the workflow's activities).
func (s *Store) load(ctx context.Context, db bun.IDB, id string, lock string) (*schema.DatabaseTransfer, error) {
	t := new(schema.DatabaseTransfer)
	q := db.NewSelect().Model(t).Where("id = ?", id)
	if lock != "" {
		q = q.For(lock)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("read database transfer %s: %w", id, err)
	}
	return t, nil
}

// Parts lists a transfer's accepted parts by number.
func (s *Store) Parts(ctx context.Context, id string) ([]schema.DatabaseTransferPart, error) {
	var parts []schema.DatabaseTransferPart
	if err := s.db.NewSelect().Model(&parts).Where("transfer_id = ?", id).Order("part_number").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list the parts of database transfer %s: %w", id, err)
	}
	return parts, nil
}

// RequestCancel notes that the account asked to cancel transfer id and answers it; the workflow does
// the cancelling. A completed import cannot be cancelled (409); a transfer already failed, cancelled or
// expired is answered as it is.
func (s *Store) RequestCancel(ctx context.Context, accountID, id string) (*schema.DatabaseTransfer, error) {
	t, err := s.Get(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	switch {
	case t.Kind == schema.TransferImport && t.Status == schema.TransferCompleted:
		return nil, svcerr.New(svcerr.Conflict, "database transfer %s is a completed import: there is nothing left to cancel", id)
	case t.Status == schema.TransferFailed || t.Status == schema.TransferCancelled || t.Status == schema.TransferExpired:
		return t, nil
	}
	_, err = s.db.NewUpdate().Model(t).Set("cancel_requested_at = coalesce(cancel_requested_at, now())").
		Set("updated_at = now()").WherePK().Returning("*").Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("request the cancel of database transfer %s: %w", id, err)
	}
	return t, nil
}

// ToWire is the transfer as the API shows it, with its parts (imports).
func ToWire(t *schema.DatabaseTransfer, parts []schema.DatabaseTransferPart) client.DatabaseTransfer {
	out := client.DatabaseTransfer{ID: t.ID, Kind: t.Kind, Status: t.Status, AllowUnsigned: t.AllowUnsigned,
		Progress: client.DatabaseTransferProgress{TablesDone: t.TablesDone, TablesTotal: t.TablesTotal, Bytes: t.DataBytes,
			ArchiveBytes: t.ProgressBytes},
		Parts: make([]client.DatabaseTransferPart, 0, len(parts)), CancelRequested: t.CancelRequestedAt != nil,
		WorkflowID: workflows.DatabaseTransferWorkflowID(t.ID), CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		CompletedAt: t.CompletedAt, ExpiresAt: t.ExpiresAt}
	for _, p := range parts {
		out.Parts = append(out.Parts, client.DatabaseTransferPart{PartNumber: p.PartNumber, Bytes: p.Bytes, SHA256: p.SHA256, CreatedAt: p.CreatedAt})
	}
	if t.ArchiveBytes != nil && t.ArchiveSHA256 != nil {
		out.Archive = &client.DatabaseArchive{Bytes: *t.ArchiveBytes, SHA256: *t.ArchiveSHA256}
		if t.ArchiveKeyID != nil {
			out.Archive.PublicKey = *t.ArchiveKeyID
		}
	}
	if t.ErrorCode != nil {
		out.Error = &client.DatabaseTransferError{Code: *t.ErrorCode, Message: deref(t.ErrorMessage)}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
