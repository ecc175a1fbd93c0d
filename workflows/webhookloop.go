package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// SignalDeliveriesDue wakes an endpoint's delivery loop: deliveries were recorded for it (the dispatcher
// and replays send it with signal-with-start). It carries no payload.
const SignalDeliveriesDue = "deliveries-due"

// DefaultLoopBatchesPerRun is how many batches one run of WebhookLoopWorkflow sends before it continues
// as new (about ten history events each), unless Temporal suggests continuing sooner.
const DefaultLoopBatchesPerRun = 200

// LoopIdleRecheck is how long an endpoint's loop with nothing waiting sleeps before it looks again, in
// case a wake-up signal was lost (a run that continued as new drops signals it had not read).
const LoopIdleRecheck = 10 * time.Minute

// LoopIdleBatches is how many batches in a row that find nothing waiting end the loop (after about
// three idle rechecks, half an hour): an endpoint that has had no event for a while costs no timer.
// The dispatcher's signal-with-start begins a new loop with the endpoint's next delivery.
const LoopIdleBatches = 4

// LoopErrorBackoff is the wait after a batch whose activity failed (database away, worker lost) before
// the next one.
const LoopErrorBackoff = 5 * time.Second

// LoopBlockedWait is the wait after a batch that claimed nothing although deliveries were due (their
// rows locked by another transaction for a moment).
const LoopBlockedWait = time.Second

// loopBatchTimeout bounds one batch: LoopBatch deliveries at LoopConcurrency at a time, each at most
// DeliveryAttemptTimeout, plus the bookkeeping. The activity's lease on its deliveries lasts as long.
const loopBatchTimeout = 3 * time.Minute

// webhookBatchOptions: a batch heartbeats as its sends complete, so a worker killed mid-batch is noticed
// within the heartbeat timeout and the batch is retried (taking back its own leased deliveries, which
// repeat their attempt with the same webhook-id). The loop counts a batch that kept failing as an error
// and tries again after LoopErrorBackoff.
var webhookBatchOptions = workflow.ActivityOptions{
	StartToCloseTimeout: loopBatchTimeout,
	HeartbeatTimeout:    20 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
		MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
}

// WebhookLoopParams is the input of WebhookLoopWorkflow (and of each run it continues as).
type WebhookLoopParams struct {
	WebhookID string
	// RetryScale shortens the retry schedule's steps as DeliveryParams.RetryScale does (tests); it
	// shortens the probing back-off alike.
	RetryScale float64
	// BatchesPerRun is how many batches a run sends before continuing as new; 0 means
	// DefaultLoopBatchesPerRun.
	BatchesPerRun int
	// Probe is the failing streak a run carries into the run it continues as (zero: none).
	Probe ProbeState
}

// WebhookBatch is the input of the DeliverWebhookBatch activity.
type WebhookBatch struct {
	WebhookID  string
	RetryScale float64
	// Limit is how many due deliveries the batch may claim: 0 means a full batch, a few while the
	// endpoint is probed (see ProbeState).
	Limit int
}

// WebhookBatchResult is what one batch did and what it left waiting.
type WebhookBatchResult struct {
	// Sent, Succeeded: attempts made by this batch, and how many of them succeeded.
	Sent, Succeeded int
	// Waiting is how many of the endpoint's deliveries are still pending after the batch.
	Waiting int
	// NextDueIn is how long until the earliest waiting delivery is due (0: due now); meaningless when
	// Waiting is 0.
	NextDueIn time.Duration
	// LastError is the error of the batch's last failed attempt ("" when none failed).
	LastError string
	// Disabled: the endpoint is disabled (before the batch, or by it); its pending deliveries ended
	// failed.
	Disabled       bool
	DisabledReason string
}

// WebhookLoopWorkflowID is the workflow id of an endpoint's delivery loop.
func WebhookLoopWorkflowID(webhookID string) string { return "webhook/" + webhookID }

// WebhookLoopWorkflow is the one durable delivery loop of a webhook endpoint. Each turn runs a batch
// (DeliverWebhookBatch: claim the endpoint's due deliveries, send them concurrently, record the
// attempts and their next due times by the CONTRACT schedule); then, unless more are due at once, it
// sleeps on a durable timer until the earliest waiting delivery is due or a deliveries-due signal
// arrives. An endpoint whose attempts keep failing is probed instead (ProbeState: a few deliveries a
// back-off apart, until one succeeds). It shows what waits and why in its memo and current details, and
// continues as new after BatchesPerRun batches. It ends when LoopIdleBatches batches in a row found
// nothing waiting and no signal is pending (a disabled endpoint's loop ends so too).
func WebhookLoopWorkflow(ctx workflow.Context, p WebhookLoopParams) error {
	due := workflow.GetSignalChannel(ctx, SignalDeliveriesDue)
	actx := workflow.WithActivityOptions(ctx, webhookBatchOptions)
	limit := p.BatchesPerRun
	if limit <= 0 {
		limit = DefaultLoopBatchesPerRun
	}
	probes := workflow.GetVersion(ctx, "webhook-loop-probe", workflow.DefaultVersion, 1) != workflow.DefaultVersion
	var shown loopStatus
	idle := 0
	for i := 0; i < limit && !workflow.GetInfo(ctx).GetContinueAsNewSuggested(); i++ {
		drain(due)
		var res WebhookBatchResult
		in := WebhookBatch{WebhookID: p.WebhookID, RetryScale: p.RetryScale, Limit: p.Probe.limit()}
		err := workflow.ExecuteActivity(actx, ActivityDeliverWebhookBatch, in).Get(ctx, &res)
		if probes {
			p.Probe = p.Probe.after(res, err, p.RetryScale)
		}
		wait, probing := loopWait(res, err), p.Probe.throttles(res, err)
		if probing {
			wait = max(wait, p.Probe.Backoff)
		}
		shown = showStatus(ctx, shown, newLoopStatus(workflow.Now(ctx), res, err, wait).probing(p.Probe, probing))
		if idle = idleCount(idle, res, err); idle >= LoopIdleBatches {
			switch endIdle(ctx, due) {
			case idleEnds:
				return nil
			case idleSignalled: // an event came meanwhile: look at once
				idle, wait = 0, 0
			}
		}
		if err := pause(ctx, due, wait, probing); err != nil {
			return err
		}
	}
	drain(due) // the next run starts with a batch anyway
	return workflow.NewContinueAsNewError(ctx, WebhookLoopWorkflowName, p)
}

// idleCount is how many batches in a row found nothing waiting, counting this one.
func idleCount(before int, res WebhookBatchResult, err error) int {
	if err != nil || (res.Waiting > 0 && !res.Disabled) {
		return 0
	}
	return before + 1
}

// idleDecision is what an idle loop does after LoopIdleBatches idle batches.
type idleDecision int

const (
	idleKeeps     idleDecision = iota // a history recorded before loops could end: keep idling
	idleEnds                          // nothing pending: end the loop
	idleSignalled                     // a deliveries-due signal is pending: batch again at once
)

// endIdle decides whether an idle loop ends now: it does unless a deliveries-due signal is pending (one
// that arrives while the completion is being recorded makes Temporal refuse the completion and replay
// this decision with the signal read).
func endIdle(ctx workflow.Context, due workflow.ReceiveChannel) idleDecision {
	if workflow.GetVersion(ctx, "webhook-loop-idle-end", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return idleKeeps
	}
	signalled := false
	for due.ReceiveAsync(nil) {
		signalled = true
	}
	if signalled {
		return idleSignalled
	}
	workflow.SetCurrentDetails(ctx, "ended: no delivery waiting; the next event starts the loop again")
	return idleEnds
}

// loopWait is how long the loop sleeps after a batch: 0 when deliveries are due now.
func loopWait(res WebhookBatchResult, err error) time.Duration {
	switch {
	case err != nil:
		return LoopErrorBackoff
	case res.Waiting == 0 || res.Disabled:
		return LoopIdleRecheck
	case res.NextDueIn <= 0 && res.Sent == 0:
		return LoopBlockedWait // due but not claimable (locked by another transaction): do not spin
	case res.NextDueIn <= 0:
		return 0
	default:
		return min(res.NextDueIn, LoopIdleRecheck)
	}
}

// pause waits wait before the next batch: not at all when it is 0; while probing, on the timer alone (the
// dispatcher's signals are read by the next probe, so a burst of events does not end the back-off);
// else until the timer or a deliveries-due signal.
func pause(ctx workflow.Context, due workflow.ReceiveChannel, wait time.Duration, probing bool) error {
	switch {
	case wait == 0:
		return nil
	case probing:
		return workflow.Sleep(ctx, wait)
	default:
		return sleepOrSignal(ctx, due, wait)
	}
}

// sleepOrSignal waits until wait has passed or a deliveries-due signal arrives; it fails only when the
// workflow is cancelled.
func sleepOrSignal(ctx workflow.Context, due workflow.ReceiveChannel, wait time.Duration) error {
	tctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(workflow.NewTimer(tctx, wait), func(workflow.Future) {})
	sel.AddReceive(due, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) })
	sel.Select(ctx)
	return ctx.Err()
}

// drain reads every signal already received: one batch answers them all.
func drain(c workflow.ReceiveChannel) {
	for c.ReceiveAsync(nil) {
	}
}

// loopStatus is what an endpoint's loop shows operators (memo and current details).
type loopStatus struct {
	Waiting       int    `json:"waiting"`
	NextAttemptAt string `json:"nextAttemptAt,omitempty"`
	LastError     string `json:"lastError,omitempty"`
	Disabled      string `json:"disabled,omitempty"`
	// Failures is the failing streak of an endpoint being probed (0: sent at full speed).
	Failures int `json:"failures,omitempty"`
}

// probing returns s showing the streak of p when the endpoint is being probed.
func (s loopStatus) probing(p ProbeState, probing bool) loopStatus {
	if probing {
		s.Failures = p.Failures
	}
	return s
}

func newLoopStatus(now time.Time, res WebhookBatchResult, err error, wait time.Duration) loopStatus {
	s := loopStatus{Waiting: res.Waiting, LastError: res.LastError}
	if err != nil {
		s.LastError = "the batch failed: " + err.Error()
	}
	if res.Disabled {
		s.Disabled = res.DisabledReason
	}
	if s.Waiting > 0 {
		s.NextAttemptAt = now.Add(wait).UTC().Format(time.RFC3339)
	}
	return s
}

// showStatus upserts the memo and sets the current details when the status changed, and returns it.
func showStatus(ctx workflow.Context, old, s loopStatus) loopStatus {
	if s == old {
		return s
	}
	memo := map[string]any{"waiting": s.Waiting, "nextAttemptAt": s.NextAttemptAt, "lastError": s.LastError, "disabled": s.Disabled}
	if s.Failures > 0 || old.Failures > 0 {
		memo["probing"] = s.Failures > 0
		memo["consecutiveFailures"] = s.Failures
	}
	_ = workflow.UpsertMemo(ctx, memo)
	workflow.SetCurrentDetails(ctx, s.details())
	return s
}

func (s loopStatus) details() string {
	switch {
	case s.Disabled != "":
		return fmt.Sprintf("endpoint disabled (%s); nothing is sent until it is enabled", s.Disabled)
	case s.Waiting == 0:
		return "no delivery waiting"
	case s.Failures > 0:
		return fmt.Sprintf("probing: %d consecutive failures, next probe at %s (%d deliveries waiting; last failure: %s)",
			s.Failures, s.NextAttemptAt, s.Waiting, s.LastError)
	case s.LastError != "":
		return fmt.Sprintf("%d deliveries waiting, next attempt at %s; last failure: %s", s.Waiting, s.NextAttemptAt, s.LastError)
	default:
		return fmt.Sprintf("%d deliveries waiting, next attempt at %s", s.Waiting, s.NextAttemptAt)
	}
}

// ScaledRetryDelay is RetryDelay with the schedule's step (not the Retry-After) scaled by scale when
// 0 < scale < 1 (see DeliveryParams.RetryScale).
func ScaledRetryDelay(deliveryID string, n int, retryAfter time.Duration, scale float64) time.Duration {
	d := RetryDelay(deliveryID, n, 0)
	if scale > 0 && scale < 1 {
		d = time.Duration(float64(d) * scale)
	}
	return max(d, min(retryAfter, MaxRetryAfter))
}
