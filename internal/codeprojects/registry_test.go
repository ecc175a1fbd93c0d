package codeprojects

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// TestRegistryInVault: the registry lives at <vault>/Operations/Code Projects/projects.json, private
// to its owner, holds the sanitised proofs, and an account sees and updates only its own projects.
func TestRegistryInVault(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := Open(root, filepath.Join(t.TempDir(), "unused.json"))
	require.Equal(t, SourceVault, r.Source())
	p, created, err := r.Save("acct_a", "cpj_1", client.CodeProjectRequest{Name: "api", Repo: "github.com/o/api",
		Proofs: []client.CodeProofRecord{{Kind: "build", Note: "built in " + root + "/src on 10.0.0.7"}}})
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, "built in <vault>/src on "+RedactedAddress, p.Proofs[0].Note)

	path := filepath.Join(root, "Operations", "Code Projects", "projects.json")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotContains(t, string(raw), root)
	require.NotContains(t, string(raw), "10.0.0.7")
	var f file
	require.NoError(t, json.Unmarshal(raw, &f))
	require.Equal(t, Schema, f.Schema)
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")

	_, _, err = r.Save("acct_b", "", client.CodeProjectRequest{ID: "cpj_1", Name: "stolen"})
	require.True(t, svcerr.Is(err, svcerr.NotFound), "another account's project is not found: %v", err)
	_, err = r.Link("acct_b", "cpj_1", client.CodeProofLink{Repo: "x", Status: client.LinkPending})
	require.True(t, svcerr.Is(err, svcerr.NotFound))
	other, err := r.List("acct_b")
	require.NoError(t, err)
	require.Empty(t, other)

	upd, created, err := r.Save("acct_a", "cpj_unused", client.CodeProjectRequest{ID: "cpj_1", Name: "api v2"})
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, "cpj_1", upd.ID)
	require.Equal(t, p.CreatedAt, upd.CreatedAt)
	mine, err := r.List("acct_a")
	require.NoError(t, err)
	require.Len(t, mine, 1)
	require.Equal(t, "api v2", mine[0].Name)
	require.Empty(t, mine[0].Proofs)
}

// TestRegistryFallback: without a vault the registry is the per-user fallback file; a broken file is
// an error, not an empty registry that the next write would overwrite.
func TestRegistryFallback(t *testing.T) {
	t.Parallel()
	fallback := filepath.Join(t.TempDir(), "svc", "projects.json")
	r := Open("", fallback)
	require.Equal(t, SourceLocal, r.Source())
	_, _, err := r.Save("acct_a", "cpj_1", client.CodeProjectRequest{Name: "cli"})
	require.NoError(t, err)
	require.FileExists(t, fallback)
	require.NoError(t, os.WriteFile(fallback, []byte("{not json"), 0o600))
	_, err = r.List("acct_a")
	require.ErrorContains(t, err, "not valid JSON")
	_, _, err = r.Save("acct_a", "cpj_2", client.CodeProjectRequest{Name: "x"})
	require.Error(t, err)
	raw, err := os.ReadFile(fallback)
	require.NoError(t, err)
	require.Equal(t, "{not json", string(raw), "a broken registry is left for people to repair")
}
