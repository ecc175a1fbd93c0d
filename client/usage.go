package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// UsageParams select GET /v1/usage: UTC days From..To inclusive (zero: the last 30 days) and optionally
// one operation.
type UsageParams struct {
	From, To  time.Time
	Operation string
}

// Usage returns requests and charged credits by project, day and operation.
func (c *Client) Usage(ctx context.Context, p UsageParams) Response[Usage] {
	q := url.Values{}
	if !p.From.IsZero() {
		q.Set("from", p.From.UTC().Format(time.DateOnly))
	}
	if !p.To.IsZero() {
		q.Set("to", p.To.UTC().Format(time.DateOnly))
	}
	if p.Operation != "" {
		q.Set("operation", p.Operation)
	}
	return send[Usage](ctx, c, call{method: http.MethodGet, path: "/usage", query: q, auth: authKey})
}
