package file

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/ids"
)

// SweepOrphans deletes from blobs, the files' part of the blob store, the blobs of uploads that crashed
// between writing the bytes and recording the file, and answers how many it deleted. A blob is kept
// while any file row refers to it (a deleted file's row too: its purge removes the bytes), while the
// reservation of its upload is held (the upload may still settle), and until it is grace old (at least
// the reservation lifetime). Several processes may sweep at once.
func (s *Store) SweepOrphans(ctx context.Context, blobs blob.Store, grace time.Duration) (int, error) {
	grace = max(grace, s.reservationTTL)
	n, err := blob.SweepUnreferenced(ctx, blobs, s.now().Add(-grace), s.blobsInUse)
	if err != nil {
		return n, fmt.Errorf("sweep orphaned file blobs: %w", err)
	}
	return n, nil
}

// blobsInUse answers which keys a file row or a held reservation claims. An upload writes its bytes
// under <account id>/<file id>/<reservation id>, so both are primary-key lookups; a key of another shape
// was not written by an upload and is kept. It is one statement, so it sees the settling of an upload
// (the reservation deleted, the row inserted, in one transaction) either wholly or not at all.
func (s *Store) blobsInUse(ctx context.Context, keys []string) (map[string]bool, error) {
	inUse := make(map[string]bool, len(keys))
	var shaped, fileIDs, reservations []string
	for _, key := range keys {
		fileID, resID, ok := parseBlobKey(key)
		if !ok {
			inUse[key] = true
			continue
		}
		shaped, fileIDs, reservations = append(shaped, key), append(fileIDs, fileID), append(reservations, resID)
	}
	if len(shaped) == 0 {
		return inUse, nil
	}
	var claimed []string
	err := s.db.NewRaw(`SELECT b.key FROM unnest(?::text[], ?::text[], ?::text[]) AS b (key, file_id, reservation_id)
		WHERE EXISTS (SELECT 1 FROM files f WHERE f.id = b.file_id AND f.blob_key = b.key)
		   OR EXISTS (SELECT 1 FROM storage_reservations r WHERE r.id = b.reservation_id)`,
		pgdialect.Array(shaped), pgdialect.Array(fileIDs), pgdialect.Array(reservations)).Scan(ctx, &claimed)
	if err != nil {
		return nil, fmt.Errorf("find the files of %d blobs: %w", len(shaped), err)
	}
	for _, key := range claimed {
		inUse[key] = true
	}
	return inUse, nil
}

// parseBlobKey splits an upload's blob key, <account id>/<file id>/<reservation id>.
func parseBlobKey(key string) (fileID, reservationID string, ok bool) {
	parts := strings.Split(key, "/")
	if len(parts) != 3 || !ids.HasPrefix(parts[1], ids.File) || !ids.HasPrefix(parts[2], ids.FileReservation) {
		return "", "", false
	}
	return parts[1], parts[2], true
}
