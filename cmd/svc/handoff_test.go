package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/vault"
)

// TestHandoffCommands: plan resolves a prefix and selects the coder for a code task; send prints the
// plan and the transfer once written; the receiver acks through the vault and get shows the handoff
// acknowledged; the flags' mistakes are usage errors naming the flag.
func TestHandoffCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := apptest.NewWith(t, apptest.Options{Vault: dir, NoDatabases: true, HandoffCheckEvery: 100 * time.Millisecond})
	v, err := vault.Open(dir, vault.Options{})
	require.NoError(t, err)
	_, err = v.PublishMachine(vault.MachineCard{MachineID: "studio-mac", Host: "studio.local",
		Agents: []vault.AgentCard{{ID: "coder", Runtime: "codex", WorkerClasses: []string{"code"}},
			{ID: "writer", Runtime: "claude", WorkerClasses: []string{"general"}}}})
	require.NoError(t, err)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	svc := func(args ...string) result {
		t.Helper()
		return cli(t, vars, "", args...)
	}
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r.stdout
	}

	out := ok(svc("handoff", "plan", "--to", "studio-m", "--task", "fix the failing test"))
	require.Contains(t, out, "studio-mac (host studio.local), matched by prefix")
	require.Contains(t, out, "coder (runtime codex)")
	require.Contains(t, out, "Worker class:  code")

	file := filepath.Join(t.TempDir(), "report.txt")
	require.NoError(t, os.WriteFile(file, []byte("numbers"), 0o600))
	var sent client.HandoffReadEnvelope
	require.NoError(t, json.Unmarshal([]byte(ok(svc("--json", "handoff", "send", "--to", "studio.local", file))), &sent))
	require.Equal(t, client.HandoffAwaitingAck, sent.Handoff.Status)
	require.NotNil(t, sent.Handoff.TransferID)
	_, err = v.Ack(context.Background(), *sent.Handoff.TransferID, vault.Identity{MachineID: "studio-mac"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return strings.Contains(ok(svc("handoff", "get", sent.Handoff.ID)), "acknowledged")
	}, 20*time.Second, 50*time.Millisecond)
	require.Contains(t, ok(svc("handoff", "list")), sent.Handoff.ID)

	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"handoff", "plan"}, "--to is required"},
		{[]string{"handoff", "task", "--to", "studio-mac"}, "state the task"},
		{[]string{"handoff", "send", "--to", "studio-mac"}, "at least one file"},
		{[]string{"handoff", "send", "--to", "studio-mac", "--ack-timeout", "10ms", file}, "--ack-timeout"},
	} {
		r := svc(c.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.says)
	}
	r := svc("handoff", "task", "--to", "laptop", "summarize", "it")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "no machine matches")
}
