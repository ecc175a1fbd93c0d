package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/llm/llmtest"
)

// llmEnv is a platform whose LLM gateway routes to two scripted upstreams: model "base" (the base
// model, 1 and 2 credits per million input and output tokens) and "max" (premium, 3 and 15), each on
// the primary provider then the backup.
type llmEnv struct {
	*apptest.Env
	primary, backup *llmtest.Server
}

const llmTestCatalog = `
providers:
  - id: primary
    baseUrlEnv: PRIMARY_URL
    apiKeyEnv: PRIMARY_KEY
    timeout: 5s
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

// llmProviderKey is the primary provider's key: it must reach the provider and nothing else.
const llmProviderKey = "sk-upstream-secret-7f3a"

func newLLMEnv(t *testing.T) *llmEnv {
	t.Helper()
	e := &llmEnv{primary: llmtest.New(), backup: llmtest.New()}
	t.Cleanup(e.primary.Close)
	t.Cleanup(e.backup.Close)
	vars := map[string]string{"PRIMARY_URL": e.primary.URL(), "PRIMARY_KEY": llmProviderKey, "BACKUP_URL": e.backup.URL()}
	cat, err := llm.ParseCatalog([]byte(llmTestCatalog), func(k string) string { return vars[k] })
	require.NoError(t, err)
	e.Env = apptest.NewWith(t, apptest.Options{LLM: cat, NoWorker: true})
	return e
}

// account creates an account holding millicredits and its first key (every scope and service).
func (e *llmEnv) account(t *testing.T, millicredits int64) (accountID, key string) {
	t.Helper()
	id, token := e.NewAccount(t, "llm")
	require.NoError(t, ledger.New(e.DB).Grant(context.Background(), e.DB, id, millicredits, "test"))
	r := e.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	return id, r.Body["apiKey"].(map[string]any)["secret"].(string)
}

// requireBalance waits until the account's available credits are want and none are held: a stream's
// charge commits just after its last event was sent.
func (e *llmEnv) requireBalance(t *testing.T, accountID string, want int64) {
	t.Helper()
	e.requireBalanceIn(t, accountID, want, want)
}

// requireBalanceIn waits until the account's available credits are within [low, high] and none are held.
func (e *llmEnv) requireBalanceIn(t *testing.T, accountID string, low, high int64) {
	t.Helper()
	var b ledger.Balance
	ok := assert.Eventually(t, func() bool {
		var err error
		b, err = ledger.New(e.DB).Balance(context.Background(), accountID)
		require.NoError(t, err)
		return b.Held == 0 && b.Available >= low && b.Available <= high
	}, 10*time.Second, 20*time.Millisecond)
	require.True(t, ok, "balance %d available, %d held; want [%d, %d] available", b.Available, b.Held, low, high)
}

// balance is the account's available credits, once no hold is open.
func (e *llmEnv) balance(t *testing.T, accountID string) int64 {
	t.Helper()
	var b ledger.Balance
	require.Eventually(t, func() bool {
		var err error
		b, err = ledger.New(e.DB).Balance(context.Background(), accountID)
		require.NoError(t, err)
		return b.Held == 0
	}, 10*time.Second, 20*time.Millisecond, "a hold stayed open")
	return b.Available
}

// post sends a chat completion and returns the answer unread.
func (e *llmEnv) post(t *testing.T, key string, body any, headers ...string) *http.Response {
	t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, e.URL+"/llm/v1/chat/completions", bytes.NewReader(raw))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// prompt is a user message of at least 2000 bytes, so holds cover the scripted usages.
func prompt(text string) []map[string]any {
	return []map[string]any{{"role": "user", "content": text + strings.Repeat(" .", 1000)}}
}

func readAll(t *testing.T, r *http.Response) []byte {
	t.Helper()
	data, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	return data
}

// openAIError decodes an answer in OpenAI's error shape.
func openAIError(t *testing.T, r *http.Response) llm.ErrorDetail {
	t.Helper()
	var body llm.ErrorBody
	raw := readAll(t, r)
	require.NoError(t, json.Unmarshal(raw, &body), "%s", raw)
	require.NotEmpty(t, body.Error.Message, "%s", raw)
	require.NotEmpty(t, body.Error.Type, "%s", raw)
	return body.Error
}

// events reads a stream's data lines up to [DONE] (or its end).
func events(t *testing.T, r *http.Response) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, data)
			if data == "[DONE]" {
				break
			}
		}
	}
	return out
}

func usageOf(p, c int64) *llm.Usage {
	return &llm.Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
}

func TestLLMCompletion(t *testing.T) {
	t.Parallel()
	e := newLLMEnv(t)
	acct, key := e.account(t, 1_000_000)
	e.primary.Push(llmtest.Answer{Text: "Hello!", Usage: usageOf(1500, 700)})

	r := e.post(t, key, map[string]any{"model": "max", "messages": prompt("hi"), "max_tokens": 1000,
		"response_format": map[string]any{"type": "json_object"}, "temperature": 0.2, "seed": 7})
	raw := readAll(t, r)
	require.Equal(t, http.StatusOK, r.StatusCode, "%s", raw)
	require.NotEmpty(t, r.Header.Get("X-Request-Id"))
	var resp llm.ChatResponse
	require.NoError(t, json.Unmarshal(raw, &resp))
	require.Equal(t, "Hello!", resp.Choices[0].Message.Text())
	// (1500 × 3000 + 700 × 15000) / 1e6 = 15 millicredits exactly.
	e.requireBalance(t, acct, 1_000_000-15)

	// The upstream got the upstream model, the provider's key, response_format and the pass-through seed.
	got := e.primary.Requests()[0]
	require.Equal(t, "large-1", got.Chat.Model)
	require.Equal(t, "Bearer "+llmProviderKey, got.Header.Get("Authorization"))
	require.JSONEq(t, `{"type":"json_object"}`, string(got.Chat.ResponseFormat))
	require.JSONEq(t, `7`, string(got.Chat.Extra["seed"]))
	require.NotContains(t, string(got.Body), key, "the platform key never reaches a provider")

	// The audit event (batched: the answer was streamed out as it came) records the charge.
	require.Eventually(t, func() bool {
		var charged []int64
		require.NoError(t, e.DB.NewRaw("SELECT charged_millicredits FROM audit_events WHERE account_id = ? AND operation = 'llm.chat.completions'", acct).
			Scan(context.Background(), &charged))
		return len(charged) == 1 && charged[0] == 15
	}, 10*time.Second, 20*time.Millisecond)
}

func TestLLMStreamWithUsageAndToolCalls(t *testing.T) {
	t.Parallel()
	e := newLLMEnv(t)
	acct, key := e.account(t, 1_000_000)
	e.primary.Push(
		llmtest.Answer{Text: "one two three", Usage: usageOf(2000, 1000)},
		llmtest.Answer{ToolCalls: []llm.ToolCall{{ID: "call_1", Function: llm.FunctionCall{Name: "get_balance", Arguments: `{"asset":"USDC"}`}}},
			Usage: usageOf(2000, 1000)},
	)
	// With include_usage the client gets the usage chunk.
	r := e.post(t, key, map[string]any{"model": "base", "messages": prompt("count"), "max_tokens": 1000, "stream": true,
		"stream_options": map[string]any{"include_usage": true}})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.Equal(t, "text/event-stream", r.Header.Get("Content-Type"))
	evs := events(t, r)
	require.Equal(t, "[DONE]", evs[len(evs)-1])
	var text strings.Builder
	var usage *llm.Usage
	for _, ev := range evs[:len(evs)-1] {
		var c llm.ChatChunk
		require.NoError(t, json.Unmarshal([]byte(ev), &c))
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Text())
		}
		if c.Usage != nil {
			usage = c.Usage
		}
	}
	require.Equal(t, "one two three", text.String())
	require.Equal(t, usageOf(2000, 1000), usage)
	e.requireBalance(t, acct, 1_000_000-4) // (2000 × 1000 + 1000 × 2000) / 1e6
	require.True(t, e.primary.Requests()[0].Chat.StreamOptions.IncludeUsage)

	// Without it, the gateway still asks the upstream for usage (and charges it) but does not forward it.
	r = e.post(t, key, map[string]any{"model": "base", "messages": prompt("call"), "max_tokens": 1000, "stream": true,
		"tools":       []map[string]any{{"type": "function", "function": map[string]any{"name": "get_balance", "parameters": map[string]any{"type": "object"}}}},
		"tool_choice": "auto"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	evs = events(t, r)
	var name, args string
	for _, ev := range evs[:len(evs)-1] {
		var c llm.ChatChunk
		require.NoError(t, json.Unmarshal([]byte(ev), &c))
		require.Nil(t, c.Usage)
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				require.NotNil(t, tc.Index)
				name += tc.Function.Name
				args += tc.Function.Arguments
			}
		}
	}
	require.Equal(t, "get_balance", name)
	require.JSONEq(t, `{"asset":"USDC"}`, args)
	require.True(t, e.primary.Requests()[1].Chat.StreamOptions.IncludeUsage)
	require.JSONEq(t, `"auto"`, string(e.primary.Requests()[1].Chat.ToolChoice))
	e.requireBalance(t, acct, 1_000_000-8)
}

func TestLLMFailOverAndDroppedStream(t *testing.T) {
	t.Parallel()
	e := newLLMEnv(t)
	acct, key := e.account(t, 1_000_000)
	// A provider error before anything was streamed fails over.
	e.primary.Push(llmtest.Answer{Status: http.StatusInternalServerError})
	e.backup.Push(llmtest.Answer{Text: "from the backup", Usage: usageOf(2000, 1000)})
	r := e.post(t, key, map[string]any{"model": "base", "messages": prompt("hi"), "max_tokens": 1000, "stream": true})
	evs := events(t, r)
	require.Equal(t, "[DONE]", evs[len(evs)-1])
	e.requireBalance(t, acct, 1_000_000-4)

	// A stream that breaks after its first chunks is not failed over: the client gets an error event,
	// and the call is charged the estimate (prompt bytes / 4; one token per delta received).
	e.primary.Push(llmtest.Answer{Text: "a b c d e f", DropAfter: 3})
	msgs := prompt("drop")
	r = e.post(t, key, map[string]any{"model": "base", "messages": msgs, "max_tokens": 1000, "stream": true})
	evs = events(t, r)
	require.NotEqual(t, "[DONE]", evs[len(evs)-1])
	require.Contains(t, evs[len(evs)-1], `"error"`)
	require.Equal(t, 1, e.backup.Completions())
	raw, _ := json.Marshal(msgs)
	promptTokens := int64(len(raw)+len("null")+3) / 4
	want := (promptTokens*1000 + 2*2000 + 999_999) / 1_000_000 // two content deltas came before the cut
	e.requireBalance(t, acct, 1_000_000-4-want)
}

func TestLLMClientDisconnectIsChargedForWhatWasGenerated(t *testing.T) {
	t.Parallel()
	e := newLLMEnv(t)
	acct, key := e.account(t, 1_000_000)
	e.primary.Push(llmtest.Answer{Chunks: strings.Split(strings.Repeat("x", 50), ""), ChunkDelay: 50 * time.Millisecond})
	msgs := prompt("long")
	r := e.post(t, key, map[string]any{"model": "max", "messages": msgs, "max_tokens": 1000, "stream": true})
	require.Equal(t, http.StatusOK, r.StatusCode)
	sc := bufio.NewScanner(r.Body)
	deltas := 0
	for deltas < 3 && sc.Scan() {
		if strings.Contains(sc.Text(), `"content":"x"`) {
			deltas++
		}
	}
	require.NoError(t, r.Body.Close())
	// Charged: the prompt estimate and the deltas generated before the gateway saw the client go (at
	// least the 3 read, fewer than the 50 scripted); the hold is closed.
	raw, _ := json.Marshal(msgs)
	promptTokens := int64(len(raw)+len("null")+3) / 4
	low := (promptTokens*3000 + 3*15000 + 999_999) / 1_000_000
	high := (promptTokens*3000 + 49*15000 + 999_999) / 1_000_000
	e.requireBalanceIn(t, acct, 1_000_000-high, 1_000_000-low)
}

func TestLLMMaxModeFallback(t *testing.T) {
	t.Parallel()
	e := newLLMEnv(t)
	// 1.2 credits: the premium hold for 100000 max tokens (1.5 credits) cannot be covered.
	acct, key := e.account(t, 1_200)
	e.primary.Push(llmtest.Answer{Text: "base answer", Usage: usageOf(2000, 1000)})
	body := map[string]any{"model": "max", "messages": prompt("hi"), "max_tokens": 100_000}
	r := e.post(t, key, body)
	raw := readAll(t, r)
	require.Equal(t, http.StatusOK, r.StatusCode, "%s", raw)
	require.Equal(t, "max->base", r.Header.Get(llm.HeaderFallback))
	require.Equal(t, "small-1", e.primary.Requests()[0].Chat.Model)
	e.requireBalance(t, acct, 1_200-4)

	r = e.post(t, key, body, llm.HeaderNoFallback, "1")
	require.Equal(t, http.StatusPaymentRequired, r.StatusCode)
	e402 := openAIError(t, r)
	require.Equal(t, "insufficient_quota", *e402.Code)
	require.Equal(t, 1, e.primary.Completions())

	// Streamed, the header comes with the stream.
	e.primary.Push(llmtest.Answer{Text: "streamed", Usage: usageOf(2000, 1000)})
	body["stream"] = true
	r = e.post(t, key, body)
	require.Equal(t, "max->base", r.Header.Get(llm.HeaderFallback))
	events(t, r)
	e.requireBalance(t, acct, 1_200-8)
}

func TestLLMAccessAndErrorsInOpenAIShape(t *testing.T) {
	t.Parallel()
	e := newLLMEnv(t)
	_, key := e.account(t, 1_000_000)

	// No key: 401 in OpenAI's shape.
	r := e.post(t, "", map[string]any{"model": "base", "messages": prompt("hi")})
	require.Equal(t, http.StatusUnauthorized, r.StatusCode)
	require.Equal(t, "authentication_error", openAIError(t, r).Type)

	// A key without managed-agents: 403 in OpenAI's shape, for completions and models alike.
	mk := e.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: key, Body: map[string]any{"services": []string{"managed-workflows"}},
		Headers: map[string]string{"Idempotency-Key": "k1"}})
	require.Equal(t, http.StatusCreated, mk.Status, "%s", mk.Raw)
	other := mk.Body["apiKey"].(map[string]any)["secret"].(string)
	r = e.post(t, other, map[string]any{"model": "base", "messages": prompt("hi")})
	require.Equal(t, http.StatusForbidden, r.StatusCode)
	denied := openAIError(t, r)
	require.Equal(t, "permission_error", denied.Type)
	require.Equal(t, "service_access_denied", *denied.Code)
	models := e.Do(t, apptest.Req{Method: http.MethodGet, Path: "/llm/v1/models", Key: other})
	require.Equal(t, http.StatusForbidden, models.Status)
	require.Equal(t, "permission_error", models.Body["error"].(map[string]any)["type"])
	require.Zero(t, e.primary.Completions())

	// Strict decoding names the field.
	for _, tc := range []struct {
		body  string
		param string
	}{
		{`{"model":"base","messages":[{"role":"user","content":"hi"}],"frobnicate":1}`, "frobnicate"},
		{`{"model":"base","messages":"hi"}`, "messages"},
		{`{"model":"base","messages":[{"role":"user","content":"hi"}],"max_tokens":"many"}`, "max_tokens"},
		{`{"model":"base","messages":[{"role":"robot","content":"hi"}]}`, "messages[0].role"},
		{`{"messages":[{"role":"user","content":"hi"}]}`, "model"},
	} {
		r := e.post(t, key, json.RawMessage(tc.body))
		require.Equal(t, http.StatusBadRequest, r.StatusCode, tc.body)
		got := openAIError(t, r)
		require.Equal(t, "invalid_request_error", got.Type)
		require.NotNil(t, got.Param, tc.body)
		require.Equal(t, tc.param, *got.Param, tc.body)
	}

	// An unknown model is 404 model_not_found.
	r = e.post(t, key, map[string]any{"model": "gpt-9", "messages": prompt("hi")})
	require.Equal(t, http.StatusNotFound, r.StatusCode)
	require.Equal(t, "model_not_found", *openAIError(t, r).Code)

	// The model list.
	list := e.Do(t, apptest.Req{Method: http.MethodGet, Path: "/llm/v1/models", Key: key})
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	require.Equal(t, "list", list.Body["object"])
	data := list.Body["data"].([]any)
	require.Len(t, data, 2)
	require.Equal(t, "base", data[0].(map[string]any)["id"])
	require.Equal(t, true, data[1].(map[string]any)["premium"])
}

func TestLLMRateLimitIn429WithRetryAfter(t *testing.T) {
	t.Parallel()
	e := newLLMEnv(t)
	_, key := e.account(t, 1_000_000)
	mk := e.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: key,
		Body:    map[string]any{"limits": []map[string]any{{"operation": "llm.chat.completions", "requestsPerMinute": 1}}},
		Headers: map[string]string{"Idempotency-Key": "limited"}})
	require.Equal(t, http.StatusCreated, mk.Status, "%s", mk.Raw)
	limited := mk.Body["apiKey"].(map[string]any)["secret"].(string)
	e.primary.Repeat(llmtest.Answer{Text: "ok"})
	var last *http.Response
	for i := 0; i < 3; i++ {
		last = e.post(t, limited, map[string]any{"model": "base", "messages": prompt(fmt.Sprint(i)), "max_tokens": 100})
		if last.StatusCode == http.StatusTooManyRequests {
			break
		}
		readAll(t, last)
	}
	require.Equal(t, http.StatusTooManyRequests, last.StatusCode)
	require.NotEmpty(t, last.Header.Get("Retry-After"))
	require.Equal(t, "rate_limit_error", openAIError(t, last).Type)
}
