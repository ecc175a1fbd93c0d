package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// ErrStreamCut reports a stream that ended early after its answer had started (the client went away or
// the upstream's stream broke): what was generated is charged, and nothing more can be told the client.
var ErrStreamCut = errors.New("llm: the stream ended early")

// Stream makes a streaming completion and writes it to w as server-sent events (OpenAI's chunks, then
// data: [DONE]). Before anything is written, a failure is returned as *Error and w is untouched; once
// the answer has started, the call is charged and a failure is ErrStreamCut (an upstream that broke is
// reported to the client as an error event first).
//
// The call's usage is what the upstream's last chunk reports (the gateway always asks for it with
// stream_options.include_usage and forwards that chunk only when the client asked for it). A stream
// cut before its usage arrived is charged an estimate: the prompt at a token per four bytes of its
// messages and tools, and a completion token per content or tool-call delta received.
func (g *Gateway) Stream(ctx context.Context, c Caller, req ChatRequest, reference string, o CallOptions, w http.ResponseWriter) (Charge, error) {
	wantUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	req.Stream = true
	cl, err := g.prepare(ctx, c, req, reference, o)
	if err != nil {
		return Charge{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, MaxCallTime)
	defer cancel()
	up, err := cl.send(ctx)
	if err != nil {
		cl.release()
		return Charge{}, err
	}
	defer up.body.Close()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	if f := cl.fallbackHeader(); f != "" {
		h.Set(HeaderFallback, f)
	}
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)

	var usage *Usage
	var deltas int64
	clientGone := false
	write := func(data []byte) {
		if clientGone {
			return
		}
		var buf bytes.Buffer
		buf.Grow(len(data) + 8)
		buf.WriteString("data: ")
		buf.Write(data)
		buf.WriteString("\n\n")
		if _, err := w.Write(buf.Bytes()); err != nil {
			clientGone = true
			cancel()
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	event := up.first
	var cut error
	for {
		if string(event) == "[DONE]" {
			write(event)
			break
		}
		var chunk ChatChunk
		forward := true
		if json.Unmarshal(event, &chunk) == nil {
			for _, ch := range chunk.Choices {
				if len(ch.Delta.Content) > 0 && string(ch.Delta.Content) != `""` && string(ch.Delta.Content) != "null" {
					deltas++
				} else if len(ch.Delta.ToolCalls) > 0 {
					deltas++
				}
			}
			if chunk.Usage != nil {
				u := *chunk.Usage
				usage = &u
				forward = wantUsage || len(chunk.Choices) > 0
			}
		}
		if forward {
			write(event)
		}
		if clientGone {
			cut = ErrStreamCut
			break
		}
		event, err = up.events.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break // ended without [DONE]: what came is the answer
			}
			cut = ErrStreamCut
			if ctx.Err() == nil && !clientGone {
				// The upstream broke mid-stream: tell the client in OpenAI's stream error event.
				data, _ := json.Marshal(ErrorBody{Error: ErrorDetail{Type: "server_error",
					Message: fmt.Sprintf("the model %q's stream broke: %v", cl.model.ID, err)}})
				write(data)
			}
			break
		}
	}
	if usage == nil {
		usage = &Usage{PromptTokens: cl.promptEstimate, CompletionTokens: deltas}
	}
	return cl.settle(*usage), cut
}

// ServeCompletion answers one POST /chat/completions on w, streaming or not, with errors in OpenAI's
// shape. It returns the charge (zero when the call failed before it was made).
func (g *Gateway) ServeCompletion(ctx context.Context, w http.ResponseWriter, c Caller, req ChatRequest, reference string, o CallOptions) (Charge, error) {
	if req.Stream {
		ch, err := g.Stream(ctx, c, req, reference, o, w)
		var e *Error
		if errors.As(err, &e) {
			WriteError(w, e)
		}
		return ch, err
	}
	if req.StreamOptions != nil {
		e := NewError(http.StatusBadRequest, "invalid_request_error", "", "stream_options", "stream_options is only allowed with stream: true")
		WriteError(w, e)
		return Charge{}, e
	}
	_, raw, ch, err := g.CompleteWith(ctx, c, req, reference, o)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = upstreamFailed(req.Model, err)
		}
		WriteError(w, e)
		return ch, err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(raw)))
	if ch.Fallback {
		h.Set(HeaderFallback, req.Model+"->"+ch.Model)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(raw)
	return ch, nil
}

// WriteError writes e in OpenAI's error shape.
func WriteError(w http.ResponseWriter, e *Error) {
	data, _ := json.Marshal(e.Body)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if e.RetryAfter != "" {
		h.Set("Retry-After", e.RetryAfter)
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write(data)
}

// ModelList is GET /models's answer.
type ModelList struct {
	Object string      `json:"object"`
	Data   []ModelInfo `json:"data"`
}

// ModelInfo is one model of ModelList, with the platform's prices and flags.
type ModelInfo struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// InputCreditsPerMillion and OutputCreditsPerMillion are the prices in credits per million tokens.
	InputCreditsPerMillion  float64 `json:"input_credits_per_million"`
	OutputCreditsPerMillion float64 `json:"output_credits_per_million"`
	Premium                 bool    `json:"premium"`
	Base                    bool    `json:"base"`
}

// Models lists the catalog's models.
func (g *Gateway) Models() ModelList {
	out := ModelList{Object: "list", Data: []ModelInfo{}}
	for _, m := range g.catalog.Models {
		out.Data = append(out.Data, ModelInfo{ID: m.ID, Object: "model", Created: 1700000000, OwnedBy: "svc",
			InputCreditsPerMillion: float64(m.InputPerMillion) / 1000, OutputCreditsPerMillion: float64(m.OutputPerMillion) / 1000,
			Premium: m.Premium, Base: m.Base})
	}
	return out
}
