package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/llm/llmtest"
	"github.com/svcplatform/svc/internal/testdb"
)

// fixture is a gateway over real PostgreSQL with two providers for the premium model and one for the
// base model, each a scripted upstream.
type fixture struct {
	gw       *llm.Gateway
	led      *ledger.Ledger
	db       *bun.DB
	primary  *llmtest.Server
	backup   *llmtest.Server
	caller   llm.Caller
	catalog  *llm.Catalog
	accounts int
}

const testCatalog = `
providers:
  - id: primary
    baseUrlEnv: PRIMARY_URL
    apiKeyEnv: PRIMARY_KEY
    timeout: 2s
  - id: backup
    baseUrlEnv: BACKUP_URL
models:
  - id: base
    upstream: small-1
    providers: [primary, backup]
    inputPerMillion: 1
    outputPerMillion: 2
    base: true
  - id: max
    upstream: large-1
    providers: [primary, backup]
    inputPerMillion: 3
    outputPerMillion: 15
    premium: true
`

func newFixture(t *testing.T, credits int64) *fixture {
	t.Helper()
	f := &fixture{db: testdb.New(t), primary: llmtest.New(), backup: llmtest.New()}
	t.Cleanup(f.primary.Close)
	t.Cleanup(f.backup.Close)
	env := map[string]string{"PRIMARY_URL": f.primary.URL(), "PRIMARY_KEY": "sk-primary-secret", "BACKUP_URL": f.backup.URL()}
	cat, err := llm.ParseCatalog([]byte(testCatalog), func(k string) string { return env[k] })
	require.NoError(t, err)
	f.catalog = cat
	f.led = ledger.New(f.db)
	f.gw = llm.New(llm.Options{Catalog: cat, Ledger: f.led})
	f.caller = f.account(t, credits)
	return f
}

// account creates an account holding millicredits and returns it as a caller.
func (f *fixture) account(t *testing.T, millicredits int64) llm.Caller {
	t.Helper()
	f.accounts++
	id := fmt.Sprintf("acct_llm%d", f.accounts)
	_, err := f.db.ExecContext(context.Background(), "INSERT INTO accounts (id, name) VALUES (?, ?)", id, id)
	require.NoError(t, err)
	if millicredits > 0 {
		require.NoError(t, f.led.Grant(context.Background(), f.db, id, millicredits, "test"))
	}
	return llm.Caller{AccountID: id, ProjectID: "proj_x", KeyID: "key_x"}
}

func (f *fixture) available(t *testing.T, c llm.Caller) int64 {
	t.Helper()
	b, err := f.led.Balance(context.Background(), c.AccountID)
	require.NoError(t, err)
	require.Zero(t, b.Held, "no hold may stay open")
	return b.Available
}

// chat is a request whose prompt is at least 2000 bytes, so its hold covers the scripted usages.
func chat(model, text string, maxTokens int) llm.ChatRequest {
	text += strings.Repeat(" .", 1000)
	return llm.ChatRequest{Model: model, Messages: []llm.Message{llm.TextMessage("user", text)}, MaxTokens: &maxTokens}
}

func usage(p, c int64) *llm.Usage {
	return &llm.Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
}

func TestCompleteChargesReportedUsageOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1_000_000)
	f.primary.Push(llmtest.Answer{Text: "hello there", Usage: usage(1200, 345)}, llmtest.Answer{Text: "again", Usage: usage(1200, 345)})
	ctx := context.Background()

	resp, ch, err := f.gw.Complete(ctx, f.caller, chat("max", "hi", 500), "job_1/step_1")
	require.NoError(t, err)
	require.Equal(t, "hello there", resp.Choices[0].Message.Text())
	// 1200 × 3000 + 345 × 15000 millicredits per million tokens = 8.775 → 9 millicredits (rounded up).
	want := llm.Cost(f.catalog.Models[1], 1200, 345)
	require.EqualValues(t, 9, want)
	require.Equal(t, llm.Charge{Model: "max", Usage: *usage(1200, 345), Millicredits: want}, ch)
	require.EqualValues(t, 1_000_000-want, f.available(t, f.caller))

	// A retry of the same reference answers again and charges nothing more.
	_, again, err := f.gw.Complete(ctx, f.caller, chat("max", "hi", 500), "job_1/step_1")
	require.NoError(t, err)
	require.Equal(t, want, again.Millicredits)
	require.EqualValues(t, 1_000_000-want, f.available(t, f.caller))

	// The upstream got the upstream model name, the provider's key and max_tokens.
	reqs := f.primary.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, "large-1", reqs[0].Chat.Model)
	require.Equal(t, "Bearer sk-primary-secret", reqs[0].Header.Get("Authorization"))
	require.Equal(t, 500, *reqs[0].Chat.MaxTokens)
	require.Zero(t, f.backup.Completions())
}

func TestCompleteChargesExactMillicredits(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 10_000_000)
	f.primary.Push(llmtest.Answer{Text: "x", Usage: usage(40_000, 12_345)})
	_, ch, err := f.gw.Complete(context.Background(), f.caller, chat("max", strings.Repeat("word ", 20_000), 20_000), "r1")
	require.NoError(t, err)
	// (40000 × 3000 + 12345 × 15000) / 1e6 = 120 + 185.175 → 306 millicredits.
	require.EqualValues(t, 306, ch.Millicredits)
	require.EqualValues(t, 10_000_000-306, f.available(t, f.caller))
}

func TestCompleteDefaultMaxTokens(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1_000_000)
	f.primary.Push(llmtest.Answer{Text: "ok"})
	req := llm.ChatRequest{Model: "base", Messages: []llm.Message{llm.TextMessage("user", "hi")}}
	_, _, err := f.gw.Complete(context.Background(), f.caller, req, "r")
	require.NoError(t, err)
	require.Equal(t, llm.DefaultMaxTokens, *f.primary.Requests()[0].Chat.MaxTokens)
}

func TestCompleteToolCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1_000_000)
	f.primary.Push(llmtest.Answer{ToolCalls: []llm.ToolCall{{ID: "call_a", Function: llm.FunctionCall{Name: "get_balance", Arguments: `{"asset":"USDC"}`}}},
		Usage: usage(2_000, 20_000)})
	req := chat("base", "what is my balance?", 20_000)
	req.Tools = []llm.Tool{{Type: "function", Function: llm.FunctionDef{Name: "get_balance", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	req.ToolChoice = json.RawMessage(`"auto"`)
	resp, ch, err := f.gw.Complete(context.Background(), f.caller, req, "r")
	require.NoError(t, err)
	require.Equal(t, "tool_calls", resp.Choices[0].FinishReason)
	require.Equal(t, "get_balance", resp.Choices[0].Message.ToolCalls[0].Function.Name)
	require.JSONEq(t, `{"asset":"USDC"}`, resp.Choices[0].Message.ToolCalls[0].Function.Arguments)
	require.EqualValues(t, 42, ch.Millicredits) // (2000 × 1000 + 20000 × 2000) / 1e6
	require.EqualValues(t, 1_000_000-42, f.available(t, f.caller))
	got := f.primary.Requests()[0].Chat
	require.Equal(t, "get_balance", got.Tools[0].Function.Name)
	require.JSONEq(t, `"auto"`, string(got.ToolChoice))
}

func TestCompleteFailsOverOnProviderError(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1_000_000)
	f.primary.Push(llmtest.Answer{Status: http.StatusServiceUnavailable})
	f.backup.Push(llmtest.Answer{Text: "from backup", Usage: usage(1000, 1000)})
	resp, ch, err := f.gw.Complete(context.Background(), f.caller, chat("base", "hi", 1000), "r")
	require.NoError(t, err)
	require.Equal(t, "from backup", resp.Choices[0].Message.Text())
	require.EqualValues(t, 3, ch.Millicredits)
	require.EqualValues(t, 1_000_000-3, f.available(t, f.caller))
	// The backup provider names no key: none is sent.
	require.Empty(t, f.backup.Requests()[0].Header.Get("Authorization"))
}

func TestCompleteFailsOverOnTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1_000_000)
	f.primary.Push(llmtest.Answer{Delay: time.Minute}) // the provider's timeout is 2s
	f.backup.Push(llmtest.Answer{Text: "late but fine", Usage: usage(10, 10)})
	resp, _, err := f.gw.Complete(context.Background(), f.caller, chat("base", "hi", 1000), "r")
	require.NoError(t, err)
	require.Equal(t, "late but fine", resp.Choices[0].Message.Text())
}

func TestCompleteRequestErrorIsPassedOnAndFreesTheHold(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1_000_000)
	code := "context_length_exceeded"
	f.primary.Push(llmtest.Answer{Status: http.StatusBadRequest, Error: &llm.ErrorBody{Error: llm.ErrorDetail{
		Message: "too long", Type: "invalid_request_error", Code: &code}}})
	_, _, err := f.gw.Complete(context.Background(), f.caller, chat("base", "hi", 1000), "r")
	var e *llm.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusBadRequest, e.Status)
	require.Equal(t, "context_length_exceeded", *e.Body.Error.Code)
	require.Zero(t, f.backup.Completions(), "a request's own error does not fail over")
	require.EqualValues(t, 1_000_000, f.available(t, f.caller))

	// A retry of the failed reference holds afresh and is charged once.
	f.primary.Push(llmtest.Answer{Text: "ok", Usage: usage(1000, 1000)})
	_, ch, err := f.gw.Complete(context.Background(), f.caller, chat("base", "hi", 1000), "r")
	require.NoError(t, err)
	require.EqualValues(t, 3, ch.Millicredits)
	require.EqualValues(t, 1_000_000-3, f.available(t, f.caller))
}

func TestCompleteEveryProviderDown(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1_000_000)
	f.primary.Push(llmtest.Answer{Status: http.StatusInternalServerError})
	f.backup.Push(llmtest.Answer{Status: http.StatusTooManyRequests})
	_, _, err := f.gw.Complete(context.Background(), f.caller, chat("base", "hi", 1000), "r")
	var e *llm.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusBadGateway, e.Status)
	require.EqualValues(t, 1_000_000, f.available(t, f.caller))
}

func TestMaxModeFallsBackToTheBaseModel(t *testing.T) {
	t.Parallel()
	// 1.2 credits: the premium model's hold for 100000 max tokens (1.5 credits at 15/M) cannot be
	// covered at 1.2 credits; the base model's (0.2 credits) can.
	f := newFixture(t, 1_200)
	f.primary.Push(llmtest.Answer{Text: "base answer", Usage: usage(1000, 1000)})
	resp, ch, err := f.gw.Complete(context.Background(), f.caller, chat("max", "hi", 100_000), "r")
	require.NoError(t, err)
	require.Equal(t, "base answer", resp.Choices[0].Message.Text())
	require.True(t, ch.Fallback)
	require.Equal(t, "base", ch.Model)
	require.Equal(t, "small-1", f.primary.Requests()[0].Chat.Model)
	require.EqualValues(t, 3, ch.Millicredits)
	require.EqualValues(t, 1_200-3, f.available(t, f.caller))

	// Refusing the fall-back is 402 insufficient_quota and charges nothing.
	_, _, _, err = f.gw.CompleteWith(context.Background(), f.caller, chat("max", "hi", 100_000), "r2", llm.CallOptions{NoFallback: true})
	var e *llm.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusPaymentRequired, e.Status)
	require.Equal(t, "insufficient_quota", *e.Body.Error.Code)
	require.EqualValues(t, 1_200-3, f.available(t, f.caller))
	require.Equal(t, 1, f.primary.Completions())
}

func TestUnknownModelAndUnconfiguredProvider(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1_000)
	_, _, err := f.gw.Complete(context.Background(), f.caller, chat("nope", "hi", 10), "r")
	var e *llm.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusNotFound, e.Status)
	require.Equal(t, "model_not_found", *e.Body.Error.Code)

	cat, err := llm.LoadCatalog("", func(string) string { return "" })
	require.NoError(t, err)
	gw := llm.New(llm.Options{Catalog: cat, Ledger: f.led})
	_, _, err = gw.Complete(context.Background(), f.caller, chat(cat.Base().ID, "hi", 10), "r")
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusServiceUnavailable, e.Status)
	rec := httptest.NewRecorder()
	llm.WriteError(rec, e)
	require.JSONEq(t, `{"error":{"message":"no provider of the model \"svc-base\" is configured on this platform (see llm.yaml and SVC_LLM_BASE_URL)",
		"type":"server_error","param":null,"code":"provider_not_configured"}}`, rec.Body.String())
}
