package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/llm/llmtest"
	"github.com/svcplatform/svc/workflows"
)

// agentCrashCatalog is the workers' llm.yaml: one provider, the scripted upstream (%s: its base URL).
const agentCrashCatalog = `providers:
  - id: scripted
    baseUrl: %s
    timeout: 20s
models:
  - id: base
    upstream: small-1
    providers: [scripted]
    inputPerMillion: 3
    outputPerMillion: 7
    base: true
`

// TestWorkerKilledMidAgentJobRunsEachToolOnce kills the svcd worker (SIGKILL) in the middle of an agent
// job whose model writes a file (write_file) and then answers: once between the model's answer and the
// tool call (its reply stored and charged, the activity not yet returned), once between the tool call
// and the next model call (the file written, its result not yet stored). Another worker finishes the
// job: it succeeds, the file was written once, the upstream got each model call once, and the account
// was charged once per model call (the ledger's charges for the job are the sum of the two calls' usage
// at the model's price).
func TestWorkerKilledMidAgentJobRunsEachToolOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, fault, activity string
	}{
		{"between the model's answer and the tool call", activities.FaultAgentStallAfterModel, workflows.ActivityAgentModel},
		{"between the tool call and the next model call", activities.FaultAgentStallAfterTool, workflows.ActivityAgentTool},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			agentCrash(t, c.fault, c.activity)
		})
	}
}

func agentCrash(t *testing.T, fault, activity string) {
	ctx := context.Background()
	svcd := svcdPath(t)
	first := llm.Usage{PromptTokens: 3_000, CompletionTokens: 400, TotalTokens: 3_400}
	second := llm.Usage{PromptTokens: 3_500, CompletionTokens: 60, TotalTokens: 3_560}
	const fileName = "crash-note.txt"
	up := llmtest.New(
		llmtest.Answer{ToolCalls: []llm.ToolCall{{ID: "call_1", Type: "function",
			Function: llm.FunctionCall{Name: "write_file", Arguments: `{"name":"` + fileName + `","content":"written once"}`}}}, Usage: &first},
		llmtest.Answer{Text: "Written.", Usage: &second})
	t.Cleanup(up.Close)
	yaml := fmt.Sprintf(agentCrashCatalog, up.URL())
	cat, err := llm.ParseCatalog([]byte(yaml), func(string) string { return "" })
	require.NoError(t, err)
	env := apptest.NewWith(t, apptest.Options{LLM: cat, NoWorker: true})
	dir := t.TempDir()
	llmFile := filepath.Join(dir, "llm.yaml")
	require.NoError(t, os.WriteFile(llmFile, []byte(yaml), 0o600))
	worker := startWorker(t, svcd, env, "", dir, "SVC_LLM_FILE="+llmFile, "SVC_TEST_FAULT="+fault)

	acct, token := env.NewAccount(t, "agent-crash")
	book := ledger.New(env.DB)
	require.NoError(t, book.Grant(ctx, env.DB, acct, 50_000_000, "agent-crash-grant"))
	k := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first"}})
	require.Equal(t, http.StatusCreated, k.Status, "%s", k.Raw)
	key := k.Body["apiKey"].(map[string]any)["secret"].(string)
	balance := func() ledger.Balance {
		b, err := book.Balance(ctx, acct)
		require.NoError(t, err)
		return b
	}
	before := balance()

	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/agent/prompt", Key: key,
		Body: map[string]any{"prompt": "write a note"}, Headers: map[string]string{"Idempotency-Key": "p"}})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Raw)
	jobID := r.Body["job"].(map[string]any)["id"].(string)
	wid := workflows.AgentJobWorkflowID(jobID)
	count := func(query string, args ...any) int {
		var n int
		require.NoError(t, env.DB.NewRaw(query, args...).Scan(ctx, &n))
		return n
	}
	files := func() int {
		return count("SELECT count(*) FROM files WHERE account_id = ? AND name = ?", acct, fileName)
	}
	modelSteps := func() int {
		return count("SELECT count(*) FROM agent_steps WHERE job_id = ? AND kind = 'model'", jobID)
	}

	// The first worker stops at the fault: the model's reply stored (and, with the tool fault, the file
	// written), its activity still running. Two minutes: under a full test run's load on two cores the
	// job's first steps can be slow; a failure says what the job had reached.
	var seen string
	stalled := assert.Eventually(t, func() bool {
		steps, written := modelSteps(), files()
		seen = fmt.Sprintf("%d model steps, %d files; workflow: %s", steps, written, pendingActivities(t, env, wid))
		stalled := steps == 1 && running(t, env, wid, activity)
		if fault == activities.FaultAgentStallAfterTool {
			stalled = stalled && written == 1
		}
		return stalled
	}, 2*time.Minute, 20*time.Millisecond)
	if !stalled {
		t.Fatalf("the job never stalled in %s (last seen: %s); worker log:\n%s", activity, seen, worker.log)
	}
	require.Equal(t, 1, up.Completions())
	worker.kill(t)
	healthy := startWorker(t, svcd, env, "", dir, "SVC_LLM_FILE="+llmFile)

	var status, answer string
	require.Eventually(t, func() bool {
		require.NoError(t, env.DB.NewRaw("SELECT status, coalesce(answer, '') FROM agent_jobs WHERE id = ?", jobID).Scan(ctx, &status, &answer))
		return status == "succeeded" || status == "failed" || status == "cancelled"
	}, 90*time.Second, 50*time.Millisecond, "the job never ended; healthy worker log:\n%s", healthy.log)
	require.Equal(t, "succeeded", status, "healthy worker log:\n%s", healthy.log)
	require.Equal(t, "Written.", answer)

	require.Equal(t, 1, files(), "the tool wrote its file once")
	require.Equal(t, 2, up.Completions(), "each model call reached the upstream once")
	require.Equal(t, 2, modelSteps())
	require.Equal(t, 1, count("SELECT count(*) FROM agent_steps WHERE job_id = ? AND kind = 'tool'", jobID), "one tool step")
	require.Equal(t, 4, count("SELECT count(*) FROM agent_messages WHERE job_id = ?", jobID), "user, assistant, tool, assistant")

	base, ok := cat.Model("base")
	require.True(t, ok)
	want := llm.Cost(base, first.PromptTokens, first.CompletionTokens) + llm.Cost(base, second.PromptTokens, second.CompletionTokens)
	require.Positive(t, want)
	require.Eventually(t, func() bool { return balance().Held == 0 }, 10*time.Second, 20*time.Millisecond, "a model call's hold was left open")
	require.Equal(t, want, before.Available-balance().Available, "charged once per model call")
	var millicredits int64
	require.NoError(t, env.DB.NewRaw("SELECT millicredits FROM agent_jobs WHERE id = ?", jobID).Scan(ctx, &millicredits))
	require.Equal(t, want, millicredits, "the job's credits are its two calls'")
	// The ledger's charges for the job: one settled hold per model call (references llm:agentjob/<id>/model/<n>…).
	var holds []struct {
		Reference string `bun:"reference"`
		Status    string `bun:"status"`
		Charged   *int64 `bun:"charged"`
	}
	require.NoError(t, env.DB.NewRaw("SELECT reference, status, charged FROM credit_holds WHERE account_id = ? AND reference LIKE ? ORDER BY reference",
		acct, "%agentjob/"+jobID+"/model/%").Scan(ctx, &holds))
	var charged int64
	for _, h := range holds {
		require.Equal(t, "settled", h.Status, "%+v", holds)
		charged += *h.Charged
	}
	require.Len(t, holds, 2, "one charge per model call: %+v", holds)
	require.Equal(t, want, charged)
}

// pendingActivities describes the workflow's state for a failure message: its status and each pending
// activity's type, state, attempt and last failure.
func pendingActivities(t *testing.T, env *apptest.Env, workflowID string) string {
	t.Helper()
	desc, err := env.Temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
	if err != nil {
		return "not described: " + err.Error()
	}
	out := desc.GetWorkflowExecutionInfo().GetStatus().String()
	for _, a := range desc.GetPendingActivities() {
		out += fmt.Sprintf("; %s %s attempt %d", a.GetActivityType().GetName(), a.GetState(), a.GetAttempt())
		if f := a.GetLastFailure(); f != nil {
			out += " (last failure: " + f.GetMessage() + ")"
		}
	}
	return out
}
