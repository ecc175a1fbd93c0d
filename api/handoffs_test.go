package api_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/vault"
)

// handoffEnv is a platform whose API and worker share a vault holding two machine cards, studio-mac
// (a coder and a writer) and studio-pc.
type handoffEnv struct {
	env   *apptest.Env
	vault *vault.Vault
	key   string
	c     *client.Client
	files string
}

func newHandoffEnv(t *testing.T) *handoffEnv {
	t.Helper()
	return newHandoffEnvWith(t, apptest.Options{HandoffCheckEvery: 100 * time.Millisecond})
}

// newHandoffEnvWith is newHandoffEnv with options (their Vault is the test's).
func newHandoffEnvWith(t *testing.T, opts apptest.Options) *handoffEnv {
	t.Helper()
	dir := t.TempDir()
	opts.Vault = dir
	env := apptest.NewWith(t, opts)
	v, err := vault.Open(dir, vault.Options{})
	require.NoError(t, err)
	_, err = v.PublishMachine(vault.MachineCard{MachineID: "studio-mac", Host: "studio.local", Runtimes: []string{"claude", "codex"},
		Agents: []vault.AgentCard{{ID: "coder", Runtime: "codex", WorkerClasses: []string{"code"}},
			{ID: "writer", Runtime: "claude", WorkerClasses: []string{"writing", "general"}}},
		Capabilities: vault.Capabilities{FileTransfers: true}})
	require.NoError(t, err)
	_, err = v.PublishMachine(vault.MachineCard{MachineID: "studio-pc", Host: "gaming-rig", Runtimes: []string{"claude"},
		Agents: []vault.AgentCard{{ID: "main", Runtime: "claude", WorkerClasses: []string{"general"}}}, Capabilities: vault.Capabilities{FileTransfers: true}})
	require.NoError(t, err)
	key := env.FirstKey(t)
	return &handoffEnv{env: env, vault: v, key: key, c: client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key)), files: t.TempDir()}
}

func (h *handoffEnv) file(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(h.files, name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// waitHandoff polls GET /v1/handoffs/{id} until the handoff has the status.
func (h *handoffEnv) waitHandoff(t *testing.T, id, status string) client.Handoff {
	t.Helper()
	var got client.Handoff
	require.Eventually(t, func() bool {
		r := h.c.GetHandoff(context.Background(), id)
		require.NoError(t, r.Err())
		got = r.Body.Handoff
		return got.Status == status
	}, 20*time.Second, 20*time.Millisecond, "handoff %s never reached %s", id, status)
	return got
}

// TestHandoffPlanResolvesFuzzyNames: plan resolves exact ids, hosts, prefixes and near misses, selects
// the agent by worker class, writes nothing, and answers 409 with the candidates when ambiguous and 404
// when nothing is near.
func TestHandoffPlanResolvesFuzzyNames(t *testing.T) {
	t.Parallel()
	h := newHandoffEnv(t)
	ctx := context.Background()
	for _, c := range []struct{ target, machine, by string }{
		{"studio-mac", "studio-mac", client.MatchMachineID},
		{"GAMING-RIG", "studio-pc", client.MatchHost},
		{"studio-m", "studio-mac", client.MatchPrefix},
		{"studio-pcc", "studio-pc", client.MatchEditDistance},
	} {
		r := h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffPlan, Target: c.target, Task: "fix the flaky test"})
		require.NoError(t, r.Err(), c.target)
		require.Equal(t, http.StatusOK, r.StatusCode)
		require.Equal(t, c.machine, r.Body.Plan.Machine.MachineID, c.target)
		require.Equal(t, c.by, r.Body.Plan.Machine.MatchedBy, c.target)
		require.Nil(t, r.Body.Plan.TransferID)
		require.Nil(t, r.Body.Handoff)
	}
	r := h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffPlan, Target: "studio-mac", Task: "fix the flaky test"})
	require.Equal(t, "coder", r.Body.Plan.Agent.ID)
	require.Equal(t, "code", r.Body.Plan.WorkerClass)
	require.Contains(t, r.Body.Plan.RemoteTaskPreview, "fix the flaky test")
	require.Contains(t, r.Body.Plan.RemoteTaskPreview, "svc transfers ack")

	amb := h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffPlan, Target: "studio"})
	require.Equal(t, http.StatusConflict, amb.StatusCode)
	require.Len(t, amb.Error.Details["candidates"], 2)
	require.Contains(t, amb.Error.Message, "studio-mac, studio-pc")
	none := h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffPlan, Target: "laptop"})
	require.Equal(t, http.StatusNotFound, none.StatusCode)
	ts, err := h.vault.Inbox(ctx, vault.InboxQuery{Receiver: vault.Identity{MachineID: "studio-mac"}, All: true})
	require.NoError(t, err)
	require.Empty(t, ts, "plan has no side effects")

	doc := h.env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/openapi.json"})
	op := doc.Body["paths"].(map[string]any)["/api/handoff"].(map[string]any)["post"].(map[string]any)
	require.Contains(t, op["responses"], "200", "the plan's answer")
	require.Contains(t, op["responses"], "202", "a send's answer")
	require.Equal(t, client.ScopeRunsWrite, op["x-svc-scope"])
}

// TestHandoffFileTaskAcknowledged: send-file-task writes the files and the task file to the selected
// agent; once the receiver acks through the vault the handoff is acknowledged with the ack, and its
// event is recorded. A second account cannot see it.
func TestHandoffFileTaskAcknowledged(t *testing.T) {
	t.Parallel()
	h := newHandoffEnv(t)
	ctx := context.Background()
	f := h.file(t, "spec.md", "# the spec\n")
	r := h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffSendFileTask, Target: "studio-mc", Files: []string{f},
		Task: "implement the spec", Note: "from the platform"})
	require.Equal(t, http.StatusConflict, r.StatusCode, "studio-mc is one edit from both machines")
	r = h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffSendFileTask, Target: "studio.local", Files: []string{f},
		Task: "implement the spec", Note: "from the platform"})
	require.NoError(t, r.Err())
	require.Equal(t, http.StatusAccepted, r.StatusCode)
	require.Equal(t, "coder", r.Body.Plan.Agent.ID)
	id := r.Body.Handoff.ID
	require.Equal(t, "handoff/"+id, r.Body.Handoff.WorkflowID)

	got := h.waitHandoff(t, id, client.HandoffAwaitingAck)
	require.NotNil(t, got.TransferID)
	receiver := vault.Identity{MachineID: "studio-mac", Runtime: "codex", AgentID: "coder"}
	inbox, err := h.vault.Inbox(ctx, vault.InboxQuery{Receiver: receiver})
	require.NoError(t, err)
	require.Len(t, inbox, 1)
	require.Equal(t, *got.TransferID, inbox[0].ID)
	require.Equal(t, "from the platform", inbox[0].Note)
	require.Len(t, inbox[0].Files, 2)
	task, err := os.ReadFile(inbox[0].Files[1].AbsPath)
	require.NoError(t, err)
	require.Contains(t, string(task), "implement the spec")
	other, err := h.vault.Inbox(ctx, vault.InboxQuery{Receiver: vault.Identity{MachineID: "studio-mac", Runtime: "claude", AgentID: "writer"}})
	require.NoError(t, err)
	require.Empty(t, other, "the task is for the coder only")

	_, err = h.vault.Ack(ctx, inbox[0].ID, receiver)
	require.NoError(t, err)
	done := h.waitHandoff(t, id, client.HandoffAcknowledged)
	require.Len(t, done.Acks, 1)
	require.Equal(t, "coder", done.Acks[0].AgentID)
	require.Len(t, done.Acks[0].Verified, 2)
	require.NotNil(t, done.EndedAt)

	list := h.c.Handoffs(ctx, client.ListParams{})
	require.NoError(t, list.Err())
	require.Len(t, list.Body.Handoffs, 1)
	require.Contains(t, eventTypes(t, h.env, accountOf(t, h)), outbox.HandoffAcknowledged)

	stranger := client.New(client.WithBaseURL(h.env.URL), client.WithAPIKey(h.env.FirstKey(t)))
	require.Equal(t, http.StatusNotFound, stranger.GetHandoff(ctx, id).StatusCode)
	require.Empty(t, stranger.Handoffs(ctx, client.ListParams{}).Body.Handoffs)
}

// TestHandoffExpires: a plain file handoff nobody acknowledges within its timeout ends expired.
func TestHandoffExpires(t *testing.T) {
	t.Parallel()
	h := newHandoffEnv(t)
	r := h.c.Handoff(context.Background(), client.HandoffRequest{Action: client.HandoffSendFile, Target: "studio-pc",
		Files: []string{h.file(t, "notes.txt", "hello")}, AckTimeoutSeconds: 1})
	require.NoError(t, r.Err())
	got := h.waitHandoff(t, r.Body.Handoff.ID, client.HandoffExpired)
	require.NotNil(t, got.TransferID)
	require.Empty(t, got.Acks)
	require.False(t, got.HasTask)
}

// TestHandoffRefusals: a task action without a task, a send without files, a relative path and secrets
// in the task or a file are 400s naming the field (and the finding, not the secret); without a vault the
// route is 503 naming SVC_VAULT.
func TestHandoffRefusals(t *testing.T) {
	t.Parallel()
	h := newHandoffEnv(t)
	ctx := context.Background()
	pem := "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----\n"
	for _, c := range []struct {
		req   client.HandoffRequest
		param string
		says  string
	}{
		{client.HandoffRequest{Action: client.HandoffSendTask, Target: "studio-pc"}, "task", "needs a stated task"},
		{client.HandoffRequest{Action: client.HandoffSendFileTask, Target: "studio-pc", Files: []string{h.file(t, "a.txt", "a")}}, "task", "task"},
		{client.HandoffRequest{Action: client.HandoffSendFile, Target: "studio-pc"}, "files", "at least one"},
		{client.HandoffRequest{Action: client.HandoffSendFile, Target: "studio-pc", Files: []string{"relative.txt"}}, "files[0]", "absolute"},
		{client.HandoffRequest{Action: client.HandoffSendTask, Target: "studio-pc", Task: "use " + pem}, "task", vault.FindingPEMKey},
		{client.HandoffRequest{Action: client.HandoffSendFile, Target: "studio-pc", Files: []string{h.file(t, "key.pem", pem)}}, "files[0]", vault.FindingPEMKey},
	} {
		r := h.c.Handoff(ctx, c.req)
		require.Equal(t, http.StatusBadRequest, r.StatusCode, "%+v", c.req)
		require.Equal(t, c.param, r.Error.Param)
		require.Contains(t, r.Error.Message, c.says)
		require.NotContains(t, r.Error.Message, "MHcCAQEEIB")
	}
	bare := apptest.New(t)
	c := client.New(client.WithBaseURL(bare.URL), client.WithAPIKey(bare.FirstKey(t)))
	r := c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffPlan, Target: "studio-pc"})
	require.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
	require.Contains(t, r.Error.Message, "SVC_VAULT")
}

func accountOf(t *testing.T, h *handoffEnv) string {
	t.Helper()
	var id string
	require.NoError(t, h.env.DB.NewRaw("SELECT account_id FROM handoffs LIMIT 1").Scan(context.Background(), &id))
	return id
}

// TestRecordHandoffHistories records the handoff workflow's histories (acknowledged, expired) that
// workflows' replay test reads. It runs only with SVC_RECORD_HISTORIES=1 (make record-histories).
func TestRecordHandoffHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	h := newHandoffEnv(t)
	ctx := context.Background()
	testdata := filepath.Join("..", "workflows", "testdata")
	r := h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffSendTask, Target: "studio-mac", Task: "write the changelog"})
	require.NoError(t, r.Err())
	got := h.waitHandoff(t, r.Body.Handoff.ID, client.HandoffAwaitingAck)
	_, err := h.vault.Ack(ctx, *got.TransferID, vault.Identity{MachineID: "studio-mac", Runtime: "claude", AgentID: "writer"})
	require.NoError(t, err)
	h.waitHandoff(t, got.ID, client.HandoffAcknowledged)
	require.Eventually(t, func() bool { return workflowClosed(h.env, got.WorkflowID) }, 20*time.Second, 20*time.Millisecond)
	writeHistory(t, h.env, got.WorkflowID, filepath.Join(testdata, "handoff_acknowledged.json"))

	r = h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffSendFile, Target: "studio-pc",
		Files: []string{h.file(t, "notes.txt", "hello")}, AckTimeoutSeconds: 1})
	require.NoError(t, r.Err())
	h.waitHandoff(t, r.Body.Handoff.ID, client.HandoffExpired)
	require.Eventually(t, func() bool { return workflowClosed(h.env, r.Body.Handoff.WorkflowID) }, 20*time.Second, 20*time.Millisecond)
	writeHistory(t, h.env, r.Body.Handoff.WorkflowID, filepath.Join(testdata, "handoff_expired.json"))
}
