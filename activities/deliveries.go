package activities

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/delivery"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/webhook"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// errNoSecrets is the attempt error of a worker without the encryption key that seals webhook secrets.
const errNoSecrets = "this worker cannot open webhook secrets: set SVC_ENCRYPTION_KEY"

// Deliveries make the attempts of webhook deliveries and record their outcomes.
type Deliveries struct {
	Store    *delivery.Store
	Webhooks *webhook.Store
	Sender   *delivery.Sender
	// DB holds the events the deliveries carry.
	DB bun.IDB
	// CanSign is false on a worker without the encryption key: attempts then fail with that reason.
	CanSign bool
}

// DeliverWebhook makes attempt n of a delivery: it signs the event envelope with the endpoint's current
// secrets, POSTs it once, and records the attempt with what it teaches about the endpoint. An endpoint
// disabled before the attempt is not called. Errors (the database away) are the workflow's to count as
// a failed attempt; a missing delivery is final.
func (a *Deliveries) DeliverWebhook(ctx context.Context, in workflows.DeliveryAttempt) (workflows.DeliveryAttemptResult, error) {
	d, err := a.Store.ByID(ctx, in.DeliveryID)
	if errors.Is(err, delivery.ErrMissing) {
		return workflows.DeliveryAttemptResult{}, temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrorTypeDeliveryMissing, err)
	}
	if err != nil {
		return workflows.DeliveryAttemptResult{}, err
	}
	w, err := a.Webhooks.Load(ctx, tenant.Scope{AccountID: d.AccountID, ProjectID: d.ProjectID}, d.WebhookID)
	if err != nil {
		return workflows.DeliveryAttemptResult{}, err
	}
	if !w.Enabled {
		return workflows.DeliveryAttemptResult{EndpointDisabled: true}, nil
	}
	ev, err := outbox.Get(ctx, a.DB, d.EventID)
	if err != nil {
		return workflows.DeliveryAttemptResult{}, err
	}
	var res delivery.Result
	secrets, err := a.secrets(w)
	if err != nil {
		res = delivery.Result{Attempt: delivery.Attempt{StartedAt: time.Now(), Error: err.Error()}}
	} else {
		res = a.Sender.Send(ctx, w.URL, ev, secrets)
	}
	res.Number = in.Number
	disabled, err := a.Store.RecordAttempt(ctx, d, res.Attempt)
	if err != nil {
		return workflows.DeliveryAttemptResult{}, err
	}
	return workflows.DeliveryAttemptResult{Succeeded: res.Succeeded(), HTTPStatus: res.HTTPStatus, RetryAfter: res.RetryAfter,
		EndpointDisabled: disabled}, nil
}

func (a *Deliveries) secrets(w *schema.Webhook) ([]string, error) {
	if !a.CanSign {
		return nil, errors.New(errNoSecrets)
	}
	return a.Webhooks.Secrets(w, time.Now())
}

// FinishDelivery records a delivery's final status; it is idempotent.
func (a *Deliveries) FinishDelivery(ctx context.Context, deliveryID, status string) error {
	err := a.Store.Finish(ctx, deliveryID, status)
	if errors.Is(err, delivery.ErrMissing) {
		return temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrorTypeDeliveryMissing, err)
	}
	return err
}
