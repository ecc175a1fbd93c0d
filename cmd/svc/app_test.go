package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJSONOutputIsValidJSON(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	for _, args := range [][]string{
		{"--json", "keys", "list"},
		{"keys", "list", "--json", "--all"},
		{"runs", "get", "run_1", "--json"},
		{"runs", "create", "--service", "managed-workflows", "--operation", "echo", "--json"},
	} {
		r := cli(t, env, "", args...)
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.stderr)
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), "%v: %s", args, r.stdout)
		require.Equal(t, true, v["ok"], args)
	}

	// An error in --json mode prints the error envelope on stdout too.
	r := cli(t, env, "", "runs", "get", "run_missing", "--json")
	require.Equal(t, exitAPI, r.code)
	var e map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), r.stdout)
	require.Equal(t, false, e["ok"])
	require.Equal(t, "not_found", e["error"].(map[string]any)["code"])
}

func TestAPIErrorExitsOne(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = servicesKey

	r := cli(t, env, "", "keys", "list")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, "error: scope_missing: this key lacks scope api_keys:manage [req_fake]\n", r.stderr)
	require.Empty(t, r.stdout)

	env["SVC_API_KEY"] = goodKey
	r = cli(t, env, "", "keys", "revoke", "key_other")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: not_found: ")

	// A closed server is a transport error, also exit 1.
	env["SVC_BASE_URL"] = "http://127.0.0.1:1"
	r = cli(t, env, "", "runs", "get", "run_1")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: transport_error: ")

	// No key at all.
	r = cli(t, testEnv(t, f), "", "runs", "get", "run_1")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: unauthenticated: no API key")
}

func TestUsageErrorsExitTwo(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	env["SVC_API_KEY"] = goodKey
	for _, args := range [][]string{
		{},
		{"bogus"},
		{"keys"},
		{"keys", "bogus"},
		{"keys", "revoke"},
		{"keys", "revoke", "a", "b"},
		{"keys", "create", "--limit", "runs.create=ten/min"},
		{"keys", "create", "--limit", "runs.create=10/hour"},
		{"keys", "list", "--nope"},
		{"runs", "create", "--operation", "echo"},
		{"runs", "create", "--service", "managed-workflows"},
		{"runs", "create", "--service", "s", "--operation", "o", "--input", "{not json"},
		{"runs", "create", "--service", "s", "--operation", "o", "--input", "[1]"},
		{"runs", "create", "--service", "s", "--operation", "o", "--input", "{}", "--input-file", "x"},
		{"runs", "get"},
		{"whoami", "extra"},
	} {
		r := cli(t, env, "", args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", args, r.stderr)
		require.NotEmpty(t, r.stderr, args)
	}
}

func TestPrecedenceFlagsOverEnvOverConfig(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, nil)
	path := filepath.Join(env["XDG_CONFIG_HOME"], "svc", "config.json")
	require.NoError(t, saveConfig(path, config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "svc_sk_bogus"}))

	// The config alone points at a dead address.
	r := cli(t, env, "", "runs", "get", "run_1")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "transport_error")

	// The environment beats the config file.
	env["SVC_BASE_URL"] = f.srv.URL
	r = cli(t, env, "", "runs", "get", "run_1")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "unauthenticated")
	env["SVC_API_KEY"] = servicesKey

	// Flags beat the environment.
	r = cli(t, env, "", "--api-key", goodKey, "runs", "get", "run_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "run_1")
	r = cli(t, env, "", "runs", "get", "run_1", "--base-url", "http://127.0.0.1:1", "--api-key", goodKey)
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "transport_error")
}
