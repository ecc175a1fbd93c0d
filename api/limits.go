package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/limit"
	"github.com/svcplatform/svc/internal/svcerr"
)

// limited applies the per-key limits of the caller and its ancestors: 429 limit_exceeded with
// Retry-After, X-Svc-Limit-Operation and the IETF RateLimit headers when a window is spent; the
// RateLimit headers on every other limited answer. Routes that start runs or invoke services also
// match the per-service and per-operation selectors named in their body.
func (s *Server) limited(c *gin.Context) {
	r := s.route(c)
	p := principalFrom(c.Request.Context())
	if r == nil || p == nil || p.Key == nil || !hasLimits(p) || r.LimitOnly != nil && !r.LimitOnly(c) {
		c.Next()
		return
	}
	serviceID, operationID := s.qualifiers(c, r)
	d, err := s.decideLimits(c.Request.Context(), r, p, serviceID, operationID)
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

// decideLimits takes one request of r (naming serviceID and operationID, "" for none) from the limits
// of p's key and its ancestors. It is limited's decision, also taken by the MCP transport's direct reads
// (see mcpTools.direct).
func (s *Server) decideLimits(ctx context.Context, r *Route, p *Principal, serviceID, operationID string) (limit.Decision, error) {
	d, err := s.limiter.Allow(ctx, owners(p), limit.Operations(r.LimitOp(), serviceID, operationID))
	if err != nil {
		return d, fmt.Errorf("limits of %s: %w", r.LimitOp(), err)
	}
	return d, nil
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

// dailyCredits holds prices against the creditsPerDay limits of callers and their ancestors: the routes
// that start paid work (runs, approvals of service actions, invocations) reserve before it starts.
type dailyCredits struct {
	limiter *limit.Limiter
	log     *slog.Logger
}

// reserve takes a price from the creditsPerDay limits (of base and its per-service and per-operation
// forms) of the caller and its ancestors; nil when nothing limits it.
func (s dailyCredits) reserve(ctx context.Context, p *Principal, base, serviceID, operationID string, millicredits int64) (*limit.Reservation, error) {
	if millicredits == 0 || !hasLimits(p) {
		return nil, nil
	}
	d, r, err := s.limiter.ReserveCredits(ctx, owners(p), limit.Operations(base, serviceID, operationID), millicredits)
	if err != nil {
		return nil, err
	}
	if !d.Allowed {
		return nil, limitExceeded(d)
	}
	return r, nil
}

// release gives back the part of a daily reservation that was not charged.
func (s dailyCredits) release(ctx context.Context, r *limit.Reservation, millicredits int64) {
	if r == nil || millicredits <= 0 {
		return
	}
	if err := s.limiter.ReleaseCredits(context.WithoutCancel(ctx), r, millicredits); err != nil {
		s.log.Warn("release daily credits", "err", err)
	}
}
