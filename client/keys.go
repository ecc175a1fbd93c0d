package client

import (
	"context"
	"net/http"
	"net/url"
)

// ListAPIKeys lists the calling key and its descendants, newest first (scope api_keys:manage).
func (c *Client) ListAPIKeys(ctx context.Context, p ListParams) Response[APIKeyList] {
	return send[APIKeyList](ctx, c, call{method: http.MethodGet, path: "/api-keys", query: p.query(), auth: authKey})
}

// CreateAPIKey creates a key (idempotent). With an API key it creates a narrower child key (scope
// api_keys:manage); with only a credit token (WithCreditToken) it creates the account's first key. The
// answer carries the secret, shown this once.
func (c *Client) CreateAPIKey(ctx context.Context, req CreateAPIKeyRequest, opts ...CallOption) Response[APIKeyEnvelope] {
	return send[APIKeyEnvelope](ctx, c, call{method: http.MethodPost, path: "/api-keys", body: req,
		auth: authKeyOrCreditToken, idem: true, opts: opts})
}

// RevokeAPIKey revokes the key id and all its descendants (idempotent; scope api_keys:manage).
func (c *Client) RevokeAPIKey(ctx context.Context, id string, opts ...CallOption) Response[APIKeyEnvelope] {
	if id == "" {
		return invalidArg[APIKeyEnvelope]("id", "the API key id is empty")
	}
	return send[APIKeyEnvelope](ctx, c, call{method: http.MethodDelete, path: "/api-keys/" + url.PathEscape(id),
		auth: authKey, idem: true, opts: opts})
}
