package client

import (
	"context"
	"net/http"
	"net/url"
)

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
