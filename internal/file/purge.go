package file

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/svcplatform/svc/schema"
)

// BlobDeleter removes stored bytes; removing a key that holds nothing is not an error.
type BlobDeleter interface {
	Delete(ctx context.Context, key string) error
}

// Purger removes soft-deleted files for good, the work of the file-purge/<fileId> timer: the bytes
// first, then the row. A purge interrupted between the two finds the row again when it is retried and
// deletes the (already missing) bytes again, so nothing is ever left behind and nothing is done twice
// that matters.
type Purger struct {
	Store *Store
	Blobs BlobDeleter
}

// Purge removes the deleted file with the id: its blob, then its row. A file already purged, or not
// deleted (a live file is never purged), is left as it is.
func (p *Purger) Purge(ctx context.Context, id string) error {
	f := new(schema.File)
	err := p.Store.db.NewSelect().Model(f).Where("id = ? AND status = ?", id, schema.FileDeleted).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("find deleted file %s: %w", id, err)
	}
	if err := p.Blobs.Delete(ctx, f.BlobKey); err != nil {
		return fmt.Errorf("delete the bytes of file %s: %w", id, err)
	}
	if _, err := p.Store.Purge(ctx, id); err != nil {
		return err
	}
	return nil
}
