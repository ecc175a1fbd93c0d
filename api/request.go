package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/account"
	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/siwe"
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
	headerAPIKey      = "X-API-Key"
	headerCreditToken = "X-Svc-Credit-Token"
	// headerPartnerKey carries a partner key (seed 002's organisation-level key) on routes that accept one.
	headerPartnerKey = "X-Partner-Key"
	headerIdemKey    = "Idempotency-Key"
	headerReplayed   = "Idempotent-Replayed"
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
	// withAnswer are statements to commit together with the idempotent answer (see answerCommit), and
	// afterAnswer what to do once they have committed or failed to.
	withAnswer  []idempotency.Statement
	afterAnswer []func(ctx context.Context, committed bool)
	// auditStored: the request's audit event committed with its idempotent answer (see record).
	auditStored bool
	// rawBody and rawLength are the unread body and its Content-Length (-1 when unknown) on RawBody
	// routes (see rawBodyFrom).
	rawBody   io.Reader
	rawLength int64
	// clientIP is gin's client address of the request (an app frontend's anonymous visitor).
	clientIP string
}

// rawBodyFrom is the unread request body of a RawBody route and its declared Content-Length (-1 when the
// request did not declare one); nil on other routes.
func rawBodyFrom(ctx context.Context) (io.Reader, int64) {
	st := stateFrom(ctx)
	return st.rawBody, st.rawLength
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
	// Session is the web session (SIWE) that made the request, on routes that accept one; Key is then nil.
	Session *siwe.Session
	// Partner is the partner key (X-Partner-Key) that made the request, on routes that accept one; Key is
	// then nil and Scope is its account.
	Partner *schema.Partner
}

// caller names who sent a request, for idempotency fingerprints: only the same key (or credit token)
// may replay an answer.
func (p *Principal) caller() string {
	if p.Key != nil {
		return "key:" + p.Key.ID
	}
	if p.Session != nil {
		return "ses:" + p.Session.AccountID + ":" + p.Session.Address
	}
	if p.Partner != nil {
		return "ptn:" + p.Partner.ID
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
	st := &requestState{id: id, origin: scheme + "://" + c.Request.Host, clientIP: c.ClientIP()}
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
