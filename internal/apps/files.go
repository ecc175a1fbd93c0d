package apps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// File is one file of an app's folder, as listed.
type File struct {
	Path      string
	FileID    string
	MediaType string
	Bytes     int64
	SHA256    string
	UpdatedAt time.Time
}

// folderFiles answers the live files of the app's folder, newest first per path (an older file of a
// path that a write superseded and not yet deleted is left out).
func (s *Store) folderFiles(ctx context.Context, scope tenant.Scope, slug string) ([]schema.File, error) {
	var rows []schema.File
	q := scope.Where(s.db.NewSelect().Model(&rows)).Where("status = ? AND purpose = ?", schema.FileActive, Purpose(slug)).
		OrderExpr("name, created_at DESC, id DESC")
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("list files of app %s: %w", slug, err)
	}
	out := rows[:0]
	for i, r := range rows {
		if i == 0 || rows[i-1].Name != r.Name {
			out = append(out, r)
		}
	}
	return out, nil
}

// fileRow answers the live file at path of the app's folder, or not_found naming the path.
func (s *Store) fileRow(ctx context.Context, scope tenant.Scope, slug, path string) (*schema.File, error) {
	f := new(schema.File)
	err := scope.Where(s.db.NewSelect().Model(f)).Where("status = ? AND purpose = ? AND name = ?", schema.FileActive, Purpose(slug), path).
		OrderExpr("created_at DESC, id DESC").Limit(1).Scan(ctx)
	if isNoRows(err) {
		return nil, svcerr.NotFoundf("app %s has no file %s", slug, path).WithDetails("path", path)
	}
	if err != nil {
		return nil, fmt.Errorf("read file %s of app %s: %w", path, slug, err)
	}
	return f, nil
}

// ActingKey is the key an app's frontend runs act as: the key that last wrote its manifest.json (at
// create or by a PUT), as its schedules do. "" when no key wrote it (a web session): platform calls of
// such runs are refused.
func (s *Store) ActingKey(ctx context.Context, scope tenant.Scope, slug string) (string, error) {
	f, err := s.fileRow(ctx, scope, slug, ManifestPath)
	if err != nil {
		return "", err
	}
	if f.KeyID == nil {
		return "", nil
	}
	return *f.KeyID, nil
}

// readFile answers the bytes of the file at path of the app's folder, at most limit of them.
func (s *Store) readFile(ctx context.Context, scope tenant.Scope, slug, path string, limit int64) ([]byte, error) {
	f, err := s.fileRow(ctx, scope, slug, path)
	if err != nil {
		return nil, err
	}
	if f.Bytes > limit {
		return nil, fmt.Errorf("file %s of app %s has %d bytes, more than %d", path, slug, f.Bytes, limit)
	}
	rc, err := s.blobs.Open(ctx, f.BlobKey)
	if err != nil {
		return nil, fmt.Errorf("open file %s of app %s: %w", path, slug, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read file %s of app %s: %w", path, slug, err)
	}
	return data, nil
}

// writeFile stores data at path of the app's folder as a new file of the files capability (quota
// reserved, bytes to the blob store, row recorded), then deletes the files it supersedes. A failure
// leaves nothing: the reservation is released and the blob dropped.
func (s *Store) writeFile(ctx context.Context, w writer, slug, path string, data []byte) (*schema.File, error) {
	res, err := s.files.Reserve(ctx, w.scope.AccountID, int64(len(data)))
	if err != nil {
		return nil, err
	}
	id := ids.New(ids.File)
	key := w.scope.AccountID + "/" + id + "/" + res.ID
	size, sum, err := s.blobs.Put(ctx, key, bytesReader(data))
	if err == nil {
		var f *schema.File
		f, _, err = s.files.Create(ctx, res, file.NewFile{ID: id, Scope: w.scope, KeyID: w.keyID, Name: path,
			MediaType: mediaType(path), Purpose: Purpose(slug), Bytes: size, SHA256: sum, BlobKey: key})
		if err == nil {
			return f, s.supersede(ctx, w.scope, slug, path, f.ID)
		}
	}
	s.undo(ctx, res, key)
	return nil, fmt.Errorf("write file %s of app %s: %w", path, slug, err)
}

// supersede deletes the live files at path of the app's folder other than keep.
func (s *Store) supersede(ctx context.Context, scope tenant.Scope, slug, path, keep string) error {
	var older []string
	err := scope.Where(s.db.NewSelect().Model((*schema.File)(nil)).Column("id")).
		Where("status = ? AND purpose = ? AND name = ? AND id <> ?", schema.FileActive, Purpose(slug), path, keep).Scan(ctx, &older)
	if err != nil && !isNoRows(err) {
		return fmt.Errorf("find older files of %s in app %s: %w", path, slug, err)
	}
	return s.deleteFiles(ctx, scope, older)
}

// deleteFiles soft-deletes files of the files capability and starts their purges.
func (s *Store) deleteFiles(ctx context.Context, scope tenant.Scope, fileIDs []string) error {
	for _, id := range fileIDs {
		f, err := s.files.Delete(ctx, scope, id)
		if svcerr.Is(err, svcerr.NotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return fmt.Errorf("delete app file %s: %w", id, err)
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
		s.log.Error("start app file purge (the sweep retries it)", slog.String("fileId", f.ID), slog.Any("err", err))
	}
}

// undo releases a failed write's reservation and drops its blob.
func (s *Store) undo(ctx context.Context, res file.Reservation, key string) {
	ctx = context.WithoutCancel(ctx)
	if err := s.files.Release(ctx, res); err != nil {
		s.log.Error("release app file reservation", slog.String("reservation", res.ID), slog.Any("err", err))
	}
	if err := s.blobs.Delete(ctx, key); err != nil && !errors.Is(err, blob.ErrNotFound) {
		s.log.Error("delete blob of a failed app file write", slog.String("blobKey", key), slog.Any("err", err))
	}
}

func toFile(f schema.File) File {
	return File{Path: f.Name, FileID: f.ID, MediaType: f.MediaType, Bytes: f.Bytes, SHA256: f.SHA256, UpdatedAt: f.CreatedAt}
}
