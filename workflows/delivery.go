package workflows

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Delivery statuses (as the client package names them).
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// DeliverySchedule is how long a delivery waits after each failed attempt before the next (CONTRACT.md):
// ten attempts in all, the last about three days after the first.
var DeliverySchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// DeliveryJitter is the largest share of a step added to it, so endpoints that failed together are not
// retried in lockstep. A wait is never shorter than its step.
const DeliveryJitter = 0.1

// MaxRetryAfter caps the Retry-After an endpoint may ask for: the longest step of the schedule.
const MaxRetryAfter = 24 * time.Hour

// DeliveryAttemptTimeout bounds one attempt's HTTP call: success is a 2xx within it.
const DeliveryAttemptTimeout = 15 * time.Second

// ErrorTypeDeliveryMissing is the application error type of an attempt whose delivery row does not exist.
const ErrorTypeDeliveryMissing = "DeliveryMissing"

// DeliveryAttempt is the input of DeliverWebhook: which delivery, and the attempt's number (1, 2, ...).
type DeliveryAttempt struct {
	DeliveryID string
	Number     int
}

// DeliveryAttemptResult is what one attempt of DeliverWebhook found.
type DeliveryAttemptResult struct {
	// Succeeded: the endpoint answered 2xx in time.
	Succeeded bool
	// HTTPStatus is the endpoint's answer; 0 when none came.
	HTTPStatus int
	// RetryAfter is what a 429 or 503 answer asked for; 0 otherwise.
	RetryAfter time.Duration
	// EndpointDisabled: the endpoint is disabled (before the attempt, or by it: 410 Gone, or failing
	// for 5 days), so no further attempt is made.
	EndpointDisabled bool
}

// deliveryAttemptOptions make each attempt exactly one HTTP call: the workflow, not Temporal's activity
// retries, schedules the next one. The timeout covers the call and the bookkeeping around it.
var deliveryAttemptOptions = workflow.ActivityOptions{
	StartToCloseTimeout: DeliveryAttemptTimeout + 15*time.Second,
	RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
}

// DeliveryParams is the input of DeliveryWorkflow.
type DeliveryParams struct {
	DeliveryID string
	// RetryScale, between 0 and 1, shortens the schedule's steps (not a Retry-After) by that factor, for
	// tests and demonstrations that cannot wait minutes; 0 means the schedule as it is.
	RetryScale float64
}

// retryDelay is RetryDelay with the steps scaled by RetryScale.
func (p DeliveryParams) retryDelay(n int, retryAfter time.Duration) time.Duration {
	return ScaledRetryDelay(p.DeliveryID, n, retryAfter, p.RetryScale)
}

// DeliveryWorkflow delivers one event to one webhook endpoint (deliveries recorded before
// WebhookLoopWorkflow existed; new ones go through their endpoint's loop): an attempt, and after each failed one a
// wait of the next DeliverySchedule step (with jitter, and never less than the endpoint's Retry-After),
// until an attempt succeeds, the endpoint is disabled, or the schedule is exhausted. It records and
// returns the delivery's final status. An attempt whose activity fails (a worker lost mid-call, the
// database away) counts as a failed attempt.
func DeliveryWorkflow(ctx workflow.Context, p DeliveryParams) (string, error) {
	deliveryID := p.DeliveryID
	actx := workflow.WithActivityOptions(ctx, deliveryAttemptOptions)
	status := DeliveryFailed
	for n := 1; ; n++ {
		var res DeliveryAttemptResult
		err := workflow.ExecuteActivity(actx, ActivityDeliverWebhook, DeliveryAttempt{DeliveryID: deliveryID, Number: n}).Get(ctx, &res)
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) && appErr.Type() == ErrorTypeDeliveryMissing {
			return "", fmt.Errorf("deliver %s: %w", deliveryID, err)
		}
		if err == nil && res.Succeeded {
			status = DeliverySucceeded
			break
		}
		if res.EndpointDisabled || n > len(DeliverySchedule) || ctx.Err() != nil {
			break
		}
		if err := workflow.Sleep(ctx, p.retryDelay(n, res.RetryAfter)); err != nil {
			break // cancelled: the delivery ends failed
		}
	}
	fctx := workflow.WithLocalActivityOptions(ctx, bookkeepingOptions)
	if ctx.Err() != nil {
		fctx, _ = workflow.NewDisconnectedContext(fctx)
	}
	if err := workflow.ExecuteLocalActivity(fctx, ActivityFinishDelivery, deliveryID, status).Get(fctx, nil); err != nil {
		return "", fmt.Errorf("finish delivery %s: %w", deliveryID, err)
	}
	upsertStatus(fctx, status)
	return status, nil
}

// RetryDelay is the wait after failed attempt n (1-based) of a delivery: the schedule's step n plus a
// jitter of up to DeliveryJitter of it, derived from the delivery id and n (so replays of the workflow
// compute the same), and at least retryAfter (capped at MaxRetryAfter).
func RetryDelay(deliveryID string, n int, retryAfter time.Duration) time.Duration {
	step := DeliverySchedule[min(max(n, 1), len(DeliverySchedule))-1]
	h := fnv.New64a()
	_, _ = h.Write([]byte(deliveryID + "/" + strconv.Itoa(n)))
	frac := float64(h.Sum64()%10000) / 10000
	d := step + time.Duration(float64(step)*DeliveryJitter*frac).Truncate(time.Millisecond)
	return max(d, min(retryAfter, MaxRetryAfter))
}
