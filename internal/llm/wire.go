// Package llm is the platform's OpenAI-compatible LLM gateway: a catalog of providers and models
// (llm.yaml), routing by model id with fail-over, and charging from the ledger (hold the most a call
// can cost, settle what the upstream reports). This file holds the chat-completions wire types the
// gateway, its clients inside the platform (agent jobs) and its scripted test upstream share.
package llm

import "encoding/json"

// ChatRequest is the body of POST /chat/completions. Fields the gateway does not interpret travel in
// Extra so an upstream receives what the client sent.
type ChatRequest struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Tools          []Tool          `json:"tools,omitempty"`
	ToolChoice     json.RawMessage `json:"tool_choice,omitempty"`
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
	MaxTokens      *int            `json:"max_tokens,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	Stream         bool            `json:"stream,omitempty"`
	StreamOptions  *StreamOptions  `json:"stream_options,omitempty"`
	// Extra are the other top-level fields, sent to the upstream as they came (see PassThrough).
	Extra map[string]json.RawMessage `json:"-"`
}

// chatRequestFields is ChatRequest without its methods, for encoding/json.
type chatRequestFields ChatRequest

// MarshalJSON writes the request's fields and its Extra ones.
func (r ChatRequest) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(chatRequestFields(r))
	if err != nil || len(r.Extra) == 0 {
		return data, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	for k, v := range r.Extra {
		if _, known := fields[k]; !known && !knownRequestField[k] {
			fields[k] = v
		}
	}
	return json.Marshal(fields)
}

// UnmarshalJSON reads the request's fields, keeping any other top-level field in Extra (leniently:
// the gateway's route checks fields strictly before this).
func (r *ChatRequest) UnmarshalJSON(data []byte) error {
	var f chatRequestFields
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	for k, v := range fields {
		if !knownRequestField[k] {
			if f.Extra == nil {
				f.Extra = map[string]json.RawMessage{}
			}
			f.Extra[k] = v
		}
	}
	*r = ChatRequest(f)
	return nil
}

// knownRequestField are ChatRequest's own JSON fields.
var knownRequestField = map[string]bool{"model": true, "messages": true, "tools": true, "tool_choice": true,
	"response_format": true, "max_tokens": true, "temperature": true, "stream": true, "stream_options": true}

// PassThrough are the other chat-completion fields the gateway accepts from clients and sends on
// unchanged; any other top-level field is refused, naming it.
var PassThrough = map[string]bool{"top_p": true, "n": true, "stop": true, "seed": true, "user": true,
	"presence_penalty": true, "frequency_penalty": true, "logit_bias": true, "logprobs": true, "top_logprobs": true,
	"parallel_tool_calls": true, "max_completion_tokens": true, "metadata": true, "store": true,
	"service_tier": true, "reasoning_effort": true, "modalities": true, "prediction": true, "functions": true,
	"function_call": true}

// StreamOptions asks a streaming upstream to report usage in its last chunk.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Message is one chat message. Content is a string for the roles the platform writes; a client's
// structured content (an array of parts) is kept as raw JSON.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// TextMessage returns a message whose content is the string text.
func TextMessage(role, text string) Message {
	raw, _ := json.Marshal(text)
	return Message{Role: role, Content: raw}
}

// Text returns the message's content as a string: the string itself, or the text parts joined.
func (m Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	out := ""
	for _, p := range parts {
		if p.Type == "text" {
			out += p.Text
		}
	}
	return out
}

// Tool is a function the model may call.
type Tool struct {
	Type     string      `json:"type"`
	Function FunctionDef `json:"function"`
}

// FunctionDef describes a callable function: its name, what it does and its JSON Schema parameters.
type FunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// ToolCall is the model's request to call a function. Index is set only in stream deltas.
type ToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as a JSON string.
type FunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// Usage is what a call consumed, as the upstream reports it.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// ChatResponse is a non-streaming completion.
type ChatResponse struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   *Usage   `json:"usage,omitempty"`
}

// Choice is one completion alternative.
type Choice struct {
	Index        int     `json:"index"`
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

// ChatChunk is one server-sent event of a streaming completion.
type ChatChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []ChunkChoice `json:"choices"`
	Usage   *Usage        `json:"usage,omitempty"`
}

// ChunkChoice is one alternative's delta in a stream chunk.
type ChunkChoice struct {
	Index        int     `json:"index"`
	Delta        Message `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// ErrorBody is OpenAI's error shape: {"error": {"message", "type", "param", "code"}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inside of ErrorBody.
type ErrorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// Caller is who a completion is for and who pays: the account charged, the project and the API key
// whose grants authorised it.
type Caller struct {
	AccountID string
	ProjectID string
	KeyID     string
}

// Charge is what one completion cost: the model that answered (the base model when Max Mode fell
// back), whether it fell back, the usage the upstream reported and the millicredits charged.
type Charge struct {
	Model        string
	Fallback     bool
	Usage        Usage
	Millicredits int64
}
