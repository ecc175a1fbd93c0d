package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// inboxOf runs "svc transfers inbox" and decodes its JSON.
func inboxOf(t *testing.T, env map[string]string, args ...string) []map[string]any {
	t.Helper()
	r := cli(t, env, "", append([]string{"transfers", "inbox"}, args...)...)
	require.Equal(t, 0, r.code, r.stderr)
	var out struct {
		OK        bool             `json:"ok"`
		Transfers []map[string]any `json:"transfers"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	require.True(t, out.OK)
	return out.Transfers
}

func TestTransfersSendInboxAck(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	vaultDir := t.TempDir()
	env["SVC_VAULT"] = vaultDir
	src := filepath.Join(t.TempDir(), "plan.md")
	require.NoError(t, os.WriteFile(src, []byte("# the plan\n"), 0o644))

	r := cli(t, env, "", "transfers", "send", src, "--toMachine", "m-b", "--toRuntime", "codex", "--toAgent", "a1",
		"--fromMachine", "m-a", "--note", "read this first")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Sent transfer transfer-")
	id := strings.Fields(strings.TrimPrefix(r.stdout, "Sent transfer "))[0]
	id = strings.TrimSuffix(id, ":")

	require.Empty(t, inboxOf(t, env, "--machine", "m-x"), "another machine sees nothing")
	require.Empty(t, inboxOf(t, env, "--machine", "m-b", "--runtime", "codex", "--agent", "a2"), "another agent sees nothing")
	list := inboxOf(t, env, "--machine", "m-b", "--runtime", "codex")
	require.Len(t, list, 1, "the runtime-level inbox sees the agent's transfer")
	require.Equal(t, id, list[0]["id"])
	file := list[0]["files"].([]any)[0].(map[string]any)
	abs := file["absPath"].(string)
	require.True(t, filepath.IsAbs(abs))
	require.True(t, strings.HasPrefix(abs, vaultDir))

	// A payload that no longer matches its manifest cannot be acknowledged.
	require.NoError(t, os.WriteFile(abs, []byte("# the plaN\n"), 0o644))
	r = cli(t, env, "", "transfers", "ack", id, "--machine", "m-b", "--runtime", "codex", "--agent", "a1")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "not verified")
	require.NoError(t, os.WriteFile(abs, []byte("# the plan\n"), 0o644))
	r = cli(t, env, "", "transfers", "ack", id, "--machine", "m-b", "--runtime", "codex", "--agent", "a1", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `"transferId": "`+id+`"`)
	_, err := os.Stat(filepath.Join(vaultDir, ".svc-transfers", id, "acks", "m-b--codex--a1.json"))
	require.NoError(t, err)

	require.Empty(t, inboxOf(t, env, "--machine", "m-b", "--runtime", "codex", "--agent", "a1"))
	all := inboxOf(t, env, "--machine", "m-b", "--runtime", "codex", "--agent", "a1", "--all")
	require.Len(t, all, 1)
	require.Equal(t, true, all[0]["acknowledged"])
}

func TestTransfersVaultResolutionAndRefusals(t *testing.T) {
	t.Parallel()
	env := testEnv(t, nil)
	src := filepath.Join(t.TempDir(), "a.txt")
	require.NoError(t, os.WriteFile(src, []byte("alpha"), 0o644))

	r := cli(t, env, "", "transfers", "send", src, "--toMachine", "m-b")
	require.Equal(t, 2, r.code, "no vault is a usage error")
	require.Contains(t, r.stderr, "--syncPath")
	r = cli(t, env, "", "transfers", "send", src, "--toRuntime", "codex", "--syncPath", t.TempDir())
	require.Equal(t, 2, r.code, "no target machine is a usage error")
	r = cli(t, env, "", "transfers", "ack", "--syncPath", t.TempDir())
	require.Equal(t, 2, r.code, "ack needs the transfer id")

	// The config file's vault, kept across a login that rewrites the file.
	cfgDir := t.TempDir()
	path := filepath.Join(env["XDG_CONFIG_HOME"], "svc", "config.json")
	require.NoError(t, saveConfig(path, config{Vault: cfgDir}))
	require.NoError(t, saveConfig(path, config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k"}))
	r = cli(t, env, "", "transfers", "send", src, "--toHost", "box")
	require.Equal(t, 0, r.code, r.stderr)
	entries, err := os.ReadDir(filepath.Join(cfgDir, ".svc-transfers"))
	require.NoError(t, err)
	require.Len(t, entries, 1)

	secret := "svc_" + "sk_" + strings.Repeat("Qw9", 11)
	r = cli(t, env, "", "transfers", "send", src, "--toMachine", "m-b", "--note", "key "+secret)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "svc API key")
	require.NotContains(t, r.stderr, secret)
	r = cli(t, env, "", "transfers", "ack", "transfer-2026-11-26T09-47-00-123Z-aaaaaaaaaaaa", "--machine", "m-b")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "not verified")
}
