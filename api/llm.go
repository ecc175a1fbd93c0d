package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humagin"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/svcerr"
)

// LLMPath is the root of the OpenAI-compatible LLM gateway (issue 25's {llm_url} is <host>/llm/v1):
// every answer below it, errors included, is in OpenAI's shape.
const LLMPath = "/llm/v1"

// llmAPI serves the LLM gateway: OpenAI's chat completions and model list, paid from credits.
type llmAPI struct {
	gw *llm.Gateway
}

// llmFreeText are the chat request's fields that hold the caller's own text, at any depth.
var llmFreeText = []string{"messages", "tools", "tool_choice", "response_format", "stop", "metadata", "prediction",
	"functions", "function_call", "user", "logit_bias"}

func (a *llmAPI) routes() []Route {
	complete := Route{Op: client.OpLLMChatCompletions, Method: http.MethodPost, Path: LLMPath + "/chat/completions", Tag: "LLM gateway",
		Summary: "Create a chat completion (OpenAI-compatible; streaming with stream: true)",
		Auth:    authKey, Scope: client.ScopeServicesInvoke, Service: client.ServiceManagedAgents, Streamed: true, FreeText: llmFreeText}
	complete.document = documentChatCompletions
	models := Route{Op: client.OpLLMModelsList, Method: http.MethodGet, Path: LLMPath + "/models", Tag: "LLM gateway",
		Summary: "List the gateway's models (OpenAI-compatible), with their prices in credits",
		Auth:    authKey, Scope: client.ScopeServicesInvoke, Service: client.ServiceManagedAgents}
	models.document = documentModels
	return []Route{handle(complete, a.complete), handle(models, a.models)}
}

// llmCompletionInput is a chat completion request: its body is decoded by the gateway (llm.DecodeRequest),
// so its errors are OpenAI's.
type llmCompletionInput struct {
	NoFallback string `header:"X-Svc-No-Fallback" doc:"1 (or true) refuses Max Mode's fall-back: a premium model the credits cannot cover answers 402 insufficient_quota instead of the base model."`
	RawBody    []byte
}

func (a *llmAPI) complete(ctx context.Context, in *llmCompletionInput) (*huma.StreamResponse, error) {
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		w := humagin.Unwrap(hctx).Writer
		if a.gw == nil {
			llm.WriteError(w, llm.NewError(http.StatusServiceUnavailable, "server_error", "not_configured", "", "the LLM gateway is not configured on this platform"))
			return
		}
		req, e := llm.DecodeRequest(in.RawBody)
		if e != nil {
			llm.WriteError(w, e)
			return
		}
		p := principalFrom(ctx)
		c := llm.Caller{AccountID: p.Scope.AccountID, ProjectID: p.Scope.Project()}
		if p.Key != nil {
			c.KeyID = p.Key.ID
		}
		nf := strings.TrimSpace(strings.ToLower(in.NoFallback))
		// Each request is a call of its own: a server-made reference, never one the client could replay.
		ch, _ := a.gw.ServeCompletion(ctx, w, c, req, ids.New("llmc"), llm.CallOptions{NoFallback: nf == "1" || nf == "true"})
		stateFrom(ctx).charged = ch.Millicredits
	}}, nil
}

// llmModelsOutput is the model list, OpenAI's shape (no envelope).
type llmModelsOutput struct {
	Body llm.ModelList
}

func (a *llmAPI) models(context.Context, *struct{}) (*llmModelsOutput, error) {
	if a.gw == nil {
		return &llmModelsOutput{Body: llm.ModelList{Object: "list", Data: []llm.ModelInfo{}}}, nil
	}
	return &llmModelsOutput{Body: a.gw.Models()}, nil
}

// documentChatCompletions states the route's body and answers in OpenAI's terms.
func documentChatCompletions(op *huma.Operation) {
	op.Description += " OpenAI's chat-completions protocol: an OpenAI client pointed at <host>/llm/v1 works unchanged. " +
		"Requires service access `managed-agents`. The call holds the most it can cost (the prompt's bytes as tokens plus max_tokens, " +
		"default 4096, at the model's prices) and charges exactly the usage the provider reports. " +
		"A premium model the credits cannot cover falls back to the base model (header X-Svc-Model-Fallback: <from>-><to>) unless " +
		"X-Svc-No-Fallback: 1 is sent. Errors on /llm/v1/* are OpenAI's {error: {message, type, param, code}}."
	if op.RequestBody != nil {
		op.RequestBody.Description = "An OpenAI chat completion request (model, messages, tools, tool_choice, response_format, max_tokens, stream, stream_options, …)."
		op.RequestBody.Content = map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: "object"}}}
	}
	if resp := op.Responses["200"]; resp != nil {
		resp.Description = "A chat.completion object, or with stream: true a text/event-stream of chat.completion.chunk events ending with data: [DONE]."
		resp.Content = map[string]*huma.MediaType{
			"application/json":  {Schema: &huma.Schema{Type: "object"}},
			"text/event-stream": {Schema: &huma.Schema{Type: "string"}},
		}
		resp.Headers = map[string]*huma.Header{llm.HeaderFallback: {Description: "Set when Max Mode fell back: <requested>-><base>.",
			Schema: &huma.Schema{Type: "string"}}}
	}
	openAIErrors(op)
}

func documentModels(op *huma.Operation) {
	op.Description += " OpenAI's model list ({object: list, data: [...]}), each model with its prices in credits per million tokens."
	openAIErrors(op)
}

// openAIErrors documents the operation's error answers in OpenAI's shape.
func openAIErrors(op *huma.Operation) {
	for code, resp := range op.Responses {
		if code == "200" || code == "default" && resp == nil {
			continue
		}
		if code[0] == '4' || code[0] == '5' || code == "default" {
			resp.Content = map[string]*huma.MediaType{"application/json": {Schema: openAIErrorSchema}}
		}
	}
}

// openAIErrorSchema is OpenAI's error object.
var openAIErrorSchema = &huma.Schema{Type: "object", Required: []string{"error"}, Properties: map[string]*huma.Schema{
	"error": {Type: "object", Required: []string{"message", "type"}, Properties: map[string]*huma.Schema{
		"message": {Type: "string"}, "type": {Type: "string"},
		"param": {Type: "string", Nullable: true}, "code": {Type: "string", Nullable: true},
	}},
}}

// isLLMPath reports a request to the LLM gateway, whose errors are OpenAI's.
func isLLMPath(path string) bool { return path == LLMPath || strings.HasPrefix(path, LLMPath+"/") }

// openAIError turns a platform error answer into OpenAI's shape.
func openAIError(ae *apiError) *llm.Error {
	e := ae.ErrorEnvelope.Error
	typ := "invalid_request_error"
	switch {
	case ae.status == http.StatusUnauthorized:
		typ = "authentication_error"
	case ae.status == http.StatusForbidden:
		typ = "permission_error"
	case ae.status == http.StatusNotFound:
		typ = "not_found_error"
	case ae.status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case ae.status == http.StatusPaymentRequired || e.Code == svcerr.InsufficientCredits:
		typ = "insufficient_quota"
	case ae.status >= 500:
		typ = "server_error"
	}
	code := e.Code
	if ae.status == http.StatusUnauthorized {
		code = "invalid_api_key"
	}
	return llm.NewError(ae.status, typ, code, e.Param, e.Message)
}
