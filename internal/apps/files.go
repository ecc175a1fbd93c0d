package apps

import (
	"context"
	"time"

	"github.com/svcplatform/svc/internal/folder"
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

// folderOf is the app's folder /apps/<slug>/ in the files capability.
func folderOf(scope tenant.Scope, slug string) folder.Folder {
	return folder.Folder{Scope: scope, Purpose: Purpose(slug), Label: "app " + slug}
}

// folderFiles answers the live files of the app's folder, newest first per path (an older file of a
// path that a write superseded and not yet deleted is left out).
func (s *Store) folderFiles(ctx context.Context, scope tenant.Scope, slug string) ([]schema.File, error) {
	return s.folder.Live(ctx, folderOf(scope, slug))
}

// fileRow answers the live file at path of the app's folder, or not_found naming the path.
func (s *Store) fileRow(ctx context.Context, scope tenant.Scope, slug, path string) (*schema.File, error) {
	return s.folder.Row(ctx, folderOf(scope, slug), path)
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
	return s.folder.Read(ctx, f, limit)
}

// writeFile stores data at path of the app's folder as a new file of the files capability, then
// deletes the files it supersedes. A failed write leaves nothing.
func (s *Store) writeFile(ctx context.Context, w folder.Writer, slug, path string, data []byte) (*schema.File, error) {
	f, err := s.folder.Write(ctx, w, Purpose(slug), path, data)
	if err != nil {
		return nil, err
	}
	return f, s.folder.Supersede(ctx, folderOf(w.Scope, slug), path, f.ID)
}

// deleteFiles soft-deletes files of the files capability and starts their purges.
func (s *Store) deleteFiles(ctx context.Context, scope tenant.Scope, fileIDs []string) error {
	return s.folder.Delete(ctx, scope, fileIDs)
}

func toFile(f schema.File) File {
	return File{Path: f.Name, FileID: f.ID, MediaType: f.MediaType, Bytes: f.Bytes, SHA256: f.SHA256, UpdatedAt: f.CreatedAt}
}
