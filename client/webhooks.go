package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Webhook is an endpoint that receives signed event deliveries. Secret is shown only in the answers of
// creation and secret rotation.
type Webhook struct {
	ID             string    `json:"id" doc:"Webhook id (whk_...)."`
	URL            string    `json:"url" doc:"Where deliveries are POSTed."`
	Events         []string  `json:"events" doc:"Event types delivered, or [\"*\"] for all."`
	Description    string    `json:"description"`
	Enabled        bool      `json:"enabled"`
	DisabledReason string    `json:"disabledReason,omitempty" doc:"Why the endpoint is disabled."`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
	// Secret signs deliveries (whsec_ + base64 of 32 bytes); only in creation and rotation answers.
	Secret string `json:"secret,omitempty" doc:"The signing secret (whsec_...); shown on creation and rotation only."`
	// PreviousSecretExpiresAt is when the secret replaced by the last rotation stops signing.
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt,omitempty" doc:"Until then deliveries are also signed with the secret the last rotation replaced."`
}

// CreateWebhookRequest is the body of POST /v1/webhooks.
type CreateWebhookRequest struct {
	URL         string   `json:"url" doc:"An absolute https URL."`
	Events      []string `json:"events" doc:"Event types (run.succeeded, ...) or [\"*\"]."`
	Description string   `json:"description,omitempty" doc:"At most 1000 characters."`
}

// UpdateWebhookRequest is the body of PATCH /v1/webhooks/{webhookId}; absent fields stay as they are.
type UpdateWebhookRequest struct {
	URL         *string   `json:"url,omitempty" doc:"An absolute https URL."`
	Events      *[]string `json:"events,omitempty" doc:"Event types (run.succeeded, ...) or [\"*\"]."`
	Description *string   `json:"description,omitempty" doc:"At most 1000 characters."`
	Enabled     *bool     `json:"enabled,omitempty" doc:"false disables the endpoint; true enables it again."`
}

// WebhookEnvelope answers one webhook.
type WebhookEnvelope struct {
	OK      bool    `json:"ok"`
	Webhook Webhook `json:"webhook"`
}

// WebhookList answers GET /v1/webhooks.
type WebhookList struct {
	OK         bool      `json:"ok"`
	Webhooks   []Webhook `json:"webhooks"`
	NextCursor *string   `json:"nextCursor"`
}

// ListWebhooks lists the webhooks of the selected project (or of none), newest first, without secrets.
func (c *Client) ListWebhooks(ctx context.Context, p ListParams) Response[WebhookList] {
	return send[WebhookList](ctx, c, call{method: http.MethodGet, path: "/webhooks", query: p.query(), auth: authKey})
}

// CreateWebhook registers an endpoint; the answer carries its signing secret, which is not shown again.
func (c *Client) CreateWebhook(ctx context.Context, req CreateWebhookRequest, opts ...CallOption) Response[WebhookEnvelope] {
	return send[WebhookEnvelope](ctx, c, call{method: http.MethodPost, path: "/webhooks", body: req, auth: authKey, idem: true, opts: opts})
}

// UpdateWebhook changes an endpoint's url, events, description or enabled state.
func (c *Client) UpdateWebhook(ctx context.Context, webhookID string, req UpdateWebhookRequest, opts ...CallOption) Response[WebhookEnvelope] {
	if webhookID == "" {
		return invalidArg[WebhookEnvelope]("webhookId", "the webhook id is empty")
	}
	return send[WebhookEnvelope](ctx, c, call{method: http.MethodPatch, path: "/webhooks/" + url.PathEscape(webhookID),
		body: req, auth: authKey, idem: true, opts: opts})
}

// RotateWebhookSecret gives an endpoint a new secret, answered once; the old one keeps signing for 24 h
// (until PreviousSecretExpiresAt).
func (c *Client) RotateWebhookSecret(ctx context.Context, webhookID string, opts ...CallOption) Response[WebhookEnvelope] {
	if webhookID == "" {
		return invalidArg[WebhookEnvelope]("webhookId", "the webhook id is empty")
	}
	return send[WebhookEnvelope](ctx, c, call{method: http.MethodPost, path: "/webhooks/" + url.PathEscape(webhookID) + "/rotate-secret",
		auth: authKey, idem: true, opts: opts})
}

// DeleteWebhook disables an endpoint: nothing more is delivered to it.
func (c *Client) DeleteWebhook(ctx context.Context, webhookID string, opts ...CallOption) Response[WebhookEnvelope] {
	if webhookID == "" {
		return invalidArg[WebhookEnvelope]("webhookId", "the webhook id is empty")
	}
	return send[WebhookEnvelope](ctx, c, call{method: http.MethodDelete, path: "/webhooks/" + url.PathEscape(webhookID),
		auth: authKey, idem: true, opts: opts})
}
