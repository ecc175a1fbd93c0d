package activities

import (
	"context"
	"errors"
)

// FilePurger removes a soft-deleted file for good: its bytes, then its row. Purging a file already gone
// is not an error, so a retried purge is harmless.
type FilePurger interface {
	Purge(ctx context.Context, fileID string) error
}

// Files are the activities of stored files.
type Files struct {
	// Purger removes soft-deleted files; nil fails purges saying so (retried until a worker has one).
	Purger FilePurger
}

// errNoFileStore is what a purge answers on a worker built without a file store.
var errNoFileStore = errors.New("this worker has no file store")

// PurgeFile removes the soft-deleted file with the id for good.
func (f *Files) PurgeFile(ctx context.Context, fileID string) error {
	if f.Purger == nil {
		return errNoFileStore
	}
	return f.Purger.Purge(ctx, fileID)
}
