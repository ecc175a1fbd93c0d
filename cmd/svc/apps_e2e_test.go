package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// TestAppsCommandsAgainstTheServer: svc apps create examples/apps/hello, list, get, share, delete; a
// folder the API refuses names the field.
func TestAppsCommandsAgainstTheServer(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	secret := env.FirstKey(t)
	svc := loggedIn(t, env, secret)

	example := filepath.Join("..", "..", "examples", "apps", "hello")
	code, out, stderr := svc("apps", "create", example)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Created app hello")
	code, _, stderr = svc("apps", "create", example)
	require.NotEqual(t, 0, code, "the slug exists")
	require.Contains(t, stderr, "conflict")

	code, out, stderr = svc("apps", "list")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^hello\s+private\s+Hello wallet`, out)
	code, out, stderr = svc("apps", "get", "hello")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "scripts/main.ts")
	require.Contains(t, out, "read:wallet")

	code, out, stderr = svc("apps", "share", "hello", "public")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "now public")
	code, _, _ = svc("apps", "share", "hello", "everyone")
	require.NotEqual(t, 0, code)
	code, out, stderr = svc("--json", "apps", "get", "hello")
	require.Equal(t, 0, code, stderr)
	var got struct {
		App struct {
			Sharing string `json:"sharing"`
		} `json:"app"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Equal(t, "public", got.App.Sharing)

	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "manifest.json"), []byte(`{"slug":"bad","permissions":["root"]}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "index.html"), []byte("<p>"), 0o600))
	code, _, stderr = svc("apps", "create", bad)
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "permissions[0]")

	code, out, stderr = svc("apps", "delete", "hello")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Deleted app hello")
	code, _, _ = svc("apps", "get", "hello")
	require.NotEqual(t, 0, code)
}
