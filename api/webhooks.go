package api

import (
	"context"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/webhook"
)

func webhookToWire(w webhook.Webhook) client.Webhook {
	out := client.Webhook{ID: w.ID, URL: w.URL, Events: w.Events, Description: w.Description, Enabled: w.Enabled,
		DisabledReason: w.DisabledReason, CreatedAt: w.CreatedAt.UTC(), UpdatedAt: w.UpdatedAt.UTC(), Secret: w.Secret}
	if out.Events == nil {
		out.Events = []string{}
	}
	if w.PreviousSecretExpiresAt != nil {
		t := w.PreviousSecretExpiresAt.UTC()
		out.PreviousSecretExpiresAt = &t
	}
	return out
}

func webhookReply(w webhook.Webhook, err error) (*Out[client.WebhookEnvelope], error) {
	if err != nil {
		return nil, err
	}
	return reply(client.WebhookEnvelope{OK: true, Webhook: webhookToWire(w)})
}

func (s *Server) listWebhooks(ctx context.Context, in *listInput) (*Out[client.WebhookList], error) {
	p, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	rows, next, err := s.webhooks.List(ctx, principalFrom(ctx).Scope, p)
	if err != nil {
		return nil, err
	}
	out := client.WebhookList{OK: true, Webhooks: make([]client.Webhook, 0, len(rows)), NextCursor: next}
	for _, w := range rows {
		out.Webhooks = append(out.Webhooks, webhookToWire(w))
	}
	return reply(out)
}

type createWebhookInput struct {
	Body client.CreateWebhookRequest
}

func (s *Server) createWebhook(ctx context.Context, in *createWebhookInput) (*Out[client.WebhookEnvelope], error) {
	b := in.Body
	return webhookReply(s.webhooks.Create(ctx, principalFrom(ctx).Scope, webhook.NewWebhook{
		ID: newID(ctx, webhook.IDPrefix), URL: b.URL, Events: b.Events, Description: b.Description}))
}

type webhookIDInput struct {
	WebhookID string `path:"webhookId" doc:"The webhook id (whk_...)."`
}

type updateWebhookInput struct {
	WebhookID string `path:"webhookId" doc:"The webhook id (whk_...)."`
	Body      client.UpdateWebhookRequest
}

func (s *Server) updateWebhook(ctx context.Context, in *updateWebhookInput) (*Out[client.WebhookEnvelope], error) {
	b := in.Body
	return webhookReply(s.webhooks.Update(ctx, principalFrom(ctx).Scope, in.WebhookID,
		webhook.Patch{URL: b.URL, Events: b.Events, Description: b.Description, Enabled: b.Enabled}))
}

func (s *Server) rotateWebhookSecret(ctx context.Context, in *webhookIDInput) (*Out[client.WebhookEnvelope], error) {
	return webhookReply(s.webhooks.RotateSecret(ctx, principalFrom(ctx).Scope, in.WebhookID))
}

func (s *Server) deleteWebhook(ctx context.Context, in *webhookIDInput) (*Out[client.WebhookEnvelope], error) {
	return webhookReply(s.webhooks.Disable(ctx, principalFrom(ctx).Scope, in.WebhookID))
}
