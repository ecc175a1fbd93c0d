package api

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/account"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/limit"
	"github.com/svcplatform/svc/internal/project"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// MaxJSONBody is the largest JSON request body accepted.
const MaxJSONBody = 1 << 20

// Header names.
const (
	headerRequestID   = "X-Request-Id"
	headerProject     = "X-Svc-Project"
	headerCreditToken = "X-Svc-Credit-Token"
	headerIdemKey     = "Idempotency-Key"
	headerReplayed    = "Idempotent-Replayed"
)

type ctxKey struct{}

// requestState is what the middleware learns about a request; it is put in the request's context once,
// by requestID, and filled in by the middleware after it.
type requestState struct {
	id string
	// origin is the scheme and host the request was sent to (http://127.0.0.1:8080), for links to itself.
	origin    string
	principal *Principal
	// seed is the idempotency record's seed on idempotent routes, idemKey the request's Idempotency-Key.
	seed    string
	idemKey string
	// charged is what the request charged, in millicredits, for its audit event and usage.
	charged int64
	// withAnswer are statements to commit together with the idempotent answer (see commitWithAnswer), and
	// afterAnswer what to do once they have committed or failed to.
	withAnswer  []idempotency.Statement
	afterAnswer []func(ctx context.Context, committed bool)
	// auditStored: the request's audit event committed with its idempotent answer (see record).
	auditStored bool
}

func stateFrom(ctx context.Context) *requestState {
	st, _ := ctx.Value(ctxKey{}).(*requestState)
	if st == nil {
		return &requestState{}
	}
	return st
}

// Principal is the authenticated caller: an API key, or (only on POST /v1/api-keys) a credit token.
type Principal struct {
	Key *schema.APIKey
	// Ancestors of Key, nearest first; their limits apply to Key's requests.
	Ancestors   []*schema.APIKey
	CreditToken *account.Token
	Scope       tenant.Scope
	// ProjectArchived: the selected project is archived, so only reads are allowed.
	ProjectArchived bool
}

// caller names who sent a request, for idempotency fingerprints: only the same key (or credit token)
// may replay an answer.
func (p *Principal) caller() string {
	if p.Key != nil {
		return "key:" + p.Key.ID
	}
	return "ctk:" + p.CreditToken.ID
}

func requestIDFrom(ctx context.Context) string { return stateFrom(ctx).id }

func principalFrom(ctx context.Context) *Principal { return stateFrom(ctx).principal }

// newID returns the id of a resource a handler creates: derived from the idempotency record on
// idempotent routes, so a retried request after a crash finds the same resource; random otherwise.
func newID(ctx context.Context, prefix string) string {
	if seed := stateFrom(ctx).seed; seed != "" {
		return ids.Derive(prefix, seed)
	}
	return ids.New(prefix)
}

func (s *Server) route(c *gin.Context) *Route {
	return s.routes[c.Request.Method+" "+c.FullPath()]
}

// requestID gives every request an id, returned in X-Request-Id and in error bodies.
func (s *Server) requestID(c *gin.Context) {
	id := ids.New(ids.Request)
	scheme := "http"
	if c.Request.TLS != nil {
		scheme = "https"
	}
	st := &requestState{id: id, origin: scheme + "://" + c.Request.Host}
	c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), ctxKey{}, st))
	c.Header(headerRequestID, id)
	c.Next()
}

// recoverPanics answers 500 instead of dropping the connection, and logs the panic.
func (s *Server) recoverPanics(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(r)
			}
			s.log.Error("panic in handler", "requestId", requestIDFrom(c.Request.Context()), "panic", r)
			if !c.Writer.Written() {
				s.fail(c, svcerr.New(svcerr.Internal, "internal error"))
			}
		}
	}()
	c.Next()
}

// authenticate resolves the caller of routes that need one.
func (s *Server) authenticate(c *gin.Context) {
	r := s.route(c)
	if r == nil || r.Auth == authNone {
		c.Next()
		return
	}
	p, err := s.principal(c, r)
	if err != nil {
		s.fail(c, err)
		return
	}
	stateFrom(c.Request.Context()).principal = p
	c.Next()
}

func (s *Server) principal(c *gin.Context, r *Route) (*Principal, error) {
	ctx := c.Request.Context()
	authz := c.GetHeader("Authorization")
	if authz == "" && r.Auth == authKeyOrCreditToken && c.GetHeader(headerCreditToken) != "" {
		tok, err := s.accounts.VerifyToken(ctx, c.GetHeader(headerCreditToken))
		if err != nil {
			return nil, err
		}
		return &Principal{CreditToken: &tok, Scope: tenant.Scope{AccountID: tok.AccountID}}, nil
	}
	secret, ok := strings.CutPrefix(authz, "Bearer ")
	if !ok || secret == "" {
		return nil, svcerr.New(svcerr.Unauthenticated, "send Authorization: Bearer <API key>")
	}
	caller, err := s.keyCache.Authenticate(ctx, strings.TrimSpace(secret))
	if err != nil {
		return nil, err
	}
	key := caller.Key
	scope, archived, err := s.projectScope(ctx, key, c.GetHeader(headerProject))
	if err != nil {
		return nil, err
	}
	return &Principal{Key: key, Ancestors: caller.Ancestors, Scope: scope, ProjectArchived: archived}, nil
}

// projectScope applies X-Svc-Project: a project-bound key stays in its project; an account-level key
// may select any project of its account. It also reports whether the project is archived.
func (s *Server) projectScope(ctx context.Context, key *schema.APIKey, header string) (tenant.Scope, bool, error) {
	scope := tenant.Scope{AccountID: key.AccountID, ProjectID: key.ProjectID}
	notFound := &svcerr.Error{Code: svcerr.NotFound, Param: headerProject, Message: "no project with that id"}
	if header != "" && key.ProjectID != nil && *key.ProjectID != header {
		return scope, false, notFound
	}
	if header != "" {
		scope.ProjectID = &header
	}
	if scope.ProjectID == nil {
		return scope, false, nil
	}
	var status string
	err := s.db.NewSelect().Model((*schema.Project)(nil)).Column("status").
		Where("id = ? AND account_id = ?", *scope.ProjectID, key.AccountID).Scan(ctx, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return scope, false, notFound
	}
	if err != nil {
		return scope, false, err
	}
	return scope, status == project.Archived, nil
}

// authorize checks the route's scope and service access for API keys.
func (s *Server) authorize(c *gin.Context) {
	r := s.route(c)
	p := principalFrom(c.Request.Context())
	if r == nil || p == nil || p.Key == nil {
		c.Next()
		return
	}
	grants := apikey.GrantsOf(p.Key)
	if r.Scope != "" && !grants.HasScope(r.Scope) {
		s.fail(c, scopeMissing(r.Scope))
		return
	}
	if p.ProjectArchived && r.Method != http.MethodGet {
		s.fail(c, svcerr.New(svcerr.Conflict, "project %s is archived: it can be read but not changed", p.Scope.Project()))
		return
	}
	if r.ServiceParam != "" {
		id := c.Param(r.ServiceParam)
		if !s.catalog.Known(id) {
			s.fail(c, svcerr.NotFoundf("no service %q", id))
			return
		}
		if err := serviceAccess(grants, id); err != nil {
			s.fail(c, err)
			return
		}
	}
	c.Next()
}

func scopeMissing(scope string) error {
	return svcerr.New(svcerr.ScopeMissing, "this key lacks scope %s", scope).WithDetails("requiredScope", scope)
}

// serviceAccess answers service_access_denied unless the grants allow the service.
func serviceAccess(g apikey.Grants, serviceID string) error {
	if g.HasService(serviceID) {
		return nil
	}
	return svcerr.New(svcerr.ServiceAccessDenied, "this key may not use service %s", serviceID).
		WithDetails("serviceId", serviceID)
}

// idempotent enforces Idempotency-Key on the routes that require it.
func (s *Server) idempotent(c *gin.Context) {
	r := s.route(c)
	p := principalFrom(c.Request.Context())
	if r == nil || !r.Idem || p == nil {
		c.Next()
		return
	}
	req, err := s.idempotencyRequest(c, p)
	if err != nil {
		s.fail(c, err)
		return
	}
	claim, err := s.idem.Claim(c.Request.Context(), req)
	if err != nil {
		s.fail(c, err)
		return
	}
	if claim.Replay != nil {
		replay(c, claim.Replay)
		return
	}
	stateFrom(c.Request.Context()).seed, stateFrom(c.Request.Context()).idemKey = claim.Seed, req.Key
	before := c.Writer.Header().Clone()
	w := &capture{ResponseWriter: c.Writer}
	c.Writer = w
	c.Next()
	c.Writer = w.ResponseWriter
	err = s.record(c, r, req, claim.Seed, w)
	if err != nil {
		// The answer's effects did not commit: the client gets an error to retry with the same key, not
		// an answer that did not happen.
		h := c.Writer.Header()
		clear(h)
		maps.Copy(h, before)
		stateFrom(c.Request.Context()).charged = 0
		s.fail(c, err)
		return
	}
	_, _ = c.Writer.Write(w.buf.Bytes())
}

func (s *Server) idempotencyRequest(c *gin.Context, p *Principal) (idempotency.Request, error) {
	key := c.GetHeader(headerIdemKey)
	if key == "" {
		return idempotency.Request{}, &svcerr.Error{Code: svcerr.IdempotencyKeyMissing, Param: headerIdemKey,
			Message: "this route requires an Idempotency-Key header (1..255 visible ASCII characters)"}
	}
	if !idempotency.ValidKey(key) {
		return idempotency.Request{}, svcerr.Invalid(headerIdemKey, "Idempotency-Key must be 1..255 visible ASCII characters")
	}
	body, err := readBody(c)
	if err != nil {
		return idempotency.Request{}, err
	}
	path := c.Request.URL.Path
	if c.Request.URL.RawQuery != "" {
		path += "?" + c.Request.URL.RawQuery
	}
	return idempotency.Request{
		AccountID: p.Scope.AccountID, Key: key, Method: c.Request.Method, Path: path,
		Fingerprint: idempotency.Fingerprint(p.caller(), c.Request.Method, path, p.Scope.Project(), body),
		Lease:       s.route(c).Lease,
	}, nil
}

// readBody reads the JSON body (at most MaxJSONBody) and puts it back for the handler.
func readBody(c *gin.Context) ([]byte, error) {
	if c.Request.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(c.Request.Body, MaxJSONBody+1))
	if err != nil {
		return nil, svcerr.Invalid("body", "could not read the request body")
	}
	if len(body) > MaxJSONBody {
		return nil, svcerr.New(svcerr.PayloadTooLarge, "the body is larger than %d bytes", MaxJSONBody)
	}
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// record stores a final answer for replay, committing with it the statements the handler left for it,
// or unlocks the key (keeping its seed) so the client may retry. It fails only when the statements did
// not commit; a record that cannot be written otherwise is logged, since a retry finds what the request
// did through the seed.
func (s *Server) record(c *gin.Context, r *Route, req idempotency.Request, seed string, w *capture) error {
	ctx := context.WithoutCancel(c.Request.Context())
	st := stateFrom(ctx)
	also := st.withAnswer
	status := w.Status()
	committed := true
	var err error
	if storable(status) {
		// The audit event commits with the answer, in the same round trip: stored before it is sent.
		event := audit.Statement(s.db, s.auditEvent(c, r, st.principal, status))
		stmts := append(also[:len(also):len(also)], event)
		err = s.idem.Complete(ctx, req, seed, idempotency.Response{Status: status, Header: storedHeaders(w.Header()), Body: w.buf.Bytes()}, r.Seal, stmts...)
		committed = err == nil
		st.auditStored = committed
	} else {
		if len(also) > 0 {
			if _, xerr := s.db.ExecContext(ctx, idempotency.Batch(also...)); xerr != nil {
				committed = false
				s.log.Error("commit with a failed answer", "requestId", requestIDFrom(ctx), "err", xerr)
			}
		}
		err = s.idem.Unlock(ctx, req, seed)
	}
	for _, after := range st.afterAnswer {
		after(ctx, committed)
	}
	if err == nil {
		return nil
	}
	s.log.Error("record idempotent answer", "requestId", requestIDFrom(ctx), "err", err)
	if len(also) == 0 || !storable(status) {
		return nil
	}
	if uerr := s.idem.Unlock(ctx, req, seed); uerr != nil {
		s.log.Error("unlock idempotency key", "requestId", requestIDFrom(ctx), "err", uerr)
	}
	return fmt.Errorf("record the answer with its effects: %w", err)
}

// commitWithAnswer commits q with the answer on idempotent routes, so the stored answer a retry replays
// and the effect it reports (a charge, say) commit together, in the same round trip; elsewhere it runs
// q at once. q may be nil (nothing to commit). after (may be nil) runs once q has committed or failed
// to (to give reserved credits back, say).
func (s *Server) commitWithAnswer(ctx context.Context, q *bun.RawQuery, after func(ctx context.Context, committed bool)) error {
	st := stateFrom(ctx)
	if st.seed != "" {
		if q != nil {
			st.withAnswer = append(st.withAnswer, q)
		}
		if after != nil {
			st.afterAnswer = append(st.afterAnswer, after)
		}
		return nil
	}
	var err error
	if q != nil {
		_, err = q.Exec(ctx)
	}
	if after != nil {
		after(ctx, err == nil)
	}
	return err
}

// storable answers are replayed: successes and final client errors. Answers that depend on timing or
// a later step (401, 402, 408, 409, 429, 5xx) are not kept, so the same key can be retried.
func storable(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusPaymentRequired, http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return false
	}
	return status < 500
}

func storedHeaders(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		switch k {
		case headerRequestID, "Date", "Content-Length", "Ratelimit", "Ratelimit-Policy", "Retry-After", "X-Svc-Limit-Operation":
			continue // per answer, not per request: a replay must not repeat them
		}
		out[k] = v
	}
	return out
}

func replay(c *gin.Context, resp *idempotency.Response) {
	for k, v := range resp.Header {
		c.Writer.Header()[k] = v
	}
	c.Header(headerReplayed, "true")
	c.Status(resp.Status)
	_, _ = c.Writer.Write(resp.Body)
	c.Abort()
}

// capture holds the answer back until it is recorded (see record), keeping a copy for the record.
type capture struct {
	gin.ResponseWriter
	buf bytes.Buffer
}

func (w *capture) Write(b []byte) (int, error) { return w.buf.Write(b) }

func (w *capture) WriteString(s string) (int, error) { return w.buf.WriteString(s) }

// WriteHeaderNow and Flush wait for the record too: the status and headers go out with the body.
func (w *capture) WriteHeaderNow() {}

// Flush does nothing until the answer is recorded.
func (w *capture) Flush() {}

// limited applies the per-key limits of the caller and its ancestors: 429 limit_exceeded with
// Retry-After, X-Svc-Limit-Operation and the IETF RateLimit headers when a window is spent; the
// RateLimit headers on every other limited answer. Routes that start runs or invoke services also
// match the per-service and per-operation selectors named in their body.
func (s *Server) limited(c *gin.Context) {
	r := s.route(c)
	p := principalFrom(c.Request.Context())
	if r == nil || p == nil || p.Key == nil || !hasLimits(p) {
		c.Next()
		return
	}
	serviceID, operationID := s.qualifiers(c, r)
	d, err := s.limiter.Allow(c.Request.Context(), owners(p), limit.Operations(r.LimitOp(), serviceID, operationID))
	if err != nil {
		s.fail(c, err)
		return
	}
	limit.SetHeaders(c.Writer.Header(), d)
	if !d.Allowed {
		s.fail(c, limitExceeded(d))
		return
	}
	c.Next()
}

// limitExceeded is the 429 of a refused decision; its details give the headers (see apiError).
func limitExceeded(d limit.Decision) error {
	secs := int64(math.Ceil(d.RetryAfter.Seconds()))
	return svcerr.New(svcerr.LimitExceeded, "the limit on %s is spent for now; retry in %d s", d.Operation, secs).
		WithDetails("operation", d.Operation).WithDetails("retryAfterSeconds", secs)
}

// hasLimits reports whether the caller or an ancestor has any limit.
func hasLimits(p *Principal) bool {
	if len(p.Key.Limits) > 0 {
		return true
	}
	for _, a := range p.Ancestors {
		if len(a.Limits) > 0 {
			return true
		}
	}
	return false
}

func owners(p *Principal) []limit.Owner {
	out := make([]limit.Owner, 0, 1+len(p.Ancestors))
	out = append(out, limit.Owner{KeyID: p.Key.ID, Limits: p.Key.Limits})
	for _, a := range p.Ancestors {
		out = append(out, limit.Owner{KeyID: a.ID, Limits: a.Limits})
	}
	return out
}

// qualifiers are the service and operation ids a run or invocation names (path or body), for the
// qualified limit selectors; "" elsewhere.
func (s *Server) qualifiers(c *gin.Context, r *Route) (string, string) {
	if !r.Qualified {
		return "", ""
	}
	var body struct {
		ServiceID   string `json:"serviceId"`
		OperationID string `json:"operationId"`
	}
	if raw, err := readBody(c); err == nil {
		_ = json.Unmarshal(raw, &body) // a malformed body is refused by the handler's validation
	}
	if r.ServiceParam != "" {
		body.ServiceID = c.Param(r.ServiceParam)
	}
	return body.ServiceID, body.OperationID
}

// audited records one audit event per authenticated request, once it is answered (so refusals are
// audited too). The event of a read joins the background writer's next batch (written within ~50 ms,
// off the read's critical path). The answer of a request that may change something (any method but
// GET) is held until its event is stored: with the idempotent answer's transaction when there is one
// (see record), otherwise by an INSERT here. Either way the event is in the database, and listed, when
// the client gets the answer, and a crash of the process cannot lose it.
//
// (Every event used to go through the batch writer: a client that made a dozen writes in ~16 ms and
// then listed its audit events ran before the writer's next 50 ms tick and was answered [] about half
// the time, and a kill -9 lost whatever was buffered.)
func (s *Server) audited(c *gin.Context) {
	r := s.route(c)
	p := principalFrom(c.Request.Context())
	if r == nil || p == nil {
		c.Next()
		return
	}
	if r.Method == http.MethodGet {
		c.Next()
		s.audit.Record(s.auditEvent(c, r, p, c.Writer.Status()))
		return
	}
	w := &capture{ResponseWriter: c.Writer}
	c.Writer = w
	defer func() { c.Writer = w.ResponseWriter }() // after a panic, recoverPanics answers on the real writer
	c.Next()
	c.Writer = w.ResponseWriter
	switch ev := s.auditEvent(c, r, p, w.Status()); {
	case stateFrom(c.Request.Context()).auditStored:
	case w.Status() == http.StatusServiceUnavailable:
		// A dependency (PostgreSQL, most often) is down and nothing was changed: the answer does not wait
		// for a write that would fail too; the background writer retries.
		s.audit.Record(ev)
	default:
		s.writeAuditEvent(c.Request.Context(), ev)
	}
	_, _ = c.Writer.Write(w.buf.Bytes())
}

// auditWriteTimeout bounds how long an answer waits for its event's direct write before leaving the
// event to the background writer (an outage must not hold every answer for long).
const auditWriteTimeout = 2 * time.Second

// writeAuditEvent stores an event before its answer is sent; if the database refuses or is slower than
// auditWriteTimeout, the event goes to the background writer, which retries.
func (s *Server) writeAuditEvent(ctx context.Context, ev schema.AuditEvent) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditWriteTimeout)
	defer cancel()
	if err := s.audit.Write(ctx, ev); err != nil {
		s.log.Error("write audit event; left to the background writer", "requestId", ev.RequestID, "err", err)
		s.audit.Record(ev)
	}
}

// auditEvent is the event of a request answered with status.
func (s *Server) auditEvent(c *gin.Context, r *Route, p *Principal, status int) schema.AuditEvent {
	st := stateFrom(c.Request.Context())
	ev := schema.AuditEvent{
		ID: ids.New(ids.AuditEvent), AccountID: p.Scope.AccountID, ProjectID: p.Scope.ProjectID,
		Operation: r.LimitOp(), Method: c.Request.Method, Path: c.Request.URL.Path, Status: status,
		RequestID: st.id, ClientIP: c.ClientIP(), CreatedAt: time.Now().UTC(), ChargedMillicredits: st.charged,
	}
	if p.Key != nil {
		ev.KeyID = &p.Key.ID
	}
	return ev
}
