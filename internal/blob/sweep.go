package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SweepBatch is how many blobs SweepUnreferenced asks inUse about at once: it bounds the memory of a
// sweep and the size of each query, whatever the size of the store.
const SweepBatch = 500

// InUse answers which of keys are still referred to (or may yet be), so a sweep keeps them. It must
// answer every key it is unsure of: what it leaves out is deleted.
type InUse func(ctx context.Context, keys []string) (map[string]bool, error)

// SweepUnreferenced deletes the blobs of s last written before cutoff that inUse does not claim, the
// orphans a crash between a blob's write and its row's insert leaves behind, and answers how many it
// deleted. It lists s once, asking inUse about SweepBatch blobs at a time. Several sweeps may run at
// once: deleting a blob already gone is not an error.
func SweepUnreferenced(ctx context.Context, s Store, cutoff time.Time, inUse InUse) (int, error) {
	deleted := 0
	batch := make([]string, 0, SweepBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		keep, err := inUse(ctx, batch)
		if err != nil {
			return err
		}
		for _, key := range batch {
			if keep[key] {
				continue
			}
			if err := s.Delete(ctx, key); err != nil {
				return err
			}
			deleted++
		}
		batch = batch[:0]
		return nil
	}
	err := s.List(ctx, "", func(info Info) error {
		if !info.ModTime.Before(cutoff) {
			return nil
		}
		batch = append(batch, info.Key)
		if len(batch) < SweepBatch {
			return nil
		}
		return flush()
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return deleted, fmt.Errorf("sweep unreferenced blobs: %w", err)
	}
	return deleted, nil
}

// tempPrefix starts the name of every temporary file Local.Put writes.
const tempPrefix = ".tmp-"

// RemoveStaleTemp deletes the temporary files (.tmp-*) last written before cutoff, those of writes a
// crash interrupted, and answers how many it deleted. A write in progress keeps touching its file, so a
// cutoff hours in the past never removes one. Buckets have no temporary files.
func (l *Local) RemoveStaleTemp(ctx context.Context, cutoff time.Time) (int, error) {
	removed := 0
	err := filepath.WalkDir(l.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // no store yet, or a directory removed during the walk
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.Type().IsRegular() || !strings.HasPrefix(d.Name(), tempPrefix) {
			return nil
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // renamed into place or removed since the directory was read
		}
		if err != nil {
			return err
		}
		if !fi.ModTime().Before(cutoff) {
			return nil
		}
		if err := os.Remove(p); errors.Is(err, fs.ErrNotExist) {
			return nil // another sweep removed it first
		} else if err != nil {
			return err
		}
		removed++
		return nil
	})
	if err != nil {
		return removed, fmt.Errorf("remove stale temporary blobs: %w", err)
	}
	return removed, nil
}
