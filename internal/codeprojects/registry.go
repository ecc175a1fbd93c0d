// Package codeprojects keeps seed 001's code-project registry: a JSON file, in the shared vault at
// <vault>/Operations/Code Projects/projects.json or, without a vault, in a per-user fallback, written
// atomically (temporary file, fsync, rename). Each record belongs to the account that made it; another
// account's project does not exist for the caller. Proof and link metadata are sanitised before they
// are stored (see Sanitizer).
package codeprojects

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/codeproof"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Registry locations.
const (
	// VaultRelPath is the registry's path inside the vault.
	VaultRelPath = "Operations/Code Projects/projects.json"
	// Schema marks the registry file's format.
	Schema = "svc.codeprojects.v1"
	// SourceVault and SourceLocal say where the registry lives.
	SourceVault = "vault"
	SourceLocal = "local"
)

// DefaultFallback is the per-user registry used without a vault: $XDG_CONFIG_HOME/svc/projects.json
// (os.UserConfigDir), else .data/projects.json.
func DefaultFallback() string {
	if dir, err := os.UserConfigDir(); err == nil {
		return filepath.Join(dir, "svc", "projects.json")
	}
	return filepath.Join(".data", "projects.json")
}

// Record is a stored project: the wire record and the account it belongs to.
type Record struct {
	AccountID string `json:"accountId"`
	client.CodeProject
}

// file is the registry file.
type file struct {
	Schema   string   `json:"schema"`
	Projects []Record `json:"projects"`
}

// Registry is the code-project registry. It is safe for concurrent use within the process; writers on
// other machines (through the sync provider) replace the whole file, the last one winning.
type Registry struct {
	path     string
	source   string
	sanitize Sanitizer
	mu       sync.Mutex
	now      func() time.Time
}

// Open returns the registry of the vault at vaultRoot or, when vaultRoot is "", the one at fallback
// (DefaultFallback when ""). Nothing is created until the first write.
func Open(vaultRoot, fallback string) *Registry {
	r := &Registry{source: SourceLocal, path: fallback, sanitize: Sanitizer{VaultRoot: vaultRoot}, now: time.Now}
	if vaultRoot != "" {
		r.source, r.path = SourceVault, filepath.Join(vaultRoot, filepath.FromSlash(VaultRelPath))
	} else if r.path == "" {
		r.path = DefaultFallback()
	}
	return r
}

// Source is SourceVault or SourceLocal.
func (r *Registry) Source() string { return r.source }

// Path is the registry file's absolute path (never shown to callers: it is a private path).
func (r *Registry) Path() string { return r.path }

// List returns the account's projects, by name then id.
func (r *Registry) List(accountID string) ([]client.CodeProject, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := r.load()
	if err != nil {
		return nil, err
	}
	out := []client.CodeProject{}
	for _, p := range f.Projects {
		if p.AccountID == accountID {
			out = append(out, p.CodeProject)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Save creates (req.ID empty, newID used) or replaces one of the account's projects; the proofs are
// sanitised. An id of no project of the account is 404.
func (r *Registry) Save(accountID, newID string, req client.CodeProjectRequest) (client.CodeProject, bool, error) {
	var saved client.CodeProject
	created := req.ID == ""
	err := r.update(func(f *file) error {
		now := r.now().UTC()
		proofs := r.sanitizeProofs(req.Proofs)
		if created {
			saved = client.CodeProject{ID: newID, Name: req.Name, Repo: req.Repo, Description: req.Description,
				Proofs: proofs, CreatedAt: now, UpdatedAt: now}
			f.Projects = append(f.Projects, Record{AccountID: accountID, CodeProject: saved})
			return nil
		}
		i := find(f, accountID, req.ID)
		if i < 0 {
			return notFound(req.ID)
		}
		p := &f.Projects[i].CodeProject
		p.Name, p.Repo, p.Description, p.Proofs, p.UpdatedAt = req.Name, req.Repo, req.Description, proofs, now
		saved = *p
		return nil
	})
	return saved, created, err
}

// Link records the project's code-proof link (its metadata sanitised): status linked or pending.
func (r *Registry) Link(accountID, projectID string, link client.CodeProofLink) (client.CodeProject, error) {
	var saved client.CodeProject
	err := r.update(func(f *file) error {
		i := find(f, accountID, projectID)
		if i < 0 {
			return notFound(projectID)
		}
		link.Message = r.sanitize.String(link.Message)
		link.Metadata = r.sanitize.Map(link.Metadata)
		p := &f.Projects[i].CodeProject
		p.CodeProof, p.UpdatedAt = &link, r.now().UTC()
		saved = *p
		return nil
	})
	return saved, err
}

// Get returns one of the account's projects (404 for any other id).
func (r *Registry) Get(accountID, projectID string) (client.CodeProject, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := r.load()
	if err != nil {
		return client.CodeProject{}, err
	}
	i := find(f, accountID, projectID)
	if i < 0 {
		return client.CodeProject{}, notFound(projectID)
	}
	return f.Projects[i].CodeProject, nil
}

func notFound(id string) error {
	return svcerr.NotFoundf("no code project %q", id)
}

// find is the index of the account's project id, or -1.
func find(f *file, accountID, id string) int {
	for i, p := range f.Projects {
		if p.AccountID == accountID && p.ID == id {
			return i
		}
	}
	return -1
}

// sanitizeProofs copies the proofs with every text field sanitised.
func (r *Registry) sanitizeProofs(in []client.CodeProofRecord) []client.CodeProofRecord {
	out := make([]client.CodeProofRecord, 0, len(in))
	z := r.sanitize
	for _, p := range in {
		out = append(out, client.CodeProofRecord{Kind: z.String(p.Kind), Commit: z.String(p.Commit), Ref: z.String(p.Ref),
			Signer: z.String(p.Signer), Note: z.String(p.Note), Metadata: z.Map(p.Metadata), CreatedAt: p.CreatedAt})
	}
	return out
}

// update loads the file, applies change and writes it back atomically, under the lock.
func (r *Registry) update(change func(*file) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := r.load()
	if err != nil {
		return err
	}
	if err := change(f); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the project registry: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return fmt.Errorf("project registry folder: %w", err)
	}
	if err := codeproof.WriteFileAtomic(r.path, append(raw, '\n'), 0o600); err != nil {
		return fmt.Errorf("write the project registry: %w", err)
	}
	return nil
}

// load reads the registry; a missing file is an empty registry.
func (r *Registry) load() (*file, error) {
	raw, err := os.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &file{Schema: Schema}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the project registry: %w", err)
	}
	var f file
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, svcerr.New(svcerr.Unavailable, "the project registry (%s) is not valid JSON; repair or move it aside: %v", r.source, err)
	}
	f.Schema = Schema
	return &f, nil
}
