package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/llm"
)

// cliModel answers a prompt about the balance with a get_balance call, a send with a wallet_send, a
// tool result with "done", anything else by echoing it.
type cliModel struct{}

func (cliModel) Complete(_ context.Context, _ llm.Caller, req llm.ChatRequest, _ string) (*llm.ChatResponse, llm.Charge, error) {
	last := req.Messages[len(req.Messages)-1]
	reply := llm.Message{Role: "assistant"}
	call := func(name string, args any) {
		raw, _ := json.Marshal(args)
		reply.ToolCalls = []llm.ToolCall{{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: name, Arguments: string(raw)}}}
	}
	switch text := last.Text(); {
	case last.Role == "tool":
		reply = llm.TextMessage("assistant", "done")
	case strings.Contains(text, "balance"):
		call("get_balance", map[string]any{})
	case strings.Contains(text, "send"):
		call("wallet_send", map[string]any{"to": "0x000000000000000000000000000000000000dEaD", "amount": "1", "token": "usdc"})
	default:
		reply = llm.TextMessage("assistant", "echo: "+text)
	}
	return &llm.ChatResponse{Choices: []llm.Choice{{Message: reply}}}, llm.Charge{Millicredits: 1000}, nil
}

// TestAgentCommand: svc agent prints the steps and the answer; -c continues the last thread; a
// confirmation without a terminal fails fast naming the step; status shows the waiting job, cancel ends
// it; profile lists the thread.
func TestAgentCommand(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{AgentModel: cliModel{}, NoDatabases: true})
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	svc := func(args ...string) result {
		t.Helper()
		return cli(t, vars, "", args...)
	}
	r := svc("agent", "what", "is", "my", "balance?")
	require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Equal(t, "done\n", r.stdout)
	require.Contains(t, r.stderr, "get_balance succeeded")
	thread := regexp.MustCompile(`thread (thr_\w+)`).FindStringSubmatch(r.stderr)[1]

	r = svc("agent", "-c", "hello")
	require.Equal(t, exitOK, r.code, "%s", r.stderr)
	require.Contains(t, r.stdout, "echo: hello")
	require.Contains(t, r.stderr, thread)

	r = svc("agent", "send", "1", "usdc")
	require.Equal(t, exitAPI, r.code, "%s", r.stderr)
	require.Contains(t, r.stderr, "confirmation_required")
	job := regexp.MustCompile(`job (job_\w+)`).FindStringSubmatch(r.stderr)[1]
	r = svc("agent", "status", job)
	require.Equal(t, exitOK, r.code, "%s", r.stderr)
	require.Contains(t, r.stdout, "awaiting_confirmation")
	require.Contains(t, r.stdout, "confirm wallet_send: pending")
	r = svc("agent", "cancel", job)
	require.Equal(t, exitOK, r.code, "%s", r.stderr)
	r = svc("agent", "profile")
	require.Equal(t, exitOK, r.code, "%s", r.stderr)
	require.Contains(t, r.stdout, thread)
	r = svc("agent")
	require.Equal(t, exitUsage, r.code)
	r = svc("agent", "--thread", thread, "-c", "x")
	require.Equal(t, exitUsage, r.code)
}
