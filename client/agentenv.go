package client

import (
	"context"
	"net/http"
	"net/url"
)

// SetEnv creates or replaces the agent's environment variable key (seed 002's POST /agent/env).
func (c *Client) SetEnv(ctx context.Context, req SetEnvRequest) Response[EnvVarEnvelope] {
	return send[EnvVarEnvelope](ctx, c, call{method: http.MethodPost, path: "/agent/env", body: req, auth: authKey})
}

// ListEnv lists the agent's environment variables: names and times, never values.
func (c *Client) ListEnv(ctx context.Context) Response[EnvVarList] {
	return send[EnvVarList](ctx, c, call{method: http.MethodGet, path: "/agent/env", auth: authKey})
}

// DeleteEnv deletes the agent's environment variable key.
func (c *Client) DeleteEnv(ctx context.Context, key string) Response[EnvVarEnvelope] {
	if key == "" {
		return invalidArg[EnvVarEnvelope]("key", "the variable name is empty")
	}
	return send[EnvVarEnvelope](ctx, c, call{method: http.MethodDelete, path: "/agent/env/" + url.PathEscape(key), auth: authKey})
}

// CreateMCPServer registers a user MCP server; its headers are never shown again.
func (c *Client) CreateMCPServer(ctx context.Context, req CreateMCPServerRequest, opts ...CallOption) Response[MCPServerEnvelope] {
	return send[MCPServerEnvelope](ctx, c, call{method: http.MethodPost, path: "/agent/mcp-servers", body: req, auth: authKey, idem: true, opts: opts})
}

// ListMCPServers lists the account's MCP servers (header names only).
func (c *Client) ListMCPServers(ctx context.Context) Response[MCPServerList] {
	return send[MCPServerList](ctx, c, call{method: http.MethodGet, path: "/agent/mcp-servers", auth: authKey})
}

// GetMCPServer reads one MCP server.
func (c *Client) GetMCPServer(ctx context.Context, id string) Response[MCPServerEnvelope] {
	if id == "" {
		return invalidArg[MCPServerEnvelope]("id", "the MCP server id is empty")
	}
	return send[MCPServerEnvelope](ctx, c, call{method: http.MethodGet, path: "/agent/mcp-servers/" + url.PathEscape(id), auth: authKey})
}

// DeleteMCPServer deletes one MCP server.
func (c *Client) DeleteMCPServer(ctx context.Context, id string, opts ...CallOption) Response[MCPServerEnvelope] {
	if id == "" {
		return invalidArg[MCPServerEnvelope]("id", "the MCP server id is empty")
	}
	return send[MCPServerEnvelope](ctx, c, call{method: http.MethodDelete, path: "/agent/mcp-servers/" + url.PathEscape(id), auth: authKey, idem: true, opts: opts})
}
