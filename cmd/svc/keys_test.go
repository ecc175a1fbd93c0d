package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeysCreatePrintsSecret(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "keys", "create", "--name", "ci", "--scope", "runs:read", "--scope", "runs:write,services:read",
		"--service", "managed-workflows", "--limit", "runs.create=10/min", "--limit", "runs.create=500/day",
		"--project", "proj_1", "--idempotency-key", "idem-1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, newSecret)
	require.Contains(t, r.stdout, "shown only once")
	require.Contains(t, r.stdout, "key_new")

	f.mu.Lock()
	body, hdr := f.lastBody, f.lastHdr
	f.mu.Unlock()
	require.Equal(t, "idem-1", hdr.Get("Idempotency-Key"))
	require.Empty(t, hdr.Get("X-Svc-Project"), "--project binds the key; it does not select a project")
	wantBody := `{"name":"ci","scopes":["runs:read","runs:write","services:read"],"services":["managed-workflows"],
		"limits":[{"operation":"runs.create","requestsPerMinute":10},{"operation":"runs.create","creditsPerDay":500}],
		"projectId":"proj_1"}`
	got, _ := json.Marshal(body)
	require.JSONEq(t, wantBody, string(got))
}

func TestKeysCreateWithCreditTokenAndLogin(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey // ignored: the credit token is the credential of the first key

	r := cli(t, env, "", "keys", "create", "--credit-token", "good-token", "--login")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, newSecret)
	f.mu.Lock()
	hdr := f.lastHdr
	f.mu.Unlock()
	require.Equal(t, "good-token", hdr.Get("X-Svc-Credit-Token"))
	require.Empty(t, hdr.Get("Authorization"))
	c, fi := readConfig(t, env)
	require.Equal(t, newSecret, c.APIKey)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	r = cli(t, env, "", "keys", "create", "--credit-token", "used-token")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: unauthenticated: this credit token was already used")
}

func TestKeysListAndRevoke(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "keys", "list")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "ID")
	require.Contains(t, r.stdout, "key_child")
	require.Contains(t, r.stdout, "key_self")

	r = cli(t, env, "", "keys", "revoke", "key_child")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Revoked API key key_child")
	require.Contains(t, f.requests, "DELETE /v1/api-keys/key_child")
}

func TestParseLimit(t *testing.T) {
	t.Parallel()
	l, err := parseLimit("services.invoke.managed-workflows=5/min")
	require.NoError(t, err)
	require.Equal(t, "services.invoke.managed-workflows", l.Operation)
	require.EqualValues(t, 5, l.RequestsPerMinute)
	l, err = parseLimit("*=100/day")
	require.NoError(t, err)
	require.EqualValues(t, 100, l.CreditsPerDay)
	require.Equal(t, "*=100/day", formatLimit(l))
	for _, bad := range []string{"", "=1/min", "op", "op=1", "op=0/min", "op=-1/day", "op=1/hour"} {
		_, err := parseLimit(bad)
		require.Error(t, err, bad)
	}
}
