package artifact

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/ids"
)

// DefaultOrphanGrace is how old an artifact blob no row refers to must be before SweepOrphans deletes it:
// a save records its row right after its blob, so a day is far longer than any save in flight.
const DefaultOrphanGrace = 24 * time.Hour

// SweepOrphans deletes the blobs of saves that crashed between writing the bytes and recording the
// artifact (or lost a race to a concurrent save and could not drop their own), once they are grace old
// (DefaultOrphanGrace when not positive), and answers how many it deleted. A blob an artifact row refers
// to is never deleted. Several processes may sweep at once.
func (s *Store) SweepOrphans(ctx context.Context, grace time.Duration) (int, error) {
	if grace <= 0 {
		grace = DefaultOrphanGrace
	}
	n, err := blob.SweepUnreferenced(ctx, s.blobs, s.now().Add(-grace), s.blobsInUse)
	if err != nil {
		return n, fmt.Errorf("sweep orphaned artifact blobs: %w", err)
	}
	return n, nil
}

// blobsInUse answers which keys an artifact row refers to. A save writes under
// <account id>/<artifact id>.<suffix> (blobKey), so the lookup is by primary key; a key of another
// shape was not written by a save and is kept.
func (s *Store) blobsInUse(ctx context.Context, keys []string) (map[string]bool, error) {
	inUse := make(map[string]bool, len(keys))
	var shaped, artifactIDs []string
	for _, key := range keys {
		id, ok := artifactOfKey(key)
		if !ok {
			inUse[key] = true
			continue
		}
		shaped, artifactIDs = append(shaped, key), append(artifactIDs, id)
	}
	if len(shaped) == 0 {
		return inUse, nil
	}
	var claimed []string
	err := s.db.NewRaw(`SELECT b.key FROM unnest(?::text[], ?::text[]) AS b (key, artifact_id)
		WHERE EXISTS (SELECT 1 FROM artifacts a WHERE a.id = b.artifact_id AND a.blob_key = b.key)`,
		pgdialect.Array(shaped), pgdialect.Array(artifactIDs)).Scan(ctx, &claimed)
	if err != nil {
		return nil, fmt.Errorf("find the artifacts of %d blobs: %w", len(shaped), err)
	}
	for _, key := range claimed {
		inUse[key] = true
	}
	return inUse, nil
}

// artifactOfKey is the artifact id of a save's blob key, <account id>/<artifact id>.<suffix>.
func artifactOfKey(key string) (string, bool) {
	account, rest, ok := strings.Cut(key, "/")
	if !ok || account == "" {
		return "", false
	}
	id, suffix, ok := strings.Cut(rest, ".")
	if !ok || suffix == "" || strings.Contains(suffix, "/") || !ids.HasPrefix(id, ids.Artifact) {
		return "", false
	}
	return id, true
}
