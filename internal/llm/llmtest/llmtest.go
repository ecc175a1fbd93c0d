// Package llmtest is a scripted upstream for tests: an httptest server speaking OpenAI's
// chat-completions protocol (POST /v1/chat/completions, GET /v1/models) that answers from a script —
// text, tool calls, usage, errors in OpenAI's error shape, a stream dropped after some chunks, a delay —
// and records every request it got, so a test can check what a model was sent (no secret, say).
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/svcplatform/svc/internal/llm"
)

// Answer is one scripted answer to a chat completion.
type Answer struct {
	// Text is the assistant's content. Streamed, it is sent in Chunks when set, else word by word.
	Text   string
	Chunks []string
	// ToolCalls are the functions the model calls (streamed as deltas: the name, then the arguments in
	// two pieces).
	ToolCalls []llm.ToolCall
	// Usage is the usage reported; nil reports DefaultUsage. NoUsage reports none.
	Usage   *llm.Usage
	NoUsage bool
	// FinishReason defaults to "stop", or "tool_calls" when there are tool calls.
	FinishReason string
	// Status, when not zero and not 200, answers with that status and Error (OpenAI's error shape; a
	// server_error body when nil) before anything is streamed.
	Status int
	Error  *llm.ErrorBody
	// DropAfter, when positive, ends a stream abruptly (no [DONE], the connection cut) after that many
	// chunks were written; a non-streaming answer is cut after its headers.
	DropAfter int
	// Delay is waited before the answer's headers; ChunkDelay between streamed chunks. Both end early
	// when the client goes away.
	Delay      time.Duration
	ChunkDelay time.Duration
}

// DefaultUsage is what an Answer without Usage reports.
var DefaultUsage = llm.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}

// Request is one request the server got.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// Chat is the decoded body of a chat completion.
	Chat llm.ChatRequest
}

// Server is the scripted upstream. Its base URL for clients is URL() (ending in /v1).
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	script   []Answer
	fallback *Answer
	requests []Request
	models   []string
}

// New starts a server that answers the chat completions in order from answers; once they are used up
// it answers 500 unless Repeat set an answer for every further call. Close it when done.
func New(answers ...Answer) *Server {
	s := &Server{script: answers, models: []string{"test-model"}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the OpenAI base URL of the server: its root plus /v1.
func (s *Server) URL() string { return s.Server.URL + "/v1" }

// Push appends answers to the script.
func (s *Server) Push(answers ...Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, answers...)
}

// Repeat sets the answer given once the script is used up (benchmarks answer it forever).
func (s *Server) Repeat(a Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = &a
}

// SetModels sets the ids GET /v1/models lists.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = ids
}

// Requests returns the requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Completions counts the chat completions received so far.
func (s *Server) Completions() int {
	n := 0
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			n++
		}
	}
	return n
}

// next records the request and takes the next answer.
func (s *Server) next(r Request) (Answer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	if len(s.script) > 0 {
		a := s.script[0]
		s.script = s.script[1:]
		return a, true
	}
	if s.fallback != nil {
		return *s.fallback, true
	}
	return Answer{}, false
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.mu.Lock()
		s.requests = append(s.requests, req)
		models := append([]string(nil), s.models...)
		s.mu.Unlock()
		list := struct {
			Object string           `json:"object"`
			Data   []map[string]any `json:"data"`
		}{Object: "list"}
		for _, id := range models {
			list.Data = append(list.Data, map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "llmtest"})
		}
		writeJSON(w, http.StatusOK, list)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		if err := json.Unmarshal(body, &req.Chat); err != nil {
			s.mu.Lock()
			s.requests = append(s.requests, req)
			s.mu.Unlock()
			writeError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a chat completion: "+err.Error())
			return
		}
		a, ok := s.next(req)
		if !ok {
			writeError(w, http.StatusInternalServerError, "server_error", "llmtest: the script is used up")
			return
		}
		s.answer(w, r, req.Chat, a)
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", "no route "+r.Method+" "+r.URL.Path)
	}
}

// wait sleeps d unless the client goes away first; it reports whether the client is still there.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, req llm.ChatRequest, a Answer) {
	if !wait(r, a.Delay) {
		return
	}
	if a.Status != 0 && a.Status != http.StatusOK {
		body := a.Error
		if body == nil {
			body = &llm.ErrorBody{Error: llm.ErrorDetail{Message: "llmtest: scripted failure", Type: "server_error"}}
		}
		writeJSON(w, a.Status, body)
		return
	}
	usage := DefaultUsage
	if a.Usage != nil {
		usage = *a.Usage
	}
	finish := a.FinishReason
	if finish == "" {
		finish = "stop"
		if len(a.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	const id = "chatcmpl-llmtest"
	if !req.Stream {
		msg := llm.TextMessage("assistant", a.Text)
		if a.Text == "" && len(a.ToolCalls) > 0 {
			msg.Content = json.RawMessage("null")
		}
		for i, tc := range a.ToolCalls {
			tc.Index = nil
			if tc.ID == "" {
				tc.ID = fmt.Sprintf("call_%d", i)
			}
			if tc.Type == "" {
				tc.Type = "function"
			}
			msg.ToolCalls = append(msg.ToolCalls, tc)
		}
		resp := llm.ChatResponse{ID: id, Object: "chat.completion", Created: time.Now().Unix(), Model: req.Model,
			Choices: []llm.Choice{{Message: msg, FinishReason: finish}}}
		if !a.NoUsage {
			resp.Usage = &usage
		}
		if a.DropAfter > 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		writeJSON(w, http.StatusOK, resp)
		return
	}
	chunks := streamChunks(id, req.Model, a, finish)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage && !a.NoUsage {
		u := usage
		chunks = append(chunks, llm.ChatChunk{ID: id, Object: "chat.completion.chunk", Model: req.Model, Choices: []llm.ChunkChoice{}, Usage: &u})
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	flusher.Flush()
	for i, c := range chunks {
		if a.DropAfter > 0 && i == a.DropAfter {
			panic(http.ErrAbortHandler) // the connection is cut: no [DONE]
		}
		if i > 0 && !wait(r, a.ChunkDelay) {
			return
		}
		c.Created = time.Now().Unix()
		data, _ := json.Marshal(c)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return
		}
		flusher.Flush()
	}
	if a.DropAfter > 0 && a.DropAfter >= len(chunks) {
		panic(http.ErrAbortHandler)
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	flusher.Flush()
}

// streamChunks are the chunks of a streamed answer: the role, the content pieces, each tool call's
// name then its arguments in two pieces, and the finish reason.
func streamChunks(id, model string, a Answer, finish string) []llm.ChatChunk {
	chunk := func(d llm.Message, finish *string) llm.ChatChunk {
		return llm.ChatChunk{ID: id, Object: "chat.completion.chunk", Model: model,
			Choices: []llm.ChunkChoice{{Delta: d, FinishReason: finish}}}
	}
	out := []llm.ChatChunk{chunk(llm.Message{Role: "assistant", Content: json.RawMessage(`""`)}, nil)}
	pieces := a.Chunks
	if pieces == nil && a.Text != "" {
		pieces = Words(a.Text)
	}
	for _, p := range pieces {
		out = append(out, chunk(llm.TextMessage("", p), nil))
	}
	for i, tc := range a.ToolCalls {
		i := i
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		out = append(out, chunk(llm.Message{ToolCalls: []llm.ToolCall{{Index: &i, ID: id, Type: "function",
			Function: llm.FunctionCall{Name: tc.Function.Name}}}}, nil))
		args := tc.Function.Arguments
		half := len(args) / 2
		for _, part := range []string{args[:half], args[half:]} {
			out = append(out, chunk(llm.Message{ToolCalls: []llm.ToolCall{{Index: &i, Function: llm.FunctionCall{Arguments: part}}}}, nil))
		}
	}
	out = append(out, chunk(llm.Message{}, &finish))
	return out
}

// Words splits text into the pieces a stream sends: each word with the space before it.
func Words(text string) []string {
	var out []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, llm.ErrorBody{Error: llm.ErrorDetail{Message: msg, Type: typ}})
}
