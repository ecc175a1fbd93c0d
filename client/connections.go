package client

import (
	"context"
	"net/http"
	"net/url"
)

// ListConnections lists the protected connections of the selected project (or of none).
func (c *Client) ListConnections(ctx context.Context, p ListParams) Response[ConnectionList] {
	return send[ConnectionList](ctx, c, call{method: http.MethodGet, path: "/connections", query: p.query(), auth: authKey})
}

// CreateConnection stores an upstream credential; the secret is never shown again.
func (c *Client) CreateConnection(ctx context.Context, req CreateConnectionRequest, opts ...CallOption) Response[ConnectionEnvelope] {
	return send[ConnectionEnvelope](ctx, c, call{method: http.MethodPost, path: "/connections", body: req, auth: authKey, idem: true, opts: opts})
}

// GetConnection reads a connection's metadata.
func (c *Client) GetConnection(ctx context.Context, connectionID string) Response[ConnectionEnvelope] {
	if connectionID == "" {
		return invalidArg[ConnectionEnvelope]("connectionId", "the connection id is empty")
	}
	return send[ConnectionEnvelope](ctx, c, call{method: http.MethodGet, path: "/connections/" + url.PathEscape(connectionID), auth: authKey})
}

// UpdateConnection rotates, renames, disables or enables a connection.
func (c *Client) UpdateConnection(ctx context.Context, connectionID string, req UpdateConnectionRequest, opts ...CallOption) Response[ConnectionEnvelope] {
	if connectionID == "" {
		return invalidArg[ConnectionEnvelope]("connectionId", "the connection id is empty")
	}
	return send[ConnectionEnvelope](ctx, c, call{method: http.MethodPatch, path: "/connections/" + url.PathEscape(connectionID),
		body: req, auth: authKey, idem: true, opts: opts})
}

// DeleteConnection deletes a connection.
func (c *Client) DeleteConnection(ctx context.Context, connectionID string, opts ...CallOption) Response[ConnectionEnvelope] {
	if connectionID == "" {
		return invalidArg[ConnectionEnvelope]("connectionId", "the connection id is empty")
	}
	return send[ConnectionEnvelope](ctx, c, call{method: http.MethodDelete, path: "/connections/" + url.PathEscape(connectionID),
		auth: authKey, idem: true, opts: opts})
}
