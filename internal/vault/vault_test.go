package vault_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/vault"
)

// openVault opens a vault in a fresh temporary directory.
func openVault(t *testing.T) *vault.Vault {
	t.Helper()
	v, err := vault.Open(t.TempDir(), vault.Options{})
	require.NoError(t, err)
	return v
}

// writeFiles writes name -> content files in a fresh directory and returns their paths in argument order.
func writeFiles(t *testing.T, pairs ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := 0; i+1 < len(pairs); i += 2 {
		p := filepath.Join(dir, pairs[i])
		require.NoError(t, os.WriteFile(p, []byte(pairs[i+1]), 0o644))
		paths = append(paths, p)
	}
	return paths
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestSendWritesSeedLayoutAndManifest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	at := time.Date(2026, 11, 26, 9, 47, 1, 234_000_000, time.UTC)
	v, err := vault.Open(t.TempDir(), vault.Options{Now: func() time.Time { return at }})
	require.NoError(t, err)
	files := writeFiles(t, "report.txt", "hello receiver", "data.bin", "\x00\x01\x02")
	m, err := v.Send(ctx, vault.SendRequest{Files: files, Note: "see report",
		From: &vault.Identity{MachineID: "m-a", Runtime: "codex", AgentID: "a1"},
		To:   vault.Identity{MachineID: "m-b", Runtime: "claude"}})
	require.NoError(t, err)

	require.Regexp(t, regexp.MustCompile(`^transfer-2026-11-26T09-47-01-234Z-[a-z0-9]{12}$`), m.ID)
	dir := filepath.Join(v.Root(), ".svc-transfers", m.ID)
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	require.Equal(t, "svc.transfer.v1", doc["schema"])
	require.Equal(t, "pending", doc["status"])
	require.Equal(t, "2026-11-26T09:47:01.234Z", doc["createdAt"])
	require.Equal(t, "see report", doc["note"])
	require.Equal(t, map[string]any{"machineId": "m-b", "runtime": "claude"}, doc["to"])
	payloads := doc["payloads"].([]any)
	require.Len(t, payloads, 2)
	first := payloads[0].(map[string]any)
	require.Equal(t, "report.txt", first["name"])
	require.Equal(t, "text/plain; charset=utf-8", first["mediaType"])
	require.EqualValues(t, len("hello receiver"), first["bytes"])
	require.Equal(t, sha("hello receiver"), first["sha256"])
	require.Equal(t, ".svc-transfers/"+m.ID+"/payload/report.txt", first["path"])
	require.Equal(t, "application/octet-stream", payloads[1].(map[string]any)["mediaType"])
	got, err := os.ReadFile(filepath.Join(dir, "payload", "data.bin"))
	require.NoError(t, err)
	require.Equal(t, "\x00\x01\x02", string(got))
	entries, err := os.ReadDir(filepath.Join(dir, "payload"))
	require.NoError(t, err)
	require.Len(t, entries, 2, "no temporary file is left behind")
}

func TestInboxAckAndAll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := openVault(t)
	files := writeFiles(t, "task.md", "do the thing")
	m, err := v.Send(ctx, vault.SendRequest{Files: files, To: vault.Identity{MachineID: "m-b", Runtime: "codex"}})
	require.NoError(t, err)
	other, err := v.Send(ctx, vault.SendRequest{Files: files, To: vault.Identity{MachineID: "m-c"}})
	require.NoError(t, err)

	agent1 := vault.Identity{MachineID: "m-b", Runtime: "codex", AgentID: "a1"}
	agent2 := vault.Identity{MachineID: "m-b", Runtime: "codex", AgentID: "a2"}
	inbox, err := v.Inbox(ctx, vault.InboxQuery{Receiver: agent1})
	require.NoError(t, err)
	require.Len(t, inbox, 1)
	require.Equal(t, m.ID, inbox[0].ID)
	require.False(t, inbox[0].Acknowledged)
	abs := inbox[0].Files[0].AbsPath
	require.True(t, filepath.IsAbs(abs))
	content, err := os.ReadFile(abs)
	require.NoError(t, err)
	require.Equal(t, "do the thing", string(content))

	ack, err := v.Ack(ctx, m.ID, agent1)
	require.NoError(t, err)
	require.Equal(t, []vault.VerifiedPayload{{Name: "task.md", SHA256: sha("do the thing"), Bytes: 12}}, ack.Verified)
	_, err = os.Stat(filepath.Join(v.Root(), ".svc-transfers", m.ID, "acks", "m-b--codex--a1.json"))
	require.NoError(t, err, "the ack file is named <machineId>--<runtime>--<agentId>.json")

	inbox, err = v.Inbox(ctx, vault.InboxQuery{Receiver: agent1})
	require.NoError(t, err)
	require.Empty(t, inbox, "an acknowledged transfer is hidden from its receiver")
	inbox, err = v.Inbox(ctx, vault.InboxQuery{Receiver: agent1, All: true})
	require.NoError(t, err)
	require.Len(t, inbox, 1)
	require.True(t, inbox[0].Acknowledged)
	inbox, err = v.Inbox(ctx, vault.InboxQuery{Receiver: agent2})
	require.NoError(t, err)
	require.Len(t, inbox, 1, "one receiver's ack does not hide the transfer from another")

	acks, err := v.Acks(m.ID)
	require.NoError(t, err)
	require.Len(t, acks, 1)
	require.Equal(t, "a1", acks[0].AgentID)

	_, err = v.Ack(ctx, other.ID, agent1)
	require.True(t, svcerr.Is(err, svcerr.NotFound), "acking a transfer for another machine: %v", err)
	_, err = v.Ack(ctx, "transfer-../../etc", agent1)
	require.True(t, svcerr.Is(err, svcerr.NotFound))
}

func TestInboxHidesTamperedOrPartialTransfers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := openVault(t)
	to := vault.Identity{MachineID: "m-b"}
	files := writeFiles(t, "a.txt", "alpha")
	changed, err := v.Send(ctx, vault.SendRequest{Files: files, To: to})
	require.NoError(t, err)
	extraField, err := v.Send(ctx, vault.SendRequest{Files: files, To: to})
	require.NoError(t, err)
	whole, err := v.Send(ctx, vault.SendRequest{Files: files, To: to})
	require.NoError(t, err)

	// Same size, other content: the digest catches it.
	require.NoError(t, os.WriteFile(filepath.Join(v.Root(), ".svc-transfers", changed.ID, "payload", "a.txt"), []byte("alphX"), 0o644))
	// An unknown manifest field makes the manifest unreadable.
	mpath := filepath.Join(v.Root(), ".svc-transfers", extraField.ID, "manifest.json")
	raw, err := os.ReadFile(mpath)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(mpath, []byte(strings.Replace(string(raw), `"schema"`, `"surprise": 1, "schema"`, 1)), 0o644))

	inbox, err := v.Inbox(ctx, vault.InboxQuery{Receiver: to})
	require.NoError(t, err)
	require.Len(t, inbox, 1)
	require.Equal(t, whole.ID, inbox[0].ID)
	_, err = v.Ack(ctx, changed.ID, to)
	require.True(t, svcerr.Is(err, svcerr.Conflict), "ack of a payload that does not match: %v", err)
	_, err = v.Verify(ctx, changed.ID)
	require.True(t, svcerr.Is(err, svcerr.NotFound))
}

func TestSyncArtifactsAreIgnored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := openVault(t)
	to := vault.Identity{MachineID: "m-b", Runtime: "codex"}
	m, err := v.Send(ctx, vault.SendRequest{Files: writeFiles(t, "a.txt", "alpha"), To: to})
	require.NoError(t, err)
	dir := filepath.Join(v.Root(), ".svc-transfers", m.ID)
	for _, name := range []string{"payload/.syncthing.a.txt.tmp", "payload/~syncthing~a.txt.tmp",
		"manifest.sync-conflict-20261126-094700-ABCDEFG.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("junk"), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(v.Root(), ".svc-transfers", ".syncthing.dir.tmp"), 0o755))
	_, err = v.Ack(ctx, m.ID, to)
	require.NoError(t, err)
	ackDir := filepath.Join(dir, "acks")
	good, err := os.ReadFile(filepath.Join(ackDir, "m-b--codex--_.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ackDir, "m-b--codex--x.sync-conflict-20261126-1-AAA.json"), good, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ackDir, ".syncthing.m-b--codex--y.json.tmp"), good, 0o644))

	acks, err := v.Acks(m.ID)
	require.NoError(t, err)
	require.Len(t, acks, 1)
	inbox, err := v.Inbox(ctx, vault.InboxQuery{Receiver: to, All: true})
	require.NoError(t, err)
	require.Len(t, inbox, 1)
}

func TestSendRefusesBadRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := openVault(t)
	files := writeFiles(t, "a.txt", "alpha")
	sameName := writeFiles(t, "a.txt", "beta")
	for _, c := range []struct {
		name  string
		req   vault.SendRequest
		param string
	}{
		{"no machine reference", vault.SendRequest{Files: files, To: vault.Identity{Runtime: "codex"}}, "to.machineId"},
		{"no files", vault.SendRequest{To: vault.Identity{MachineID: "m"}}, "files"},
		{"bad runtime", vault.SendRequest{Files: files, To: vault.Identity{MachineID: "m", Runtime: "a--b"}}, "to.runtime"},
		{"bad sender", vault.SendRequest{Files: files, From: &vault.Identity{AgentID: "../x"}, To: vault.Identity{MachineID: "m"}}, "from.agentId"},
		{"duplicate name", vault.SendRequest{Files: append(files, sameName...), To: vault.Identity{MachineID: "m"}}, "files[1]"},
		{"missing file", vault.SendRequest{Files: []string{filepath.Join(t.TempDir(), "nope.txt")}, To: vault.Identity{MachineID: "m"}}, "files[0]"},
		{"directory", vault.SendRequest{Files: []string{t.TempDir()}, To: vault.Identity{MachineID: "m"}}, "files[0]"},
	} {
		_, err := v.Send(ctx, c.req)
		e, ok := svcerr.As(err)
		require.True(t, ok, "%s: %v", c.name, err)
		require.Equal(t, c.param, e.Param, c.name)
	}
	entries, err := os.ReadDir(filepath.Join(v.Root(), ".svc-transfers"))
	if err == nil {
		require.Empty(t, entries, "a refused send writes nothing")
	}
}

func TestMachineCards(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	v, err := vault.Open(t.TempDir(), vault.Options{Now: func() time.Time { return at }})
	require.NoError(t, err)
	card := vault.MachineCard{MachineID: "m-b", Host: "box", Runtimes: []string{"codex"},
		Agents:       []vault.AgentCard{{ID: "a1", Runtime: "codex", WorkerClasses: []string{"code"}}},
		Capabilities: vault.Capabilities{FileTransfers: true}}
	_, err = v.PublishMachine(card)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(v.Root(), ".svc-machines", "broken.json"), []byte("{"), 0o644))
	cards, err := v.Machines()
	require.NoError(t, err)
	require.Len(t, cards, 1)
	require.Equal(t, "2026-11-26T10:00:00.000Z", cards[0].LastSeen)
	require.Equal(t, "svc.machine.v1", cards[0].Schema)
	require.Equal(t, card.Agents, cards[0].Agents)
	_, err = v.PublishMachine(vault.MachineCard{MachineID: "../x"})
	require.Error(t, err)
}

// TestAckRehashesEvenWhenTheCacheIsFooled rewrites a payload in place with the same size and restores its
// modification time (same inode): the inbox's digest cache cannot see it, but an ack hashes again.
func TestAckRehashesEvenWhenTheCacheIsFooled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := openVault(t)
	to := vault.Identity{MachineID: "m-b"}
	m, err := v.Send(ctx, vault.SendRequest{Files: writeFiles(t, "a.txt", "alpha"), To: to})
	require.NoError(t, err)
	inbox, err := v.Inbox(ctx, vault.InboxQuery{Receiver: to})
	require.NoError(t, err)
	require.Len(t, inbox, 1)
	path := inbox[0].Files[0].AbsPath
	fi, err := os.Stat(path)
	require.NoError(t, err)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte("ALPHA"), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))

	_, err = v.Ack(ctx, m.ID, to)
	require.True(t, svcerr.Is(err, svcerr.Conflict), "%v", err)
	_, err = v.Verify(ctx, m.ID)
	require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
}
