package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/llm/llmtest"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// TestAgentJobThroughGateway: against the scripted OpenAI-protocol upstream behind the real gateway, a
// prompt whose model calls get_balance then answers succeeds; the account is charged exactly the two
// calls' usage at the base model's price, which is the job's credits. Then the job's activities are run
// again as a worker would after a crash (between the model's answer and the tool call, and between the
// tool call and the next model call): the stored reply and result are reused, so the upstream gets no
// new call, the balance does not move and the tool's step is not repeated.
func TestAgentJobThroughGateway(t *testing.T) {
	t.Parallel()
	up := llmtest.New()
	t.Cleanup(up.Close)
	vars := map[string]string{"PRIMARY_URL": up.URL(), "PRIMARY_KEY": llmProviderKey, "BACKUP_URL": up.URL()}
	cat, err := llm.ParseCatalog([]byte(llmTestCatalog), func(k string) string { return vars[k] })
	require.NoError(t, err)
	env := apptest.NewWith(t, apptest.Options{LLM: cat})
	e := &llmEnv{Env: env, primary: up, backup: up}
	accountID, key := e.account(t, 50_000_000)
	before := e.balance(t, accountID)

	usage := llm.Usage{PromptTokens: 2_000, CompletionTokens: 500, TotalTokens: 2_500}
	up.Push(llmtest.Answer{ToolCalls: []llm.ToolCall{toolCall("call_1", "get_balance", map[string]any{})}, Usage: &usage},
		llmtest.Answer{Text: "Your balance is fine.", Usage: &usage})

	r := agentPrompt(t, env, key, "g1", map[string]any{"prompt": "what is my balance?"})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Raw)
	id := r.Body["job"].(map[string]any)["id"].(string)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	job := waitJob(t, c, id, client.AgentJobSucceeded)
	require.Equal(t, "Your balance is fine.", *job.Answer)
	require.Equal(t, 2, up.Completions())
	base, ok := cat.Model("base")
	require.True(t, ok)
	want := 2 * llm.Cost(base, usage.PromptTokens, usage.CompletionTokens)
	require.Positive(t, want)
	var stored schema.AgentJob
	require.NoError(t, env.DB.NewSelect().Model(&stored).Where("id = ?", id).Scan(context.Background()))
	require.Equal(t, want, before-e.balance(t, accountID), "charged exactly the usage of two calls (job: %d)", stored.Millicredits)
	require.Equal(t, want, stored.Millicredits)
	// The model saw the tool's result, and the tools offered.
	reqs := up.Requests()
	require.NotEmpty(t, reqs[0].Chat.Tools)
	require.Equal(t, "tool", reqs[1].Chat.Messages[len(reqs[1].Chat.Messages)-1].Role)

	// A retried activity (after a crash) reuses what the first attempt stored.
	runner := &agent.Runner{DB: env.DB, Model: llm.New(llm.Options{Catalog: cat, Ledger: ledger.New(env.DB)}), Dispatch: env.Server}
	ctx := context.Background()
	turn, err := runner.ModelStep(ctx, workflows.AgentModelCall{JobID: id, N: 0, FirstStep: 1})
	require.NoError(t, err)
	require.Equal(t, []workflows.AgentCall{{N: 1, Tool: "get_balance"}}, turn.Calls)
	require.NoError(t, runner.Tool(ctx, workflows.AgentToolCall{JobID: id, Model: 0, Index: 0, N: 1}))
	turn, err = runner.ModelStep(ctx, workflows.AgentModelCall{JobID: id, N: 2, FirstStep: 3})
	require.NoError(t, err)
	require.True(t, turn.Final)
	require.Equal(t, 2, up.Completions(), "no model call again")
	require.Equal(t, want, before-e.balance(t, accountID), "nothing charged again")
	again := waitJob(t, c, id, client.AgentJobSucceeded)
	require.Len(t, again.Steps, 3, "no step repeated")
	var msgs int
	require.NoError(t, env.DB.NewSelect().Table("agent_messages").ColumnExpr("count(*)").Where("job_id = ?", id).Scan(ctx, &msgs))
	require.Equal(t, 4, msgs, "user, assistant, tool, assistant: no message repeated")
}
