package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/testnode"
	"github.com/svcplatform/svc/internal/vault"
)

// envTestAsCLI makes the test binary run the CLI instead of the tests (TestMain).
const envTestAsCLI = "SVC_TEST_AS_CLI"

// mcpClientPackage is the official TypeScript MCP SDK, pinned.
const mcpClientPackage = "@modelcontextprotocol/sdk@1.32.2"

// TestMain lets the test binary stand in for the svc binary: with SVC_TEST_AS_CLI=1 it runs the CLI with
// its arguments (the MCP interop test starts `svc mcp-tools` this way, without building svc first).
func TestMain(m *testing.M) {
	if os.Getenv(envTestAsCLI) == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
	}
	os.Exit(m.Run())
}

// toolCall is one tool call as the TypeScript client saw it.
type toolCall struct {
	IsError    bool            `json:"isError"`
	Structured json.RawMessage `json:"structured"`
	Text       string          `json:"text"`
}

// interopOut is what testdata/mcp_client.mjs prints.
type interopOut struct {
	Server struct {
		Name string `json:"name"`
	} `json:"server"`
	Tools []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		InputSchema struct {
			Required   []string       `json:"required"`
			Properties map[string]any `json:"properties"`
		} `json:"inputSchema"`
	} `json:"tools"`
	Machines, Capabilities, Select, Prepare, Plan, HandoffFile, UnknownMachine, TaskWithoutText toolCall
}

// decode decodes a successful call's structured content into v.
func (c toolCall) decode(t *testing.T, v any) {
	t.Helper()
	require.False(t, c.IsError, "tool error: %s", c.Text)
	require.NoError(t, json.Unmarshal(c.Structured, v), "%s", c.Structured)
}

// TestMCPToolsInteropTypeScriptClient drives `svc mcp-tools` over stdio with the official TypeScript MCP
// client against the real platform: it lists the tools, reads the machine cards and the payment rails,
// selects and prepares a rail, plans a handoff to a vault machine, sends a file (which the receiver then
// finds in its inbox) and gets the API's errors as tool errors.
func TestMCPToolsInteropTypeScriptClient(t *testing.T) {
	t.Parallel()
	testnode.Require(t, "this test drives svc mcp-tools with the official TypeScript MCP client")
	dir := t.TempDir()
	require.NoError(t, testnode.CopyFile(filepath.Join(dir, "mcp_client.mjs"), filepath.Join("testdata", "mcp_client.mjs")))
	installed, done := make(chan error, 1), make(chan struct{})
	go func() { // npm install runs while the platform starts
		defer close(done)
		_, err := testnode.Install(t.Context(), dir, mcpClientPackage)
		installed <- err
	}()
	t.Cleanup(func() { <-done })

	vaultDir := t.TempDir()
	env := apptest.NewWith(t, apptest.Options{Vault: vaultDir, NoDatabases: true, HandoffCheckEvery: 100 * time.Millisecond})
	v, err := vault.Open(vaultDir, vault.Options{})
	require.NoError(t, err)
	_, err = v.PublishMachine(vault.MachineCard{MachineID: "studio-mac", Host: "studio.local", Runtimes: []string{"codex", "claude"},
		Agents: []vault.AgentCard{{ID: "coder", Runtime: "codex", WorkerClasses: []string{"code"}},
			{ID: "writer", Runtime: "claude", WorkerClasses: []string{"general"}}}, Capabilities: vault.Capabilities{FileTransfers: true}})
	require.NoError(t, err)
	key := fundedFirstKey(t, env, 1_000)
	file := filepath.Join(t.TempDir(), "report.txt")
	require.NoError(t, os.WriteFile(file, []byte("the numbers"), 0o600))
	self, err := os.Executable()
	require.NoError(t, err)
	require.NoError(t, <-installed)

	stdout := testnode.Run(t, dir, "mcp_client.mjs", "SVC_BIN="+self, `SVC_BIN_ARGS=["mcp-tools"]`, envTestAsCLI+"=1",
		"HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), envBaseURL+"="+env.URL, envAPIKey+"="+key, "FILE="+file)
	var out interopOut
	require.NoError(t, json.Unmarshal(stdout, &out), "%s", stdout)

	require.Equal(t, "svc-mcp-tools", out.Server.Name)
	names := map[string][]string{}
	for _, tool := range out.Tools {
		require.NotEmpty(t, tool.Description, tool.Name)
		names[tool.Name] = tool.InputSchema.Required
	}
	require.Len(t, names, 8)
	require.ElementsMatch(t, []string{"target", "files"}, names["handoff_file"])
	for _, n := range []string{"list_svc_machines", "plan_handoff", "handoff_file_task", "handoff_task", "crypto_capabilities", "select_crypto_rail", "prepare_crypto_action"} {
		require.Contains(t, names, n)
	}

	var machines client.HandoffMachines
	out.Machines.decode(t, &machines)
	require.Len(t, machines.Machines, 1)
	require.Equal(t, "studio-mac", machines.Machines[0].MachineID)

	var caps client.CryptoCapabilities
	out.Capabilities.decode(t, &caps)
	require.Len(t, caps.Rails, 3)
	var sel, prep client.CryptoActionEnvelope
	out.Select.decode(t, &sel)
	require.Equal(t, client.RailCredits, sel.Selection.Rail)
	out.Prepare.decode(t, &prep)
	require.Equal(t, "/v1/credits/balance", prep.Prepared.Request.Path)
	require.False(t, prep.Prepared.Executed)

	var plan client.HandoffEnvelope
	out.Plan.decode(t, &plan)
	require.Equal(t, "studio-mac", plan.Plan.Machine.MachineID)
	require.Equal(t, client.MatchPrefix, plan.Plan.Machine.MatchedBy)
	require.Equal(t, "coder", plan.Plan.Agent.ID)
	require.Nil(t, plan.Handoff, "plan sends nothing")

	var sent client.HandoffEnvelope
	out.HandoffFile.decode(t, &sent)
	require.NotNil(t, sent.Handoff)
	require.Equal(t, []string{file}, sent.Handoff.Files)
	require.NotNil(t, sent.Handoff.TransferID, "the tool waits until the workflow has written the transfer")
	require.Equal(t, sent.Handoff.TransferID, sent.Plan.TransferID)
	require.Equal(t, client.HandoffAwaitingAck, sent.Handoff.Status)
	transfer := *sent.Handoff.TransferID
	inbox, err := v.Inbox(context.Background(), vault.InboxQuery{Receiver: vault.Identity{MachineID: "studio-mac"}})
	require.NoError(t, err)
	require.Len(t, inbox, 1)
	require.Equal(t, transfer, inbox[0].ID)
	require.Equal(t, "from the MCP test", inbox[0].Note)

	require.True(t, out.UnknownMachine.IsError)
	require.Contains(t, out.UnknownMachine.Text, "HTTP 404 not_found")
	require.Contains(t, out.UnknownMachine.Text, "laptop")
	require.True(t, out.TaskWithoutText.IsError)
	require.Contains(t, out.TaskWithoutText.Text, "HTTP 400 invalid_request")
	require.Contains(t, out.TaskWithoutText.Text, "needs a stated task")
}

// fundedFirstKey creates an account holding credits and returns its first key (every scope and service).
func fundedFirstKey(t *testing.T, env *apptest.Env, credits int64) string {
	t.Helper()
	created, err := env.Accounts.Create(context.Background(), "mcp", credits, time.Hour)
	require.NoError(t, err)
	r := env.Do(t, apptest.Req{Method: "POST", Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": created.CreditToken, "Idempotency-Key": "first-key"}})
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	return r.Body["apiKey"].(map[string]any)["secret"].(string)
}
