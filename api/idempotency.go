package api

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/svcerr"
)

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
	body, err := s.fingerprintBody(c)
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

// fingerprintBody is what of the body an idempotency fingerprint covers: the JSON body, or on a RawBody
// route (an upload, streamed and never buffered) the headers that describe the bytes, X-Content-Sha256
// among them. A replay of an upload with the same key and headers answers the first file, whatever
// bytes it carries; a client that wants the bytes themselves compared sends X-Content-Sha256.
func (s *Server) fingerprintBody(c *gin.Context) ([]byte, error) {
	if r := s.route(c); r == nil || !r.RawBody {
		return readBody(c)
	}
	var b strings.Builder
	for _, h := range rawFingerprintHeaders {
		b.WriteString(h + ":" + c.GetHeader(h) + "\n")
	}
	fmt.Fprintf(&b, "Content-Length:%d\n", c.Request.ContentLength)
	return []byte(b.String()), nil
}

// rawFingerprintHeaders are the headers of a raw upload its idempotency fingerprint covers.
var rawFingerprintHeaders = []string{"Content-Type", "X-File-Name", "X-Content-Sha256", "X-Svc-File-Purpose"}

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

// answerCommit is how the request's effects commit (see idempotency.Commit): on idempotent routes with
// the answer (see record), so the stored answer a retry replays and the effect it reports (a charge, say)
// commit together, in the same round trip; elsewhere at once. A handler obtains it once and passes it to
// the domain call whose effect it is.
func answerCommit(ctx context.Context) idempotency.Commit {
	st := stateFrom(ctx)
	if st.seed == "" {
		return idempotency.CommitNow
	}
	return st.commitWithAnswer
}

// commitWithAnswer is the idempotency.Commit of a request with an idempotent answer: q is kept for record
// to commit with the answer, and after to run once it has committed or failed to.
func (st *requestState) commitWithAnswer(_ context.Context, q *bun.RawQuery, after func(ctx context.Context, committed bool)) error {
	if q != nil {
		st.withAnswer = append(st.withAnswer, q)
	}
	if after != nil {
		st.afterAnswer = append(st.afterAnswer, after)
	}
	return nil
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
