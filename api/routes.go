package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/gin-gonic/gin"
)

// authKind says how a route authenticates.
type authKind int

const (
	authNone authKind = iota
	authKey
	authKeyOrCreditToken
)

// Route is one row of the route table: what the middleware enforces and the OpenAPI document states.
type Route struct {
	// Op is the OpenAPI operationId, and the limit operation id unless Limit is set.
	Op string
	// Limit is the limit operation id when several routes share one (capabilities.list).
	Limit   string
	Method  string
	Path    string // Huma form, e.g. /v1/runs/{runId}; a last {param...} spans the rest of the path ('/' included)
	Summary string
	Tag     string
	Auth    authKind
	// Scope is the scope an API key needs ("" for public routes).
	Scope string
	// Idem marks routes that require an Idempotency-Key.
	Idem bool
	// Service is a service id the key must be allowed to use for every request of the route (seed 000:
	// the managed database routes need svc-database).
	Service string
	// ServiceParam names a path parameter holding a service id the key must be allowed to use.
	ServiceParam string
	// Reads marks a route that changes nothing although its method is not GET (a read-only query or a
	// quote sent as POST): its audit event joins the background batch like a read's, and read-only keys
	// may use it.
	Reads bool
	// ServiceBody names a body field holding a service id the key must be allowed to use (the handler
	// checks it after decoding the body).
	ServiceBody string
	// Lease is how long an idempotent request of this route blocks its key (at least the store's
	// default): as long as its work may take, so a retry cannot start the same work beside it.
	Lease time.Duration
	// Seal encrypts the stored idempotent answer at rest because it carries a secret.
	Seal bool
	// Qualified routes also match the per-service and per-operation limit selectors of the service and
	// operation their request names.
	Qualified bool
	// Status is the success status (200 when zero).
	Status int
	// FreeText names top-level body fields holding the caller's own text (SQL, row values): their strings,
	// at any depth, may hold tab, line feed and carriage return like the free-text fields every route has.
	FreeText []string
	// RawBody routes take a raw byte stream (a file upload), never JSON: the middleware neither reads
	// nor checks it (it is not buffered), and the handler streams it from the request state (rawBodyFrom).
	RawBody bool
	// Session routes also accept a web session (SIWE) token in Authorization: Bearer, acting as the
	// account's owner (seed 002: wallet-level settings and some /user/... routes).
	Session bool
	// SessionOnly routes take only a web session (SIWE): an API key, in Authorization: Bearer or in
	// X-API-Key, is refused with 403 (seed 002: /user/amm/execute-transfer-beneficiary). Set Session too.
	SessionOnly bool
	// Partner routes also accept a partner key in X-Partner-Key (seed 002's organisation-level key),
	// acting for the partner's account.
	Partner bool
	// LimitOnly, when set, says which requests of the route count against its limit operation (the MCP
	// transport: only a session's initialize); the others pass the limiter untouched.
	LimitOnly func(c *gin.Context) bool
	// Streamed routes answer as they go (the LLM gateway's server-sent events): the answer cannot be
	// held until the audit event is stored, so the event joins the background writer's batch once the
	// answer has ended (written within ~50 ms, as a read's).
	Streamed bool
	// Deprecated, when set, marks the route deprecated until its sunset (headers on every answer, and
	// the OpenAPI operation marked deprecated).
	Deprecated *Deprecation

	// bind registers the route's typed handler with Huma (set by handle).
	bind func(s *Server, r Route)
	// document, when set, adjusts the route's operation in the OpenAPI document once it is registered.
	document func(op *huma.Operation)
}

// handle attaches the typed handler h to r: a capability's route list is made of handled routes.
func handle[I, O any](r Route, h func(context.Context, *I) (*O, error)) Route {
	r.bind = func(s *Server, r Route) { register(s, r, h) }
	return r
}

// add registers routes: each in the table, with Huma (and so in the OpenAPI document), and with the
// adjustments of its operation it asks for.
func (s *Server) add(routes ...Route) {
	for _, r := range routes {
		r.bind(s, r)
		if r.document != nil {
			if op := operationOf(s.huma.OpenAPI(), r.Method, docPath(r.Path)); op != nil {
				r.document(op)
			}
		}
	}
}

// LimitOp is the route's limit operation id.
func (r Route) LimitOp() string {
	if r.Limit != "" {
		return r.Limit
	}
	return r.Op
}

// ginPath converts {param} to :param, and a last {param...} (a parameter spanning the rest of the path,
// '/' included) to Gin's catch-all *param.
func ginPath(p string) string {
	return strings.NewReplacer("{", ":", "}", "").Replace(humaPath(p))
}

// humaPath is the path handed to Huma's Gin adapter: a last {param...} becomes *param, which the adapter
// passes to Gin as is. Gin answers the catch-all's value with its leading '/'.
func humaPath(p string) string {
	i := strings.LastIndex(p, "{")
	if i < 0 || !strings.HasSuffix(p, "...}") {
		return p
	}
	return p[:i] + "*" + strings.TrimSuffix(p[i+1:], "...}")
}

// docPath is the path of the route in the OpenAPI document: a last {param...} is {param} there.
func docPath(p string) string { return strings.Replace(p, "...}", "}", 1) }

// documentCatchAll files the operation Huma documented under the adapter's path (see humaPath) under
// the route's document path.
func documentCatchAll(doc *huma.OpenAPI, r Route) {
	from, to := humaPath(r.Path), docPath(r.Path)
	if from == r.Path || doc.Paths[from] == nil {
		return
	}
	if doc.Paths[to] == nil {
		doc.Paths[to] = doc.Paths[from]
	}
	delete(doc.Paths, from)
	if op := operationOf(doc, r.Method, to); op != nil {
		op.Path = to
	}
}

// Out is a handler's answer: Body is the success envelope.
type Out[T any] struct {
	Body T
}

func reply[T any](body T) (*Out[T], error) { return &Out[T]{Body: body}, nil }

// register adds a route to the table and to Huma, wrapping the handler so domain errors become envelopes.
func register[I, O any](s *Server, r Route, h func(context.Context, *I) (*O, error)) {
	route := r
	route.Path = docPath(r.Path) // the table lists a route under its path in the OpenAPI document
	s.routes[r.Method+" "+ginPath(r.Path)] = &route
	huma.Register(s.huma, r.operation(), func(ctx context.Context, in *I) (*O, error) {
		out, err := h(ctx, in)
		if err != nil {
			return nil, s.toAPIError(ctx, err)
		}
		return out, nil
	})
	documentCatchAll(s.huma.OpenAPI(), r)
	if r.Idem {
		documentRetryAfter(s.huma.OpenAPI(), r.Method, docPath(r.Path))
	}
}

// operationOf is the document's operation of method on path, or nil.
func operationOf(doc *huma.OpenAPI, method, path string) *huma.Operation {
	item := doc.Paths[path]
	if item == nil {
		return nil
	}
	switch method {
	case http.MethodGet:
		return item.Get
	case http.MethodPost:
		return item.Post
	case http.MethodPatch:
		return item.Patch
	case http.MethodPut:
		return item.Put
	case http.MethodDelete:
		return item.Delete
	}
	return nil
}

// documentRetryAfter declares the Retry-After header that a 409 idempotency_in_flight answer of the
// operation carries.
func documentRetryAfter(doc *huma.OpenAPI, method, path string) {
	op := operationOf(doc, method, path)
	if op == nil || op.Responses["409"] == nil {
		return
	}
	resp := op.Responses["409"]
	if resp.Headers == nil {
		resp.Headers = map[string]*huma.Header{}
	}
	resp.Headers["Retry-After"] = &huma.Header{
		Description: "Seconds to wait before retrying with the same Idempotency-Key; sent with idempotency_in_flight.",
		Schema:      &huma.Schema{Type: "integer", Minimum: ptr(0.0)},
	}
}

// operation is the OpenAPI operation of the route, with its security, scope, idempotency header and
// error answers.
func (r Route) operation() huma.Operation {
	op := huma.Operation{
		OperationID: r.Op, Method: r.Method, Path: humaPath(r.Path), Summary: r.Summary, Tags: []string{r.Tag},
		DefaultStatus: r.Status, Errors: r.errors(), Extensions: map[string]any{"x-svc-idempotent": r.Idem},
	}
	switch r.Auth {
	case authNone:
		op.Security = []map[string][]string{} // public: no key, no limits
	case authKey:
		op.Security = []map[string][]string{{"apiKey": {}}, {"apiKeyHeader": {}}}
		op.Extensions["x-svc-limit-operation"] = r.LimitOp()
	case authKeyOrCreditToken:
		op.Security = []map[string][]string{{"apiKey": {}}, {"apiKeyHeader": {}}, {"creditToken": {}}}
		op.Extensions["x-svc-limit-operation"] = r.LimitOp()
	}
	r.documentSession(&op)
	if r.Scope != "" {
		op.Extensions["x-svc-scope"] = r.Scope
		op.Description = "Requires scope `" + r.Scope + "`."
	}
	switch {
	case r.Service != "":
		op.Extensions["x-svc-service-access"] = r.Service
		op.Description += " The key must be allowed to use the service `" + r.Service + "`."
	case r.ServiceParam != "":
		op.Extensions["x-svc-service-access"] = "path:" + r.ServiceParam
		op.Description += " The key must be allowed to use the service."
	case r.ServiceBody != "":
		op.Extensions["x-svc-service-access"] = "body:" + r.ServiceBody
		op.Description += " The key must be allowed to use the service named by `" + r.ServiceBody + "`."
	}
	if r.Auth != authNone {
		op.Parameters = append(op.Parameters, &huma.Param{Name: "X-Svc-Project", In: "header",
			Description: "Selects an active project for an account-level key.", Schema: &huma.Schema{Type: "string"}})
	}
	if r.Idem {
		op.Parameters = append(op.Parameters, &huma.Param{Name: "Idempotency-Key", In: "header", Required: true,
			Description: "1..255 visible ASCII characters; a retry with the same key and input replays the first answer.",
			Schema:      &huma.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(255)}})
	}
	if r.Deprecated != nil {
		r.Deprecated.document(&op)
	}
	return op
}

// sessionOnlyMessage is the refusal of an API key on a session-only route.
const sessionOnlyMessage = "this route takes a web session (sign in with Ethereum), not an API key"

// documentSession states in the operation whether the route accepts a web session (an extra security
// alternative) or takes nothing else (the only one, and x-svc-session-only).
func (r Route) documentSession(op *huma.Operation) {
	switch {
	case r.SessionOnly:
		op.Security = []map[string][]string{{"webSession": {}}}
		op.Extensions["x-svc-session-only"] = true
		op.Description += "Takes a web session token only (POST /auth/siwe/verify): " + sessionOnlyMessage + ", so an API key is refused with 403. "
	case r.Session && r.Auth != authNone:
		op.Security = append(op.Security, map[string][]string{"webSession": {}})
		op.Description += "Also accepts a web session token (POST /auth/siwe/verify). "
	}
}

func (r Route) errors() []int {
	errs := []int{http.StatusBadRequest, http.StatusInternalServerError, http.StatusServiceUnavailable}
	if r.Auth != authNone {
		errs = append(errs, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusTooManyRequests)
	}
	if r.Idem {
		errs = append(errs, http.StatusConflict, http.StatusUnprocessableEntity)
	}
	return errs
}

func ptr[T any](v T) *T { return &v }
