package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
)

// DecodeRequest reads a client's chat-completion body strictly: every top-level field must be one
// ChatRequest knows or one of PassThrough, and each must have its type; a refusal is a 400 in OpenAI's
// shape naming the field (param). Inside messages and tools, fields the gateway does not know (such as
// an assistant message's refusal or annotations, which OpenAI clients echo back) are accepted and not
// sent on.
func DecodeRequest(body []byte) (ChatRequest, *Error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return ChatRequest{}, invalid("", "the body must be a JSON object (a chat completion request)")
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names) // the first bad field is the same on every try
	var req ChatRequest
	for _, k := range names {
		raw := fields[k]
		if !knownRequestField[k] {
			if !PassThrough[k] {
				return ChatRequest{}, invalid(k, "unknown field %q", k)
			}
			if req.Extra == nil {
				req.Extra = map[string]json.RawMessage{}
			}
			req.Extra[k] = raw
			continue
		}
		if string(raw) == "null" {
			continue
		}
		var target any
		switch k {
		case "model":
			target = &req.Model
		case "messages":
			target = &req.Messages
		case "tools":
			target = &req.Tools
		case "tool_choice":
			req.ToolChoice = raw
		case "response_format":
			req.ResponseFormat = raw
		case "max_tokens":
			target = &req.MaxTokens
		case "temperature":
			target = &req.Temperature
		case "stream":
			target = &req.Stream
		case "stream_options":
			target = &req.StreamOptions
		}
		if target == nil {
			continue
		}
		if err := json.Unmarshal(raw, target); err != nil {
			return ChatRequest{}, invalid(fieldOf(k, err), "%s: %s", fieldOf(k, err), describe(err))
		}
	}
	if req.Model == "" {
		return ChatRequest{}, invalid("model", "model is required")
	}
	if len(req.Messages) == 0 {
		return ChatRequest{}, invalid("messages", "messages is required and must hold at least one message")
	}
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool", "function":
		default:
			return ChatRequest{}, invalid(fmt.Sprintf("messages[%d].role", i), "messages[%d].role must be system, developer, user, assistant or tool; got %q", i, m.Role)
		}
		if len(m.Content) > 0 && !validContent(m.Content) {
			return ChatRequest{}, invalid(fmt.Sprintf("messages[%d].content", i), "messages[%d].content must be a string, an array of content parts or null", i)
		}
	}
	for i, t := range req.Tools {
		if t.Function.Name == "" {
			return ChatRequest{}, invalid(fmt.Sprintf("tools[%d].function.name", i), "tools[%d].function.name is required", i)
		}
	}
	return req, nil
}

// validContent accepts a string, an array or null.
func validContent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '"' || raw[0] == '[' || string(raw) == "null")
}

// fieldOf names the field a decoding error is about: the top-level field, and the path encoding/json
// found inside it.
func fieldOf(top string, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return top + "." + te.Field
	}
	return top
}

// describe says what was wrong without Go's type names.
func describe(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("a %s does not fit here: expected %s", te.Value, kindOf(te.Type.Kind().String()))
	}
	return "malformed value"
}

func kindOf(goKind string) string {
	switch goKind {
	case "int", "int64", "int32":
		return "a whole number"
	case "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	case "ptr", "struct", "map":
		return "an object"
	}
	return "another kind of value"
}

func invalid(param, format string, args ...any) *Error {
	return NewError(http.StatusBadRequest, "invalid_request_error", "invalid_request", param, fmt.Sprintf(format, args...))
}
