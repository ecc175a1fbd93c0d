// Package folder keeps purpose folders of the files capability: the files of an app (/apps/<slug>/) or
// of a skill (/skills/<name>/), each file named by its path relative to the folder. It reads a folder
// uploaded as a ZIP within limits, lists a folder's live files, and reads, writes and deletes them, so
// that apps and skills share one implementation.
package folder

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// Folder is one purpose folder: its owner's scope, its purpose, and its label in messages ("app notes").
type Folder struct {
	Scope   tenant.Scope
	Purpose string
	Label   string
}

// Writer is who writes a folder's files: the owner's scope and the writing key (nil for the platform or
// a web session).
type Writer struct {
	Scope tenant.Scope
	KeyID *string
}

// Store reads and writes purpose folders through the files capability.
type Store struct {
	db    bun.IDB
	files *file.Store
	// blobs is the files capability's blob store (the platform store below its file prefix).
	blobs blob.Store
	// purges start the purge timers of deleted files (nil: none started; the purge sweep does).
	purges *file.Purges
	log    *slog.Logger
}

// NewStore returns a Store on db keeping folders in files (bytes in blobs); purges and log may be nil.
func NewStore(db bun.IDB, files *file.Store, blobs blob.Store, purges *file.Purges, log *slog.Logger) *Store {
	if log == nil {
		log = slog.Default()
	}
	return &Store{db: db, files: files, blobs: blobs, purges: purges, log: log}
}

// mediaTypes are the media types folder files are stored with, by extension (apps' pages, scripts and
// data; skills' markdown and text resources); any other file is file.DefaultMediaType.
var mediaTypes = map[string]string{
	".json": "application/json",
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".md":   "text/markdown; charset=utf-8",
	".ts":   "text/plain; charset=utf-8",
	".js":   "text/plain; charset=utf-8",
	".txt":  "text/plain; charset=utf-8",
	".py":   "text/plain; charset=utf-8",
	".yaml": "text/plain; charset=utf-8",
	".yml":  "text/plain; charset=utf-8",
	".csv":  "text/plain; charset=utf-8",
}

// MediaType is the media type a folder file is stored with, by the extension of its name (a path).
func MediaType(name string) string {
	if t, ok := mediaTypes[filepath.Ext(name)]; ok {
		return t
	}
	return file.DefaultMediaType
}

// Live answers the live files of the folder, the newest per path (an older file of a path that a write
// superseded and not yet deleted is left out), by path.
func (s *Store) Live(ctx context.Context, f Folder) ([]schema.File, error) {
	var rows []schema.File
	q := f.Scope.Where(s.db.NewSelect().Model(&rows)).Where("status = ? AND purpose = ?", schema.FileActive, f.Purpose).
		OrderExpr("name, created_at DESC, id DESC")
	if err := q.Scan(ctx); err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("list files of %s: %w", f.Label, err)
	}
	out := rows[:0]
	for i, r := range rows {
		if i == 0 || rows[i-1].Name != r.Name {
			out = append(out, r)
		}
	}
	return out, nil
}

// LiveIDs answers the ids of every live file of the folder, superseded ones too.
func (s *Store) LiveIDs(ctx context.Context, f Folder) ([]string, error) {
	var out []string
	err := f.Scope.Where(s.db.NewSelect().Table("files").Column("id")).
		Where("status = ? AND purpose = ?", schema.FileActive, f.Purpose).Scan(ctx, &out)
	if err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("list files of %s: %w", f.Label, err)
	}
	return out, nil
}

// Row answers the live file at path of the folder, or not_found naming the path.
func (s *Store) Row(ctx context.Context, f Folder, path string) (*schema.File, error) {
	row := new(schema.File)
	err := f.Scope.Where(s.db.NewSelect().Model(row)).Where("status = ? AND purpose = ? AND name = ?", schema.FileActive, f.Purpose, path).
		OrderExpr("created_at DESC, id DESC").Limit(1).Scan(ctx)
	if isNoRows(err) {
		return nil, svcerr.NotFoundf("%s has no file %s", f.Label, path).WithDetails("path", path)
	}
	if err != nil {
		return nil, fmt.Errorf("read file %s of %s: %w", path, f.Label, err)
	}
	return row, nil
}

// Read answers a file's bytes, at most limit of them (a larger file is an error).
func (s *Store) Read(ctx context.Context, f *schema.File, limit int64) ([]byte, error) {
	if f.Bytes > limit {
		return nil, fmt.Errorf("file %s has %d bytes, more than %d", f.Name, f.Bytes, limit)
	}
	rc, err := s.blobs.Open(ctx, f.BlobKey)
	if err != nil {
		return nil, fmt.Errorf("open file %s: %w", f.Name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read file %s: %w", f.Name, err)
	}
	return data, nil
}

// Write stores data at path under purpose as a new file of the files capability: quota reserved, bytes
// to the blob store, row recorded. It supersedes nothing (see Supersede). A failure leaves nothing: the
// reservation is released and the blob dropped.
func (s *Store) Write(ctx context.Context, w Writer, purpose, path string, data []byte) (*schema.File, error) {
	res, err := s.files.Reserve(ctx, w.Scope.AccountID, int64(len(data)))
	if err != nil {
		return nil, err
	}
	id := ids.New(ids.File)
	key := w.Scope.AccountID + "/" + id + "/" + res.ID
	size, sum, err := s.blobs.Put(ctx, key, bytes.NewReader(data))
	if err == nil {
		var f *schema.File
		f, _, err = s.files.Create(ctx, res, file.NewFile{ID: id, Scope: w.Scope, KeyID: w.KeyID, Name: path,
			MediaType: MediaType(path), Purpose: purpose, Bytes: size, SHA256: sum, BlobKey: key})
		if err == nil {
			return f, nil
		}
	}
	s.undo(ctx, res, key)
	return nil, fmt.Errorf("write file %s of %s: %w", path, purpose, err)
}

// Supersede deletes the live files at path of the folder other than keep.
func (s *Store) Supersede(ctx context.Context, f Folder, path, keep string) error {
	var older []string
	err := f.Scope.Where(s.db.NewSelect().Model((*schema.File)(nil)).Column("id")).
		Where("status = ? AND purpose = ? AND name = ? AND id <> ?", schema.FileActive, f.Purpose, path, keep).Scan(ctx, &older)
	if err != nil && !isNoRows(err) {
		return fmt.Errorf("find older files of %s in %s: %w", path, f.Label, err)
	}
	return s.Delete(ctx, f.Scope, older)
}

// Delete soft-deletes files of the files capability and starts their purges; a file deleted meanwhile
// is skipped.
func (s *Store) Delete(ctx context.Context, scope tenant.Scope, fileIDs []string) error {
	for _, id := range fileIDs {
		f, err := s.files.Delete(ctx, scope, id)
		if svcerr.Is(err, svcerr.NotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("delete file %s: %w", id, err)
		}
		s.startPurge(ctx, f)
	}
	return nil
}

// startPurge starts a deleted file's purge; a failure is logged, the purge sweep starts it later.
func (s *Store) startPurge(ctx context.Context, f *schema.File) {
	if s.purges == nil {
		return
	}
	if err := s.purges.Start(context.WithoutCancel(ctx), f); err != nil {
		s.log.Error("start folder file purge (the sweep retries it)", slog.String("fileId", f.ID), slog.Any("err", err))
	}
}

// undo releases a failed write's reservation and drops its blob.
func (s *Store) undo(ctx context.Context, res file.Reservation, key string) {
	ctx = context.WithoutCancel(ctx)
	if err := s.files.Release(ctx, res); err != nil {
		s.log.Error("release folder file reservation", slog.String("reservation", res.ID), slog.Any("err", err))
	}
	if err := s.blobs.Delete(ctx, key); err != nil && !errors.Is(err, blob.ErrNotFound) {
		s.log.Error("delete blob of a failed folder file write", slog.String("blobKey", key), slog.Any("err", err))
	}
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
