package skills

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/folder"
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

// folderOf is the skill's folder /skills/<name>/ in the files capability.
func folderOf(scope tenant.Scope, name string) folder.Folder {
	return folder.Folder{Scope: scope, Purpose: Purpose(name), Label: "skill " + name}
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
	f, err := s.folder.Row(ctx, folderOf(sk.scope(), sk.Name), path)
	if err != nil {
		return nil, "", err
	}
	data, err := s.readBlob(ctx, f, MaxSkillTotalBytes)
	return data, f.MediaType, err
}

// folderFiles answers the live files of the skill's folder, the newest per path.
func (s *Store) folderFiles(ctx context.Context, scope tenant.Scope, name string) ([]schema.File, error) {
	return s.folder.Live(ctx, folderOf(scope, name))
}

// readBlob answers a file's bytes, at most limit of them.
func (s *Store) readBlob(ctx context.Context, f *schema.File, limit int64) ([]byte, error) {
	return s.folder.Read(ctx, f, limit)
}

// writeAll writes every file under purpose (a staging folder) and answers the ids written so far (also
// on failure).
func (s *Store) writeAll(ctx context.Context, w folder.Writer, purpose string, files map[string][]byte) ([]string, error) {
	var written []string
	for _, p := range sortedPaths(files) {
		f, err := s.folder.Write(ctx, w, purpose, p, files[p])
		if err != nil {
			return written, err
		}
		written = append(written, f.ID)
	}
	return written, nil
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

// staleAfter is the age after which a staged file is a crashed store's leftover: a live store writes its
// files and swaps them in well within it.
const staleAfter = "1 hour"

// leftovers answers the ids of the live files that operations on the skill name left behind: retired ones
// (a delete after a swap that failed or stopped; deleting one twice is harmless) and staged ones older
// than staleAfter (a store that stopped part way; a younger staging folder may be a store in flight).
func (s *Store) leftovers(ctx context.Context, tx bun.Tx, scope tenant.Scope, name string) ([]string, error) {
	var out []string
	err := tx.NewRaw(`SELECT id FROM files WHERE account_id = ? AND project_id IS NULL AND status = ?
		AND (starts_with(purpose, ?) OR starts_with(purpose, ?) AND created_at < now() - ?::interval)`,
		scope.AccountID, schema.FileActive, retiredPrefix+name+"/", stagingPrefix+name+"/", staleAfter).Scan(ctx, &out)
	if err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("find leftover files of skill %s: %w", name, err)
	}
	return out, nil
}

// deleteFiles soft-deletes files of the files capability and starts their purges.
func (s *Store) deleteFiles(ctx context.Context, scope tenant.Scope, fileIDs []string) error {
	return s.folder.Delete(ctx, scope, fileIDs)
}
