package skills

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// File is one file of a skill's folder, as listed.
type File struct {
	Path string
	// Kind is skill (SKILL.md), reference (references/<name>.md) or resource.
	Kind      string
	FileID    string
	MediaType string
	Bytes     int64
	SHA256    string
	UpdatedAt time.Time
}

// writer is who writes a skill's files: the owner's scope and key.
type writer struct {
	scope tenant.Scope
	keyID *string
}

// Files answers the files of the skill's folder by path.
func (s *Store) Files(ctx context.Context, sk *Skill) ([]File, error) {
	rows, err := s.folderFiles(ctx, sk.scope(), sk.Name)
	if err != nil {
		return nil, err
	}
	out := make([]File, 0, len(rows))
	for _, f := range rows {
		out = append(out, File{Path: f.Name, Kind: Kind(f.Name), FileID: f.ID, MediaType: f.MediaType, Bytes: f.Bytes,
			SHA256: f.SHA256, UpdatedAt: f.CreatedAt})
	}
	return out, nil
}

// ReadFile answers the bytes and media type of the file at path of the skill's folder; not_found
// naming the path when absent.
func (s *Store) ReadFile(ctx context.Context, sk *Skill, path string) ([]byte, string, error) {
	f, err := s.fileRow(ctx, sk.scope(), sk.Name, path)
	if err != nil {
		return nil, "", err
	}
	data, err := s.readBlob(ctx, f, MaxSkillTotalBytes)
	return data, f.MediaType, err
}

// folderFiles answers the live files of the skill's folder, the newest per path.
func (s *Store) folderFiles(ctx context.Context, scope tenant.Scope, name string) ([]schema.File, error) {
	var rows []schema.File
	q := scope.Where(s.db.NewSelect().Model(&rows)).Where("status = ? AND purpose = ?", schema.FileActive, Purpose(name)).
		OrderExpr("name, created_at DESC, id DESC")
	if err := q.Scan(ctx); err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("list files of skill %s: %w", name, err)
	}
	out := rows[:0]
	for i, r := range rows {
		if i == 0 || rows[i-1].Name != r.Name {
			out = append(out, r)
		}
	}
	return out, nil
}

// fileRow answers the live file at path of the skill's folder, or not_found naming the path.
func (s *Store) fileRow(ctx context.Context, scope tenant.Scope, name, path string) (*schema.File, error) {
	f := new(schema.File)
	err := scope.Where(s.db.NewSelect().Model(f)).Where("status = ? AND purpose = ? AND name = ?", schema.FileActive, Purpose(name), path).
		OrderExpr("created_at DESC, id DESC").Limit(1).Scan(ctx)
	if isNoRows(err) {
		return nil, svcerr.NotFoundf("skill %s has no file %s", name, path).WithDetails("path", path)
	}
	if err != nil {
		return nil, fmt.Errorf("read file %s of skill %s: %w", path, name, err)
	}
	return f, nil
}

// readBlob answers a file's bytes, at most limit of them.
func (s *Store) readBlob(ctx context.Context, f *schema.File, limit int64) ([]byte, error) {
	if f.Bytes > limit {
		return nil, fmt.Errorf("file %s has %d bytes, more than %d", f.Name, f.Bytes, limit)
	}
	rc, err := s.blobs.Open(ctx, f.BlobKey)
	if err != nil {
		return nil, fmt.Errorf("open skill file %s: %w", f.Name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read skill file %s: %w", f.Name, err)
	}
	return data, nil
}

// writeAll writes every file under purpose (a staging folder) and answers the ids written so far (also
// on failure).
func (s *Store) writeAll(ctx context.Context, w writer, purpose string, files map[string][]byte) ([]string, error) {
	var written []string
	for _, p := range sortedPaths(files) {
		f, err := s.writeFile(ctx, w, purpose, p, files[p])
		if err != nil {
			return written, err
		}
		written = append(written, f.ID)
	}
	return written, nil
}

// writeFile stores data at path under purpose as a new file of the files capability (quota reserved,
// bytes to the blob store, row recorded). A failure leaves nothing: the reservation is released and the
// blob dropped.
func (s *Store) writeFile(ctx context.Context, w writer, purpose, path string, data []byte) (*schema.File, error) {
	res, err := s.files.Reserve(ctx, w.scope.AccountID, int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("write skill file %s: %w", path, err)
	}
	id := ids.New(ids.File)
	key := w.scope.AccountID + "/" + id + "/" + res.ID
	size, sum, err := s.blobs.Put(ctx, key, bytes.NewReader(data))
	if err == nil {
		var f *schema.File
		f, _, err = s.files.Create(ctx, res, file.NewFile{ID: id, Scope: w.scope, KeyID: w.keyID, Name: path,
			MediaType: mediaType(path), Purpose: purpose, Bytes: size, SHA256: sum, BlobKey: key})
		if err == nil {
			return f, nil
		}
	}
	s.undo(ctx, res, key)
	return nil, fmt.Errorf("write skill file %s: %w", path, err)
}

// moveFolder moves every live file of purpose from to purpose to in tx and answers their ids.
func moveFolder(ctx context.Context, tx bun.Tx, scope tenant.Scope, from, to string) ([]string, error) {
	var moved []string
	err := tx.NewRaw(`UPDATE files SET purpose = ? WHERE account_id = ? AND project_id IS NULL AND status = ? AND purpose = ?
		RETURNING id`, to, scope.AccountID, schema.FileActive, from).Scan(ctx, &moved)
	if err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("move files from %s to %s: %w", from, to, err)
	}
	return moved, nil
}

// leftovers answers the ids of the live files that a create or delete of the skill name left staged or
// retired when its process stopped part way (called under the name's lock, so no operation owns them).
func (s *Store) leftovers(ctx context.Context, tx bun.Tx, scope tenant.Scope, name string) ([]string, error) {
	var out []string
	err := tx.NewRaw(`SELECT id FROM files WHERE account_id = ? AND project_id IS NULL AND status = ?
		AND (starts_with(purpose, ?) OR starts_with(purpose, ?))`,
		scope.AccountID, schema.FileActive, stagingPrefix+name+"/", retiredPrefix+name+"/").Scan(ctx, &out)
	if err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("find leftover files of skill %s: %w", name, err)
	}
	return out, nil
}

// deleteFiles soft-deletes files of the files capability and starts their purges.
func (s *Store) deleteFiles(ctx context.Context, scope tenant.Scope, fileIDs []string) error {
	for _, id := range fileIDs {
		f, err := s.files.Delete(ctx, scope, id)
		if svcerr.Is(err, svcerr.NotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return fmt.Errorf("delete skill file %s: %w", id, err)
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
		s.log.Error("start skill file purge (the sweep retries it)", slog.String("fileId", f.ID), slog.Any("err", err))
	}
}

// undo releases a failed write's reservation and drops its blob.
func (s *Store) undo(ctx context.Context, res file.Reservation, key string) {
	ctx = context.WithoutCancel(ctx)
	if err := s.files.Release(ctx, res); err != nil {
		s.log.Error("release skill file reservation", slog.String("reservation", res.ID), slog.Any("err", err))
	}
	if err := s.blobs.Delete(ctx, key); err != nil && !errors.Is(err, blob.ErrNotFound) {
		s.log.Error("delete blob of a failed skill file write", slog.String("blobKey", key), slog.Any("err", err))
	}
}
