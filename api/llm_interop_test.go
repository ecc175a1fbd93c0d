package api_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/llm/llmtest"
	"github.com/svcplatform/svc/internal/testnode"
)

// openAINodePackage is the official OpenAI JavaScript client the interop test drives the gateway with
// (a version whose engines admit Node.js 20).
const openAINodePackage = "openai@6.30.1"

// llmInteropResult is what testdata/llm_openai.mjs printed.
type llmInteropResult struct {
	Completion struct {
		Text      string    `json:"text"`
		Usage     llm.Usage `json:"usage"`
		RequestID string    `json:"requestId"`
	} `json:"completion"`
	Stream struct {
		Text  string     `json:"text"`
		Usage *llm.Usage `json:"usage"`
	} `json:"stream"`
	ToolCall struct {
		Calls []struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"calls"`
		Finish string `json:"finish"`
	} `json:"toolCall"`
	Error struct {
		Thrown     bool   `json:"thrown"`
		IsAPIError bool   `json:"isAPIError"`
		Status     int    `json:"status"`
		Type       string `json:"type"`
		Code       string `json:"code"`
		Param      string `json:"param"`
		Message    string `json:"message"`
		RequestID  string `json:"requestId"`
	} `json:"error"`
	Dropped struct {
		Thrown     bool   `json:"thrown"`
		IsAPIError bool   `json:"isAPIError"`
		Message    string `json:"message"`
	} `json:"dropped"`
}

// TestLLMInteropOpenAIClient: the official openai npm client, pointed at <host>/llm/v1, reads a
// completion, a stream with usage, a streamed tool call, an error and a dropped stream from the
// gateway, whose upstream is the scripted llmtest server; each call is charged exactly.
func TestLLMInteropOpenAIClient(t *testing.T) {
	t.Parallel()
	testnode.Require(t, "this test drives the LLM gateway with the official openai JavaScript client")
	dir := t.TempDir()
	require.NoError(t, testnode.CopyFile(filepath.Join(dir, "llm_openai.mjs"), filepath.Join("testdata", "llm_openai.mjs")))
	installed, done := make(chan interopInstall, 1), make(chan struct{})
	go func() {
		defer close(done)
		took, err := testnode.Install(t.Context(), dir, openAINodePackage)
		installed <- interopInstall{took: took, err: err}
	}()
	t.Cleanup(func() { <-done })

	e := newLLMEnv(t)
	acct, key := e.account(t, 1_000_000)
	e.primary.Push(
		llmtest.Answer{Text: "Hello from svc", Usage: usageOf(2000, 1000)},
		llmtest.Answer{Text: "one two three", Usage: usageOf(2000, 1000)},
		llmtest.Answer{ToolCalls: []llm.ToolCall{{ID: "call_42", Function: llm.FunctionCall{Name: "get_balance", Arguments: `{"asset":"USDC"}`}}},
			Usage: usageOf(2000, 1000)},
		llmtest.Answer{Text: "a b c d e", DropAfter: 3},
	)
	in := <-installed
	require.NoError(t, in.err)
	t.Logf("npm install %s took %s", openAINodePackage, in.took)

	stdout := testnode.Run(t, dir, "llm_openai.mjs", "SVC_URL="+e.URL, "SVC_KEY="+key)
	var res llmInteropResult
	require.NoError(t, json.Unmarshal(stdout, &res), "%s", stdout)

	require.Equal(t, "Hello from svc", res.Completion.Text)
	require.Equal(t, *usageOf(2000, 1000), res.Completion.Usage)
	require.NotEmpty(t, res.Completion.RequestID)
	require.Equal(t, "one two three", res.Stream.Text)
	require.Equal(t, usageOf(2000, 1000), res.Stream.Usage)
	require.Len(t, res.ToolCall.Calls, 1)
	require.Equal(t, "call_42", res.ToolCall.Calls[0].ID)
	require.Equal(t, "get_balance", res.ToolCall.Calls[0].Name)
	require.JSONEq(t, `{"asset":"USDC"}`, res.ToolCall.Calls[0].Arguments)
	require.Equal(t, "tool_calls", res.ToolCall.Finish)
	require.True(t, res.Error.Thrown)
	require.True(t, res.Error.IsAPIError)
	require.Equal(t, http.StatusNotFound, res.Error.Status)
	require.Equal(t, "model_not_found", res.Error.Code)
	require.Equal(t, "model", res.Error.Param)
	require.Contains(t, res.Error.Message, "no-such-model")
	require.NotEmpty(t, res.Error.RequestID)
	require.True(t, res.Dropped.Thrown, "a dropped stream is an error the client sees")
	require.True(t, res.Dropped.IsAPIError)

	// Charged: three calls at (2000 × 1000 + 1000 × 2000) / 1e6 = 4 millicredits, and the dropped stream
	// its estimate (its prompt's bytes / 4, two content deltas).
	reqs := e.primary.Requests()
	require.Len(t, reqs, 4)
	msgs, _ := json.Marshal(reqs[3].Chat.Messages)
	promptTokens := int64(len(msgs)+len("null")+3) / 4
	dropped := (promptTokens*1000 + 2*2000 + 999_999) / 1_000_000
	require.EqualValues(t, 1_000_000-3*4-dropped, e.balance(t, acct))
	for _, r := range reqs {
		require.NotContains(t, string(r.Body), key, "the platform key never reaches a provider")
	}
}
