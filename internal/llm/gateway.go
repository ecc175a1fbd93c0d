package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
)

// DefaultMaxTokens is the completion cap of a request that names no max_tokens (or
// max_completion_tokens): the gateway sends it to the upstream and holds for it, so a call never costs
// more than its hold.
const DefaultMaxTokens = 4096

// Headers of the gateway's routes.
const (
	// HeaderFallback, on an answer, says Max Mode fell back: "<requested>-><base>".
	HeaderFallback = "X-Svc-Model-Fallback"
	// HeaderNoFallback, on a request, set to 1 (or true), refuses the fall-back: a premium call the
	// credits cannot cover is answered 402 insufficient_quota instead.
	HeaderNoFallback = "X-Svc-No-Fallback"
)

// Gateway routes chat completions to the catalog's providers and charges them from the ledger.
type Gateway struct {
	catalog   *Catalog
	ledger    *ledger.Ledger
	leases    *ledger.Leases
	client    *http.Client
	log       *slog.Logger
	maxTokens int
	onCharge  func(accountID string)
}

// Options build a Gateway.
type Options struct {
	Catalog *Catalog
	Ledger  *ledger.Ledger
	// Leases, when set, pay the calls of CallOptions.Fresh (the HTTP route's) from this process's
	// leases on busy accounts' credits (see ledger.Leases) instead of a hold per call; the process
	// closes them when it stops (Close).
	Leases *ledger.Leases
	// HTTPClient calls the providers (default: a client with no overall timeout; the gateway bounds
	// each call itself).
	HTTPClient *http.Client
	Logger     *slog.Logger
	// DefaultMaxTokens overrides DefaultMaxTokens when positive.
	DefaultMaxTokens int
	// OnCharge, when set, is told the account after each charged completion; it must not block (the
	// auto top-up's watcher only queues the account).
	OnCharge func(accountID string)
}

// New returns a gateway.
func New(o Options) *Gateway {
	g := &Gateway{catalog: o.Catalog, ledger: o.Ledger, leases: o.Leases, client: o.HTTPClient, log: o.Logger, maxTokens: o.DefaultMaxTokens, onCharge: o.OnCharge}
	if g.client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 256
		g.client = &http.Client{Transport: tr}
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	if g.maxTokens <= 0 {
		g.maxTokens = DefaultMaxTokens
	}
	if g.catalog == nil {
		g.catalog = &Catalog{}
	}
	return g
}

// Close closes the gateway's credit leases (see Options.Leases).
func (g *Gateway) Close(ctx context.Context) error {
	if g.leases == nil {
		return nil
	}
	return g.leases.Close(ctx)
}

// Catalog is the gateway's catalog.
func (g *Gateway) Catalog() *Catalog { return g.catalog }

// CallOptions tune one call.
type CallOptions struct {
	// NoFallback refuses Max Mode's fall-back to the base model (HeaderNoFallback).
	NoFallback bool
	// Fresh says the reference is new and never retried (an HTTP request's): no earlier hold can exist,
	// so the call is paid from the gateway's credit leases when it has them.
	Fresh bool
}

// Error is a failure in OpenAI's error shape, with its HTTP status.
type Error struct {
	Status int
	Body   ErrorBody
	// RetryAfter, when set, is sent as the Retry-After header (seconds).
	RetryAfter string
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("llm gateway: %d %s: %s", e.Status, e.Body.Error.Type, e.Body.Error.Message)
}

// CodeProviderNotConfigured is the error code of a model none of whose providers is configured.
const CodeProviderNotConfigured = "provider_not_configured"

// Refused reports whether err holds a gateway answer that retrying cannot change: a request refused
// (a 4xx other than a timeout or a rate limit: credits exhausted, unknown model, bad request) or no
// provider configured for the model. In-process callers (agent jobs) fail at once on it.
func Refused(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	if e.Body.Error.Code != nil && *e.Body.Error.Code == CodeProviderNotConfigured {
		return true
	}
	return e.Status >= 400 && e.Status < 500 && e.Status != http.StatusRequestTimeout && e.Status != http.StatusTooManyRequests
}

// NewError returns an OpenAI-shaped error; code and param may be "".
func NewError(status int, typ, code, param, message string) *Error {
	e := &Error{Status: status, Body: ErrorBody{Error: ErrorDetail{Message: message, Type: typ}}}
	if code != "" {
		e.Body.Error.Code = &code
	}
	if param != "" {
		e.Body.Error.Param = &param
	}
	return e
}

// call is one completion being made: the model, what is held for it and its fall-back.
type call struct {
	g         *Gateway
	caller    Caller
	model     Model
	requested string
	fallback  bool
	req       ChatRequest
	hold      ledger.Hold
	// reservation, instead of hold, pays a fresh call from the credit leases.
	reservation *ledger.Reservation
	fresh       bool
	// settled is true when the reference was charged before (a retry): the call is made and not charged again.
	settled        bool
	charged        int64
	promptEstimate int64
}

// Complete makes a non-streaming completion for an in-process caller (agent jobs), charged exactly once
// per reference: a retry with the same reference answers again without charging again. Failures are
// *Error values.
func (g *Gateway) Complete(ctx context.Context, c Caller, req ChatRequest, reference string) (*ChatResponse, Charge, error) {
	resp, _, ch, err := g.CompleteWith(ctx, c, req, reference, CallOptions{})
	return resp, ch, err
}

// CompleteWith is Complete with options; it also returns the upstream's body as it came.
func (g *Gateway) CompleteWith(ctx context.Context, c Caller, req ChatRequest, reference string, o CallOptions) (*ChatResponse, []byte, Charge, error) {
	req.Stream, req.StreamOptions = false, nil
	cl, err := g.prepare(ctx, c, req, reference, o)
	if err != nil {
		return nil, nil, Charge{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, MaxCallTime)
	defer cancel()
	res, err := cl.send(ctx)
	if err != nil {
		cl.release()
		return nil, nil, Charge{}, err
	}
	defer res.body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.body, 64<<20))
	if err != nil {
		// Cut after the headers: something may have been generated; charge the whole hold's estimate
		// of the prompt only (nothing reached the caller).
		ch := cl.settle(Usage{PromptTokens: cl.promptEstimate})
		return nil, nil, ch, upstreamFailed(cl.model.ID, err)
	}
	var resp ChatResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		ch := cl.settle(Usage{PromptTokens: cl.promptEstimate})
		return nil, nil, ch, upstreamFailed(cl.model.ID, fmt.Errorf("decode the answer: %w", err))
	}
	usage := Usage{}
	if resp.Usage != nil {
		usage = *resp.Usage
	} else {
		usage = Usage{PromptTokens: cl.promptEstimate, CompletionTokens: estimateAnswer(resp)}
	}
	return &resp, raw, cl.settle(usage), nil
}

// estimateAnswer is the completion tokens of an answer that reported no usage: a token per four bytes
// of its content and tool calls, rounded up.
func estimateAnswer(r ChatResponse) int64 {
	n := 0
	for _, c := range r.Choices {
		n += len(c.Message.Text())
		for _, tc := range c.Message.ToolCalls {
			n += len(tc.Function.Name) + len(tc.Function.Arguments)
		}
	}
	return int64((n + 3) / 4)
}

// prepare picks the model, holds the most the call can cost (falling back to the base model when a
// premium model cannot be covered) and returns the call.
func (g *Gateway) prepare(ctx context.Context, c Caller, req ChatRequest, reference string, o CallOptions) (*call, error) {
	if req.Model == "" {
		return nil, NewError(http.StatusBadRequest, "invalid_request_error", "", "model", "model is required")
	}
	if len(req.Messages) == 0 {
		return nil, NewError(http.StatusBadRequest, "invalid_request_error", "", "messages", "messages must hold at least one message")
	}
	model, ok := g.catalog.Model(req.Model)
	if !ok {
		return nil, NewError(http.StatusNotFound, "invalid_request_error", "model_not_found", "model",
			fmt.Sprintf("the model %q does not exist; GET /llm/v1/models lists them", req.Model))
	}
	maxTokens, n, err := g.limits(&req)
	if err != nil {
		return nil, err
	}
	cl := &call{g: g, caller: c, model: model, requested: model.ID, req: req, fresh: o.Fresh && g.leases != nil}
	bound := promptBound(req)
	cl.promptEstimate = promptEstimate(req)
	if !g.configured(model) {
		return nil, unconfigured(model.ID)
	}
	price := Cost(model, bound, maxTokens*n)
	if err := cl.reserve(ctx, reference, price); err != nil {
		if !isInsufficient(err) {
			return nil, err
		}
		base := g.catalog.Base()
		if !model.Premium || o.NoFallback || base.ID == "" || base.ID == model.ID {
			return nil, insufficientQuota(model.ID, price, o.NoFallback && model.Premium)
		}
		if !g.configured(base) {
			return nil, unconfigured(base.ID)
		}
		cl.model, cl.fallback = base, true
		price = Cost(base, bound, maxTokens*n)
		if err := cl.reserve(ctx, reference, price); err != nil {
			if isInsufficient(err) {
				return nil, insufficientQuota(base.ID, price, false)
			}
			return nil, err
		}
	}
	return cl, nil
}

// limits returns the completion cap the call holds for (setting max_tokens to DefaultMaxTokens when
// the request names none) and n, the number of choices.
func (g *Gateway) limits(req *ChatRequest) (maxTokens, n int64, err error) {
	n = 1
	if raw, ok := req.Extra["n"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &n) != nil || n < 1 || n > 16 {
			return 0, 0, NewError(http.StatusBadRequest, "invalid_request_error", "", "n", "n must be a whole number from 1 to 16")
		}
	}
	if raw, ok := req.Extra["max_completion_tokens"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &maxTokens) != nil || maxTokens < 1 {
			return 0, 0, NewError(http.StatusBadRequest, "invalid_request_error", "", "max_completion_tokens", "max_completion_tokens must be a positive whole number")
		}
		return maxTokens, n, nil
	}
	if req.MaxTokens != nil {
		if *req.MaxTokens < 1 {
			return 0, 0, NewError(http.StatusBadRequest, "invalid_request_error", "", "max_tokens", "max_tokens must be a positive whole number")
		}
		return int64(*req.MaxTokens), n, nil
	}
	m := g.maxTokens
	req.MaxTokens = &m
	return int64(m), n, nil
}

func (g *Gateway) configured(m Model) bool {
	for _, id := range m.Providers {
		if p, ok := g.catalog.Provider(id); ok && p.Configured() {
			return true
		}
	}
	return false
}

func unconfigured(model string) *Error {
	e := NewError(http.StatusServiceUnavailable, "server_error", CodeProviderNotConfigured, "",
		fmt.Sprintf("no provider of the model %q is configured on this platform (see llm.yaml and SVC_LLM_BASE_URL)", model))
	e.RetryAfter = "60"
	return e
}

func insufficientQuota(model string, price int64, refused bool) *Error {
	msg := fmt.Sprintf("the model %q needs up to %s credits for this request and the balance is lower; top up with `svc llm credits add <usd>`",
		model, ledger.FormatCredits(price))
	if refused {
		msg += " (Max Mode's fall-back to the base model was refused by " + HeaderNoFallback + ")"
	}
	return NewError(http.StatusPaymentRequired, "insufficient_quota", "insufficient_quota", "", msg)
}

func upstreamFailed(model string, err error) *Error {
	e := NewError(http.StatusBadGateway, "server_error", "upstream_error", "", fmt.Sprintf("the model %q failed: %v", model, err))
	e.RetryAfter = "1"
	return e
}

func isInsufficient(err error) bool {
	e, ok := svcerr.As(err)
	return ok && e.Code == svcerr.InsufficientCredits
}

// Cost is what usage of prompt and completion tokens costs at the model's prices, in millicredits,
// rounded up once over the sum.
func Cost(m Model, prompt, completion int64) int64 {
	total := prompt*m.InputPerMillion + completion*m.OutputPerMillion
	return (total + 999_999) / 1_000_000
}

// promptBound is the most prompt tokens the request can count: a token per byte of its JSON (no
// tokenizer makes a token of less than a byte), plus 16 per message for the chat template and 3000 per
// image part.
func promptBound(req ChatRequest) int64 {
	data, _ := json.Marshal(req)
	n := int64(len(data)) + 64
	for _, m := range req.Messages {
		n += 16 + 3000*int64(strings.Count(string(m.Content), `"image_url"`))
	}
	return n
}

// promptEstimate is the prompt tokens charged when the upstream reported no usage (a stream cut
// before its usage chunk): a token per four bytes of the messages' and tools' JSON, rounded up.
func promptEstimate(req ChatRequest) int64 {
	msgs, _ := json.Marshal(req.Messages)
	tools, _ := json.Marshal(req.Tools)
	return int64(len(msgs)+len(tools)+3) / 4
}

// holdReference is the ledger reference of the nth hold of a call's reference. A hold released (the
// call failed, or a dead process's hold was swept) is never reused; the next one is taken. The
// invocation prefix lets the stale-hold sweep free the hold of a process that died mid-call.
func holdReference(reference string, n int) string {
	return ledger.InvokeReference("llm:"+reference, strconv.Itoa(n))
}

// reserve holds price for the call's reference: the reference's open hold if an attempt made one, or
// a new one. A reference already settled is charged: the call proceeds without a hold.
func (cl *call) reserve(ctx context.Context, reference string, price int64) error {
	if cl.fresh {
		r, err := cl.g.leases.Reserve(ctx, cl.caller.AccountID, price, holdReference(reference, 0))
		if err != nil {
			return err
		}
		cl.reservation = r
		return nil
	}
	l := cl.g.ledger
	for n := 0; n < 1000; n++ {
		ref := holdReference(reference, n)
		h, status, err := l.FindHold(ctx, cl.caller.AccountID, ref)
		if err != nil {
			return err
		}
		switch status {
		case ledger.HoldReleased:
			continue
		case ledger.HoldSettled:
			charged, err := l.HoldCharged(ctx, h)
			if err != nil {
				return err
			}
			cl.settled, cl.charged = true, charged
			return nil
		case ledger.HoldHeld:
			cl.hold = h
			return nil
		}
		h, err = l.Hold(ctx, cl.caller.AccountID, price, ref)
		if err != nil {
			return err
		}
		cl.hold = h
		return nil
	}
	return errors.New("llm: too many released holds for one reference")
}

// settle charges usage (at most the hold) and frees the rest; a retry of a charged reference reports
// the first charge.
func (cl *call) settle(u Usage) Charge {
	ch := cl.settleUsage(u)
	if ch.Millicredits > 0 && cl.g.onCharge != nil {
		cl.g.onCharge(cl.caller.AccountID)
	}
	return ch
}

// settleUsage is settle without telling OnCharge.
func (cl *call) settleUsage(u Usage) Charge {
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	ch := Charge{Model: cl.model.ID, Fallback: cl.fallback, Usage: u}
	if cl.settled {
		ch.Millicredits = cl.charged
		return ch
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if cl.reservation != nil {
		ch.Millicredits = cl.settleLease(ctx, Cost(cl.model, u.PromptTokens, u.CompletionTokens))
		return ch
	}
	charged, err := cl.g.ledger.Settle(ctx, cl.hold, Cost(cl.model, u.PromptTokens, u.CompletionTokens))
	if err != nil {
		// The hold stays open; the stale-hold sweep releases it (the call is then not charged).
		cl.g.log.Error("llm: settle a completion's hold", slog.String("holdId", cl.hold.ID), slog.Any("err", err))
	}
	if cl.hold.Millicredits > 0 && charged < Cost(cl.model, u.PromptTokens, u.CompletionTokens) {
		cl.g.log.Warn("llm: a completion cost more than its hold", slog.String("model", cl.model.ID), slog.String("holdId", cl.hold.ID))
	}
	ch.Millicredits = charged
	return ch
}

// settleLease charges a leased call cost (at most what it reserved) and ends its reservation.
func (cl *call) settleLease(ctx context.Context, cost int64) int64 {
	q, charged := cl.g.leases.ChargeQuery(cl.reservation, cost)
	committed := true
	if q != nil {
		if _, err := q.Exec(ctx); err != nil {
			committed = false
			cl.g.log.Error("llm: charge a completion", slog.Any("err", err))
		}
	}
	if charged < cost {
		cl.g.log.Warn("llm: a completion cost more than it reserved", slog.String("model", cl.model.ID))
	}
	if err := cl.g.leases.Finish(ctx, cl.reservation, charged, committed); err != nil {
		cl.g.log.Error("llm: end a completion's reservation", slog.Any("err", err))
	}
	if !committed {
		return 0
	}
	return charged
}

// release frees the hold of a call that produced nothing.
func (cl *call) release() {
	if cl.settled {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if cl.reservation != nil {
		if err := cl.g.leases.Finish(ctx, cl.reservation, 0, false); err != nil {
			cl.g.log.Error("llm: give a completion's reservation back", slog.Any("err", err))
		}
		return
	}
	if err := cl.g.ledger.Release(ctx, cl.hold); err != nil {
		cl.g.log.Error("llm: release a completion's hold", slog.String("holdId", cl.hold.ID), slog.Any("err", err))
	}
}

// FallbackHeader is the HeaderFallback value of a call that fell back, "" otherwise.
func (cl *call) fallbackHeader() string {
	if !cl.fallback {
		return ""
	}
	return cl.requested + "->" + cl.model.ID
}
