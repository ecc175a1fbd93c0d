// Package vaulttest holds a test "sync provider" that replicates one vault directory into another the
// way a real provider may: file by file, in any order, each file possibly seen half written.
package vaulttest

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/svcplatform/svc/internal/vault"
)

// Provider copies the files of one vault directory that differ into another.
type Provider struct {
	// Rand orders the copies.
	Rand *rand.Rand
	// ManifestFirst copies manifest.json files before anything else.
	ManifestFirst bool
	// Halves writes each file in two steps, the first half, then the whole, at its final name (as a
	// provider that does not use temporary files would), calling Step in between.
	Halves bool
	// Step, when set, runs after every write: a receiver looking at the destination at that moment.
	Step func(copied string)
}

// Sync copies into dst every regular file of src's .svc-transfers and .svc-machines trees (but this
// package's own temporary files) that is absent from dst or differs, and returns how many it copied.
func (p *Provider) Sync(src, dst string) (int, error) {
	files, err := changedFiles(src, dst)
	if err != nil {
		return 0, err
	}
	p.Rand.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	if p.ManifestFirst {
		sort.SliceStable(files, func(i, j int) bool {
			return isManifest(files[i]) && !isManifest(files[j])
		})
	}
	for _, rel := range files {
		if err := p.copyOne(filepath.Join(src, rel), filepath.Join(dst, rel), rel); err != nil {
			return 0, err
		}
	}
	return len(files), nil
}

func isManifest(rel string) bool { return filepath.Base(rel) == vault.ManifestFile }

func (p *Provider) copyOne(from, to, rel string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("sync read %s: %w", rel, err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return fmt.Errorf("sync mkdir: %w", err)
	}
	if p.Halves && len(data) > 1 {
		if err := os.WriteFile(to, data[:len(data)/2], 0o644); err != nil {
			return fmt.Errorf("sync write %s: %w", rel, err)
		}
		p.step(rel)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		return fmt.Errorf("sync write %s: %w", rel, err)
	}
	p.step(rel)
	return nil
}

func (p *Provider) step(rel string) {
	if p.Step != nil {
		p.Step(rel)
	}
}

// changedFiles lists, relative to src, the files to replicate.
func changedFiles(src, dst string) ([]string, error) {
	var out []string
	for _, top := range []string{vault.TransfersDir, vault.MachinesDir} {
		root := filepath.Join(src, top)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && path == root {
					return filepath.SkipDir
				}
				return err
			}
			if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".svc-tmp-") {
				return nil
			}
			rel, err := filepath.Rel(src, path)
			if err != nil {
				return err
			}
			if !same(path, filepath.Join(dst, rel)) {
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("sync walk %s: %w", top, err)
		}
	}
	sort.Strings(out)
	return out, nil
}

func same(a, b string) bool {
	x, err := os.ReadFile(a)
	if err != nil {
		return false
	}
	y, err := os.ReadFile(b)
	return err == nil && bytes.Equal(x, y)
}
