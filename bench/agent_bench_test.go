package bench

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/llm"
)

// agentJobs is how many one-tool jobs BenchmarkAgentJobOverhead runs, one at a time (under the
// standard tier's 100 messages a day).
const agentJobs = 40

// instantModel answers at once: a prompt with a get_balance call, the tool's result with a text answer.
// It adds up the time spent inside it (the job's model time).
type instantModel struct {
	mu    sync.Mutex
	spent time.Duration
}

func (m *instantModel) Complete(_ context.Context, _ llm.Caller, req llm.ChatRequest, _ string) (*llm.ChatResponse, llm.Charge, error) {
	start := time.Now()
	reply := llm.TextMessage("assistant", "Your balance is shown above.")
	if last := req.Messages[len(req.Messages)-1]; last.Role != "tool" {
		reply = llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "call_1", Type: "function",
			Function: llm.FunctionCall{Name: "get_balance", Arguments: "{}"}}}}
	}
	usage := llm.Usage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110}
	resp := &llm.ChatResponse{ID: "cmpl", Object: "chat.completion", Choices: []llm.Choice{{Message: reply, FinishReason: "stop"}}, Usage: &usage}
	m.mu.Lock()
	m.spent += time.Since(start)
	m.mu.Unlock()
	return resp, llm.Charge{Model: "base", Usage: usage, Millicredits: 10}, nil
}

// BenchmarkAgentJobOverhead runs 40 one-tool agent jobs one at a time (POST /agent/prompt; the model
// asks for get_balance, the tool runs as the job's key through the API's engine, the model answers) and
// reports the wall time from the POST until GET /agent/job/{id} (polled every 2 ms) answers succeeded,
// minus the time spent in the model (an instant in-process model): the platform's overhead per job.
func BenchmarkAgentJobOverhead(b *testing.B) {
	model := &instantModel{}
	env := apptest.NewWith(b, apptest.Options{AgentModel: model})
	key := env.FirstKey(b)
	iter := 0
	for b.Loop() {
		if iter++; iter > 1 {
			b.Fatal("run with -benchtime 1x")
		}
		overheads := make([]time.Duration, 0, agentJobs)
		for i := range agentJobs {
			model.mu.Lock()
			before := model.spent
			model.mu.Unlock()
			start := time.Now()
			r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/agent/prompt", Key: key,
				Body: map[string]any{"prompt": "what is my balance?"}, Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("job-%d", i)}})
			require.Equal(b, http.StatusAccepted, r.Status, "%s", r.Raw)
			id := r.Body["job"].(map[string]any)["id"].(string)
			waitJobSucceeded(b, env, key, id)
			wall := time.Since(start)
			model.mu.Lock()
			inModel := model.spent - before
			model.mu.Unlock()
			overheads = append(overheads, wall-inModel)
		}
		slices.Sort(overheads)
		p50, p99 := overheads[len(overheads)/2], overheads[len(overheads)*99/100]
		b.ReportMetric(float64(p50.Microseconds())/1000, "overhead-p50-ms")
		b.ReportMetric(float64(p99.Microseconds())/1000, "overhead-p99-ms")
		b.Logf("%d one-tool jobs: overhead p50 %v, p99 %v, min %v", agentJobs, p50, p99, overheads[0])
	}
}

// waitJobSucceeded polls the agent job every 2 ms until it has succeeded (failing on failed or after a minute).
func waitJobSucceeded(b *testing.B, env *apptest.Env, key, id string) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		r := env.Do(b, apptest.Req{Method: http.MethodGet, Path: "/agent/job/" + id, Key: key})
		require.Equal(b, http.StatusOK, r.Status, "%s", r.Raw)
		switch r.Body["job"].(map[string]any)["status"] {
		case "succeeded":
			return
		case "failed", "cancelled":
			b.Fatalf("job %s ended %v: %s", id, r.Body["job"].(map[string]any)["status"], r.Raw)
		}
		time.Sleep(2 * time.Millisecond) // the poll's period, not synchronisation
	}
	b.Fatalf("job %s did not succeed within a minute", id)
}
