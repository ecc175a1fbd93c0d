package client

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// AuditEventParams filter and page GET /v1/audit-events.
type AuditEventParams struct {
	ListParams
	Operation string
	KeyID     string
	Status    int
	From, To  time.Time
}

// ListAuditEvents lists audit events, newest first.
func (c *Client) ListAuditEvents(ctx context.Context, p AuditEventParams) Response[AuditEventList] {
	q := p.query()
	for k, v := range map[string]string{"operation": p.Operation, "keyId": p.KeyID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if p.Status != 0 {
		q.Set("status", strconv.Itoa(p.Status))
	}
	if !p.From.IsZero() {
		q.Set("from", p.From.UTC().Format(time.RFC3339))
	}
	if !p.To.IsZero() {
		q.Set("to", p.To.UTC().Format(time.RFC3339))
	}
	return send[AuditEventList](ctx, c, call{method: http.MethodGet, path: "/audit-events", query: q, auth: authKey})
}
