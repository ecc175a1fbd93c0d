package activities

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/sdk/activity"
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

// DeliverWebhookBatch is one batch of an endpoint's delivery loop: it claims up to LoopBatch of the
// endpoint's due deliveries (in.Limit when fewer: the probes of a failing endpoint), leased to this
// activity so that a retry after a crash takes them back and repeats their attempt with the same number
// and webhook-id; it sends them LoopConcurrency at a time over the Sender's kept-alive connections,
// records every attempt in one transaction, and reports what waits. A disabled endpoint's pending
// deliveries end failed without a call.
func (a *Deliveries) DeliverWebhookBatch(ctx context.Context, in workflows.WebhookBatch) (workflows.WebhookBatchResult, error) {
	w, err := a.Store.Webhook(ctx, in.WebhookID)
	if err != nil {
		return workflows.WebhookBatchResult{}, err
	}
	if !w.Enabled {
		return a.disabled(ctx, w)
	}
	info := activity.GetInfo(ctx)
	owner := info.WorkflowExecution.RunID + "/" + info.ActivityID
	now := time.Now()
	limit := delivery.LoopBatch
	if in.Limit > 0 {
		limit = min(in.Limit, limit)
	}
	ds, err := a.Store.Claim(ctx, w.ID, owner, now, now.Add(info.StartToCloseTimeout), limit)
	if err != nil {
		return workflows.WebhookBatchResult{}, err
	}
	activity.RecordHeartbeat(ctx, len(ds))
	var res workflows.WebhookBatchResult
	if len(ds) > 0 {
		outs, err := a.sendBatch(ctx, w, ds)
		if err != nil {
			return workflows.WebhookBatchResult{}, err
		}
		disabled, err := a.Store.RecordBatch(ctx, w, outs, in.RetryScale, time.Now())
		if err != nil {
			return workflows.WebhookBatchResult{}, err
		}
		res = summarize(outs)
		if disabled {
			return a.disabled(ctx, w)
		}
	}
	if err := a.Store.Release(ctx, w.ID, owner); err != nil {
		return workflows.WebhookBatchResult{}, err
	}
	res.Waiting, res.NextDueIn, err = a.Store.Waiting(ctx, w.ID, time.Now())
	return res, err
}

// disabled ends the disabled endpoint's pending deliveries failed and says why it is disabled.
func (a *Deliveries) disabled(ctx context.Context, w *schema.Webhook) (workflows.WebhookBatchResult, error) {
	if err := delivery.FailPending(ctx, a.DB, w.ID); err != nil {
		return workflows.WebhookBatchResult{}, err
	}
	w, err := a.Store.Webhook(ctx, w.ID)
	if err != nil {
		return workflows.WebhookBatchResult{}, err
	}
	res := workflows.WebhookBatchResult{Disabled: true, DisabledReason: "disabled by request"}
	if w.DisabledReason != nil {
		res.DisabledReason = *w.DisabledReason
	}
	return res, nil
}

// sendBatch makes one attempt of each claimed delivery, LoopConcurrency at a time, heartbeating as
// they start (from this goroutine only; the last wait is one attempt's timeout, within the heartbeat
// timeout).
func (a *Deliveries) sendBatch(ctx context.Context, w *schema.Webhook, ds []schema.WebhookDelivery) ([]delivery.Outcome, error) {
	eventIDs := make([]string, len(ds))
	for i, d := range ds {
		eventIDs[i] = d.EventID
	}
	events, err := a.Store.Events(ctx, eventIDs)
	if err != nil {
		return nil, err
	}
	secrets, secretsErr := a.secrets(w)
	outs := make([]delivery.Outcome, len(ds))
	var wg sync.WaitGroup
	sem := make(chan struct{}, delivery.LoopConcurrency)
	for i := range ds {
		wg.Add(1)
		sem <- struct{}{}
		activity.RecordHeartbeat(ctx, i) // a slot freed: a send completed
		go func() {
			defer func() { <-sem; wg.Done() }()
			outs[i] = delivery.Outcome{Delivery: &ds[i], Result: a.attempt(ctx, w, events[ds[i].EventID], secrets, secretsErr)}
			outs[i].Result.Number = ds[i].AttemptCount + 1
		}()
	}
	wg.Wait()
	return outs, nil
}

// attempt sends one delivery of ev (nil when its event is missing).
func (a *Deliveries) attempt(ctx context.Context, w *schema.Webhook, ev *schema.Event, secrets []string, secretsErr error) delivery.Result {
	switch {
	case secretsErr != nil:
		return delivery.Result{Attempt: delivery.Attempt{StartedAt: time.Now(), Error: secretsErr.Error()}}
	case ev == nil:
		return delivery.Result{Attempt: delivery.Attempt{StartedAt: time.Now(), Error: "the event could not be loaded"}}
	}
	return a.Sender.Send(ctx, w.URL, ev, secrets)
}

// summarize counts a batch's attempts and keeps its last failure's error.
func summarize(outs []delivery.Outcome) workflows.WebhookBatchResult {
	res := workflows.WebhookBatchResult{Sent: len(outs)}
	for _, o := range outs {
		if o.Result.Succeeded() {
			res.Succeeded++
		} else {
			res.LastError = o.Result.Error
		}
	}
	return res
}
