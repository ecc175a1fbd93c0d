package api_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/schema"
)

// skillModel is a scripted model: a prompt "load <name>" calls load_skill {name}, a tool result is
// answered; it keeps each reference's request so a test reads what the model was shown.
type skillModel struct {
	mu   sync.Mutex
	seen map[string]llm.ChatRequest
}

func (m *skillModel) Complete(_ context.Context, _ llm.Caller, req llm.ChatRequest, reference string) (*llm.ChatResponse, llm.Charge, error) {
	m.mu.Lock()
	m.seen[reference] = req
	m.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]
	reply := llm.TextMessage("assistant", "nothing to load")
	switch name, ok := strings.CutPrefix(last.Text(), "load "); {
	case last.Role == "tool":
		reply = llm.TextMessage("assistant", "loaded")
	case ok:
		reply = llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{toolCall("call_k", "load_skill", map[string]any{"name": name})}}
	}
	usage := llm.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}
	return &llm.ChatResponse{ID: "cmpl", Object: "chat.completion", Choices: []llm.Choice{{Message: reply, FinishReason: "stop"}}, Usage: &usage},
		llm.Charge{Model: "base", Usage: usage, Millicredits: modelCharge}, nil
}

func (m *skillModel) request(reference string) llm.ChatRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen[reference]
}

// stepResult reads the stored result of the job's tool step n.
func stepResult(t *testing.T, env *apptest.Env, jobID string, n int) schema.AgentStep {
	t.Helper()
	var step schema.AgentStep
	require.NoError(t, env.DB.NewSelect().Model(&step).Where("job_id = ? AND n = ? AND kind = ?", jobID, n, schema.StepTool).
		Scan(context.Background()))
	require.NotNil(t, step.Result)
	return step
}

// TestAgentSkills: the model's first request lists the account's skills (name, emoji, description) in
// the system prompt and offers load_skill, never another account's skill; load_skill answers the body,
// the reference and the text resource inline, lists a resource over the 200 KB budget and a binary one
// as omitted with the URL that reads them; an unknown name (or another account's skill) is a failed
// step naming it and the skills there are.
func TestAgentSkills(t *testing.T) {
	t.Parallel()
	model := &skillModel{seen: map[string]llm.ChatRequest{}}
	env := apptest.NewWith(t, apptest.Options{AgentModel: model})
	_, key := databaseAccount(t, env, "skilled")
	_, otherKey := databaseAccount(t, env, "other")
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))

	folder := map[string]string{
		"SKILL.md":          skillText("deploy-helper", "private", "# Deploy\nRun scripts/deploy.py, then check the health route."),
		"references/api.md": "# API reference\nPOST /deploy",
		"scripts/deploy.py": "#!/usr/bin/env python3\nprint(\"deploying\")",
		"data/big.txt":      strings.Repeat("x", 210<<10),
		"img/logo.bin":      "\x89PNG\x00\x01\x02",
	}
	created := postSkillZip(t, env, key, "k1", folder)
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	require.Equal(t, http.StatusCreated, postSkill(t, env, otherKey, "o1", skillText("private-plan", "private", "Not yours.")).Status)

	r := agentPrompt(t, env, key, "p1", map[string]any{"prompt": "load deploy-helper"})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Raw)
	id := r.Body["job"].(map[string]any)["id"].(string)
	done := waitJob(t, c, id, client.AgentJobSucceeded)
	require.Equal(t, "load_skill", done.Steps[1].Tool, "%+v", done.Steps)
	require.Equal(t, "succeeded", done.Steps[1].Status, "%+v", done.Steps[1])

	first := model.request("agentjob/" + id + "/model/0")
	require.NotEmpty(t, first.Messages)
	system := first.Messages[0].Text()
	require.Contains(t, system, "# Skills")
	require.Contains(t, system, "- 🧪 deploy-helper: Helps with deploy-helper")
	require.NotContains(t, system, "private-plan", "another account's skill is not listed")
	var offered []string
	for _, tool := range first.Tools {
		offered = append(offered, tool.Function.Name)
	}
	require.Contains(t, offered, "load_skill")

	step := stepResult(t, env, id, 1)
	result := *step.Result
	require.Contains(t, result, "Skill deploy-helper (version 1) 🧪: Helps with deploy-helper")
	require.Contains(t, result, "Run scripts/deploy.py, then check the health route.")
	require.Contains(t, result, "# API reference\nPOST /deploy")
	require.Contains(t, result, "print(\"deploying\")")
	require.Contains(t, result, "- data/big.txt (215040 bytes): omitted, over the 200 KB inline budget; GET /v1/skills/deploy-helper/resources/data/big.txt")
	require.Contains(t, result, "- img/logo.bin (7 bytes): omitted, binary; GET /v1/skills/deploy-helper/resources/img/logo.bin")
	require.NotContains(t, result, "[truncated]")
	require.False(t, step.Untrusted)
	tool := model.request("agentjob/" + id + "/model/2").Messages
	require.Equal(t, result, tool[len(tool)-1].Text(), "the model reads the stored result")

	// Another account's skill is unknown here, like a name that exists nowhere.
	for i, name := range []string{"private-plan", "no-such-skill"} {
		r := agentPrompt(t, env, key, "u"+string(rune('0'+i)), map[string]any{"prompt": "load " + name})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Raw)
		id := r.Body["job"].(map[string]any)["id"].(string)
		j := waitJob(t, c, id, client.AgentJobSucceeded)
		require.Equal(t, "failed", j.Steps[1].Status, "%+v", j.Steps[1])
		res := *stepResult(t, env, id, 1).Result
		require.Contains(t, res, `there is no skill "`+name+`" in this account; its skills are: deploy-helper`)
	}
}
