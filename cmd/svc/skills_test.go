package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSkillsInstallShelf: the shelf goes into the vault of SVC_VAULT or --vault, a second run keeps
// every file, and without a vault the command is a usage error.
func TestSkillsInstallShelf(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	vaultDir := t.TempDir()
	env["SVC_VAULT"] = vaultDir
	r := cli(t, env, "", "skills", "install-shelf")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "installed Skills/localtts/SKILL.md")
	require.Contains(t, r.stdout, "index     Skills/README.md (written)")
	require.FileExists(t, filepath.Join(vaultDir, "Skills", "image-generation", ".svc-skill-source.json"))

	r = cli(t, env, "", "skills", "install-shelf", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var out struct {
		OK    bool `json:"ok"`
		Shelf struct {
			Installed []string `json:"installed"`
			Kept      []string `json:"kept"`
		} `json:"shelf"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	require.Empty(t, out.Shelf.Installed)
	require.Len(t, out.Shelf.Kept, 3)

	other := t.TempDir()
	r = cli(t, env, "", "skills", "install-shelf", "--vault", other)
	require.Equal(t, 0, r.code, r.stderr)
	require.FileExists(t, filepath.Join(other, "Skills", "README.md"))

	r = cli(t, testEnv(t, nil), "", "skills", "install-shelf")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "no vault: pass --vault DIR")
	r = cli(t, env, "", "skills", "--help")
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stdout, "install-shelf")
	_, err := os.Stat(filepath.Join(vaultDir, "Skills", "localtts", "SKILL.md"))
	require.NoError(t, err)
}
