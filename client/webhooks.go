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

// HeaderSvcEvent names the event type of a webhook delivery.
const HeaderSvcEvent = "X-Svc-Event"

// Webhook delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// WebhookDelivery is one event delivered (or being delivered) to one endpoint, with its attempts.
type WebhookDelivery struct {
	ID        string `json:"id" doc:"Delivery id (dlv_...)."`
	WebhookID string `json:"webhookId" doc:"The endpoint (whk_...)."`
	EventID   string `json:"eventId" doc:"The event (evt_...), also the webhook-id header of every attempt."`
	EventType string `json:"eventType" doc:"The event type (run.succeeded, ...)."`
	Status    string `json:"status" enum:"pending,succeeded,failed"`
	// ReplayOf is the delivery this one replays.
	ReplayOf    *string    `json:"replayOf" doc:"The delivery this one replays, if it is a replay."`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	CompletedAt *time.Time `json:"completedAt" doc:"When the delivery succeeded or finally failed."`
	// Attempts are the HTTP calls made so far, oldest first.
	Attempts []WebhookAttempt `json:"attempts"`
}

// WebhookAttempt is one HTTP call of a delivery.
type WebhookAttempt struct {
	Number    int       `json:"number" doc:"1 for the first attempt."`
	StartedAt time.Time `json:"startedAt"`
	// HTTPStatus is the endpoint's answer; nil when none came (timeout, unreachable, refused address).
	HTTPStatus *int  `json:"httpStatus" doc:"The endpoint's HTTP status; null when it did not answer."`
	LatencyMs  int64 `json:"latencyMs"`
	// Error says why the attempt failed; nil on success.
	Error *string `json:"error" doc:"Why the attempt failed; null on success."`
}

// WebhookDeliveryEnvelope answers one delivery.
type WebhookDeliveryEnvelope struct {
	OK       bool            `json:"ok"`
	Delivery WebhookDelivery `json:"delivery"`
}

// WebhookDeliveryList answers GET /v1/webhook-deliveries.
type WebhookDeliveryList struct {
	OK         bool              `json:"ok"`
	Deliveries []WebhookDelivery `json:"deliveries"`
	NextCursor *string           `json:"nextCursor"`
}

// ListWebhookDeliveriesParams filter and page ListWebhookDeliveries.
type ListWebhookDeliveriesParams struct {
	ListParams
	WebhookID string
	// Type is an event type (run.succeeded, ...).
	Type string
	// Status is DeliveryPending, DeliverySucceeded or DeliveryFailed.
	Status string
	// From (inclusive) and To (exclusive) bound the deliveries' creation time.
	From, To time.Time
}

func (p ListWebhookDeliveriesParams) values() url.Values {
	return setFilters(p.query(), p.From, p.To,
		[2]string{"webhookId", p.WebhookID}, [2]string{"type", p.Type}, [2]string{"status", p.Status})
}

// ListWebhookDeliveries lists the deliveries of the selected project (or of none), newest first, each
// with its attempts (scope webhooks:read).
func (c *Client) ListWebhookDeliveries(ctx context.Context, p ListWebhookDeliveriesParams) Response[WebhookDeliveryList] {
	return send[WebhookDeliveryList](ctx, c, call{method: http.MethodGet, path: "/webhook-deliveries", query: p.values(), auth: authKey})
}

// ReplayWebhookDelivery delivers a delivery's event again to its endpoint as a fresh delivery (same
// event id, so the same webhook-id; new timestamp and signature). A disabled endpoint answers 409.
func (c *Client) ReplayWebhookDelivery(ctx context.Context, deliveryID string, opts ...CallOption) Response[WebhookDeliveryEnvelope] {
	if deliveryID == "" {
		return invalidArg[WebhookDeliveryEnvelope]("deliveryId", "the delivery id is empty")
	}
	return send[WebhookDeliveryEnvelope](ctx, c, call{method: http.MethodPost, path: "/webhook-deliveries/" + url.PathEscape(deliveryID) + "/replay",
		auth: authKey, idem: true, opts: opts})
}
