package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Balance returns the account's credits (GET /v1/credits/balance).
func (c *Client) Balance(ctx context.Context) Response[BalanceEnvelope] {
	return send[BalanceEnvelope](ctx, c, call{method: http.MethodGet, path: "/credits/balance", auth: authKey})
}

// ProjectListParams filter and page GET /v1/projects.
type ProjectListParams struct {
	ListParams
	// Status is "active", "archived" or "" for both.
	Status string
}

// ListProjects lists the projects the key may see.
func (c *Client) ListProjects(ctx context.Context, p ProjectListParams) Response[ProjectList] {
	q := p.query()
	if p.Status != "" {
		q.Set("status", p.Status)
	}
	return send[ProjectList](ctx, c, call{method: http.MethodGet, path: "/projects", query: q, auth: authKey})
}

// CreateProject creates a project.
func (c *Client) CreateProject(ctx context.Context, req CreateProjectRequest, opts ...CallOption) Response[ProjectEnvelope] {
	return send[ProjectEnvelope](ctx, c, call{method: http.MethodPost, path: "/projects", body: req, auth: authKey, idem: true, opts: opts})
}

// GetProject reads a project.
func (c *Client) GetProject(ctx context.Context, projectID string) Response[ProjectEnvelope] {
	if projectID == "" {
		return invalidArg[ProjectEnvelope]("projectId", "the project id is empty")
	}
	return send[ProjectEnvelope](ctx, c, call{method: http.MethodGet, path: "/projects/" + url.PathEscape(projectID), auth: authKey})
}

// UpdateProject changes a project's name or description.
func (c *Client) UpdateProject(ctx context.Context, projectID string, req UpdateProjectRequest, opts ...CallOption) Response[ProjectEnvelope] {
	if projectID == "" {
		return invalidArg[ProjectEnvelope]("projectId", "the project id is empty")
	}
	return send[ProjectEnvelope](ctx, c, call{method: http.MethodPatch, path: "/projects/" + url.PathEscape(projectID),
		body: req, auth: authKey, idem: true, opts: opts})
}

// ArchiveProject archives a project (DELETE /v1/projects/{projectId}); it stays readable.
func (c *Client) ArchiveProject(ctx context.Context, projectID string, opts ...CallOption) Response[ProjectEnvelope] {
	if projectID == "" {
		return invalidArg[ProjectEnvelope]("projectId", "the project id is empty")
	}
	return send[ProjectEnvelope](ctx, c, call{method: http.MethodDelete, path: "/projects/" + url.PathEscape(projectID),
		auth: authKey, idem: true, opts: opts})
}

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
