package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoginStoresPrivateConfig(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, nil)
	r := cli(t, env, "", "login", "--api-key", goodKey, "--base-url", f.srv.URL+"/")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NotContains(t, r.stdout, goodKey, "the whole secret is never printed")
	require.Contains(t, r.stdout, goodKey[:13])

	c, fi := readConfig(t, env)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(filepath.Join(env["XDG_CONFIG_HOME"], "svc"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	require.Equal(t, goodKey, c.APIKey)
	require.Equal(t, f.srv.URL+"/v1", c.BaseURL)
	require.Contains(t, f.requests, "GET /v1/api-keys")

	// Later commands use the stored credentials.
	w := cli(t, env, "", "whoami")
	require.Equal(t, exitOK, w.code, w.stderr)
	require.Contains(t, w.stdout, f.srv.URL+"/v1")
	require.Contains(t, w.stdout, "key_self")
	require.Contains(t, w.stdout, goodKey[:13])
	require.NotContains(t, w.stdout, goodKey)
	require.Contains(t, w.stdout, "api_keys:manage")

	// whoami --json is valid JSON naming the key.
	wj := cli(t, env, "", "whoami", "--json")
	require.Equal(t, exitOK, wj.code, wj.stderr)
	var who map[string]any
	require.NoError(t, json.Unmarshal([]byte(wj.stdout), &who))
	require.Equal(t, "key_self", who["apiKey"].(map[string]any)["id"])
	require.NotContains(t, wj.stdout, goodKey)
}

func TestLoginScopeFallbacks(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)

	// services:read only: api-keys answers 403, services succeeds.
	env := testEnv(t, f)
	r := cli(t, env, "", "login", "--api-key", servicesKey)
	require.Equal(t, exitOK, r.code, r.stderr)
	c, _ := readConfig(t, env)
	require.Equal(t, servicesKey, c.APIKey)
	w := cli(t, env, "", "whoami")
	require.Equal(t, exitOK, w.code, w.stderr)
	require.Contains(t, w.stdout, "unavailable")

	// Neither scope: stored with a warning.
	env = testEnv(t, f)
	r = cli(t, env, "", "login", "--api-key", scopelessKey)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Warning")
	c, _ = readConfig(t, env)
	require.Equal(t, scopelessKey, c.APIKey)
}

func TestLoginRefusesUnknownKey(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	r := cli(t, env, "", "login", "--api-key", "svc_sk_bogus")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: unauthenticated: the API key is unknown [req_fake]")
	_, err := os.Stat(filepath.Join(env["XDG_CONFIG_HOME"], "svc", "config.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestLoginWithoutKeyNeverPromptsWhenNotInteractive(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	env["SVC_NOT_INTERACTIVE"] = "1"
	r := cli(t, env, "svc_sk_from_stdin\n", "login")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "--api-key")

	// stdin that is not a terminal is never prompted either.
	r = cli(t, testEnv(t, nil), "svc_sk_from_stdin\n", "login")
	require.Equal(t, exitUsage, r.code)
}

func TestMaskKey(t *testing.T) {
	t.Parallel()
	require.Equal(t, goodKey[:13]+"…", maskKey(goodKey))
	require.NotContains(t, maskKey("short"), "short")
}
