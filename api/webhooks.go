package api

import (
	"context"
	"net/http"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/delivery"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/webhook"
)

func webhookReply(w webhook.Webhook, err error) (*Out[client.WebhookEnvelope], error) {
	if err != nil {
		return nil, err
	}
	return reply(client.WebhookEnvelope{OK: true, Webhook: webhook.ToWire(w)})
}

func (w *webhooksAPI) listWebhooks(ctx context.Context, in *listInput) (*Out[client.WebhookList], error) {
	p, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	rows, next, err := w.webhooks.List(ctx, principalFrom(ctx).Scope, p)
	if err != nil {
		return nil, err
	}
	out := client.WebhookList{OK: true, Webhooks: make([]client.Webhook, 0, len(rows)), NextCursor: next}
	for _, w := range rows {
		out.Webhooks = append(out.Webhooks, webhook.ToWire(w))
	}
	return reply(out)
}

type createWebhookInput struct {
	Body client.CreateWebhookRequest
}

func (w *webhooksAPI) createWebhook(ctx context.Context, in *createWebhookInput) (*Out[client.WebhookEnvelope], error) {
	b := in.Body
	return webhookReply(w.webhooks.Create(ctx, principalFrom(ctx).Scope, webhook.NewWebhook{
		ID: newID(ctx, webhook.IDPrefix), URL: b.URL, Events: b.Events, Description: b.Description}))
}

type webhookIDInput struct {
	WebhookID string `path:"webhookId" doc:"The webhook id (whk_...)."`
}

type updateWebhookInput struct {
	WebhookID string `path:"webhookId" doc:"The webhook id (whk_...)."`
	Body      client.UpdateWebhookRequest
}

func (w *webhooksAPI) updateWebhook(ctx context.Context, in *updateWebhookInput) (*Out[client.WebhookEnvelope], error) {
	b := in.Body
	return webhookReply(w.webhooks.Update(ctx, principalFrom(ctx).Scope, in.WebhookID,
		webhook.Patch{URL: b.URL, Events: b.Events, Description: b.Description, Enabled: b.Enabled}))
}

func (w *webhooksAPI) rotateWebhookSecret(ctx context.Context, in *webhookIDInput) (*Out[client.WebhookEnvelope], error) {
	return webhookReply(w.webhooks.RotateSecret(ctx, principalFrom(ctx).Scope, in.WebhookID))
}

func (w *webhooksAPI) deleteWebhook(ctx context.Context, in *webhookIDInput) (*Out[client.WebhookEnvelope], error) {
	return webhookReply(w.webhooks.Disable(ctx, principalFrom(ctx).Scope, in.WebhookID))
}

type listDeliveriesInput struct {
	PageQuery
	WebhookID string `query:"webhookId" maxLength:"200" doc:"Only deliveries to this endpoint."`
	Type      string `query:"type" maxLength:"200" doc:"Only deliveries of this event type."`
	Status    string `query:"status" enum:"pending,succeeded,failed" doc:"Only deliveries in this status."`
	From      string `query:"from" doc:"RFC 3339 time: deliveries created at or after it."`
	To        string `query:"to" doc:"RFC 3339 time: deliveries created before it."`
}

// listWebhookDeliveries lists the deliveries of the caller's scope, newest first, with their attempts.
func (w *webhooksAPI) listWebhookDeliveries(ctx context.Context, in *listDeliveriesInput) (*Out[client.WebhookDeliveryList], error) {
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	f := delivery.Filter{Scope: principalFrom(ctx).Scope, WebhookID: in.WebhookID, EventType: in.Type, Status: in.Status}
	if f.From, err = parseTime("from", in.From); err != nil {
		return nil, err
	}
	if f.To, err = parseTime("to", in.To); err != nil {
		return nil, err
	}
	rows, next, err := w.deliveries.List(ctx, f, pg)
	if err != nil {
		return nil, err
	}
	out := client.WebhookDeliveryList{OK: true, Deliveries: make([]client.WebhookDelivery, 0, len(rows)), NextCursor: next}
	for _, d := range rows {
		out.Deliveries = append(out.Deliveries, delivery.ToWire(d))
	}
	return reply(out)
}

type deliveryIDInput struct {
	DeliveryID string `path:"deliveryId" maxLength:"200" doc:"The delivery id (dlv_...)."`
}

// replayWebhookDelivery starts a fresh delivery of the same event to the same endpoint; its id derives
// from the idempotency record, so a retried request answers the same replay.
func (w *webhooksAPI) replayWebhookDelivery(ctx context.Context, in *deliveryIDInput) (*Out[client.WebhookDeliveryEnvelope], error) {
	d, err := w.deliveries.Replay(ctx, principalFrom(ctx).Scope, in.DeliveryID, newID(ctx, delivery.IDPrefix))
	if err != nil {
		return nil, err
	}
	return reply(client.WebhookDeliveryEnvelope{OK: true, Delivery: delivery.ToWire(d)})
}

// webhooksAPI serves webhook endpoints and their deliveries.
type webhooksAPI struct {
	webhooks   *webhook.Store
	deliveries *delivery.Store
}

// routes are the webhooks routes.
func (w *webhooksAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpWebhooksList, Method: http.MethodGet, Path: "/v1/webhooks", Summary: "List webhook endpoints", Tag: "Webhooks",
			Auth: authKey, Scope: client.ScopeWebhooksRead}, w.listWebhooks),
		handle(Route{Op: client.OpWebhooksCreate, Method: http.MethodPost, Path: "/v1/webhooks", Summary: "Register a webhook endpoint; answers its signing secret once", Tag: "Webhooks",
			Auth: authKey, Scope: client.ScopeWebhooksWrite, Idem: true, Seal: true, Status: http.StatusCreated}, w.createWebhook),
		handle(Route{Op: client.OpWebhooksUpdate, Method: http.MethodPatch, Path: "/v1/webhooks/{webhookId}", Summary: "Change a webhook's url, events, description or enabled state", Tag: "Webhooks",
			Auth: authKey, Scope: client.ScopeWebhooksWrite, Idem: true}, w.updateWebhook),
		handle(Route{Op: client.OpWebhooksRotate, Method: http.MethodPost, Path: "/v1/webhooks/{webhookId}/rotate-secret", Summary: "Rotate a webhook's signing secret; the old one signs for 24 h more", Tag: "Webhooks",
			Auth: authKey, Scope: client.ScopeWebhooksWrite, Idem: true, Seal: true}, w.rotateWebhookSecret),
		handle(Route{Op: client.OpWebhooksDisable, Method: http.MethodDelete, Path: "/v1/webhooks/{webhookId}", Summary: "Disable a webhook endpoint", Tag: "Webhooks",
			Auth: authKey, Scope: client.ScopeWebhooksWrite, Idem: true}, w.deleteWebhook),
		handle(Route{Op: client.OpWebhookDeliveriesList, Method: http.MethodGet, Path: "/v1/webhook-deliveries", Summary: "List webhook deliveries with their attempts", Tag: "Webhooks",
			Auth: authKey, Scope: client.ScopeWebhooksRead}, w.listWebhookDeliveries),
		handle(Route{Op: client.OpWebhookDeliveriesReplay, Method: http.MethodPost, Path: "/v1/webhook-deliveries/{deliveryId}/replay", Summary: "Deliver a delivery's event again as a fresh delivery", Tag: "Webhooks",
			Auth: authKey, Scope: client.ScopeWebhooksWrite, Idem: true}, w.replayWebhookDelivery),
	}
}
