package workflows

import "time"

// LoopProbeAfter is how many attempts in a row must fail (no success among them, in batches that all
// failed) before an endpoint's loop stops sending it full batches and probes it instead. A handful of
// failing deliveries never reaches it: their retries keep the CONTRACT schedule exactly.
const LoopProbeAfter = 50

// LoopProbes is how many due deliveries one batch claims while the endpoint is probed: a few, so that
// one payload the receiver chokes on does not keep a recovered endpoint probed.
const LoopProbes = 5

// LoopProbeBackoff is the first wait between probes (the schedule's first step); it doubles after every
// probe that failed, up to LoopProbeBackoffMax (the schedule's second step). RetryScale shortens both.
const (
	LoopProbeBackoff    = 5 * time.Second
	LoopProbeBackoffMax = 5 * time.Minute
)

// ProbeState is an endpoint loop's view of the endpoint's failing streak. While Backoff is set the loop
// is probing: each batch claims only LoopProbes due deliveries and the next waits Backoff on a durable
// timer. A delivery not probed stays due and untouched (no attempt is recorded that was not made); its
// schedule runs from its real attempts. The first success returns the endpoint to full batches.
type ProbeState struct {
	// Failures counts the attempts in a row that failed since the loop last saw one succeed.
	Failures int
	// Backoff is the wait between probes; 0 while the endpoint gets full batches.
	Backoff time.Duration
}

// limit is the batch limit for WebhookBatch.Limit: LoopProbes while probing, else 0 (a full batch).
func (p ProbeState) limit() int {
	if p.Backoff > 0 {
		return LoopProbes
	}
	return 0
}

// after is the state after a batch: a failed activity or a batch that sent nothing changes nothing; a
// success or a disabled endpoint ends the streak; a batch whose attempts all failed lengthens it, and
// once it reaches LoopProbeAfter starts probing, or doubles the back-off of a probing one.
func (p ProbeState) after(res WebhookBatchResult, err error, scale float64) ProbeState {
	switch {
	case err != nil:
		return p
	case res.Disabled || res.Succeeded > 0:
		return ProbeState{}
	case res.Sent == 0:
		return p
	}
	p.Failures += res.Sent
	switch {
	case p.Failures < LoopProbeAfter:
	case p.Backoff == 0:
		p.Backoff = scaleStep(LoopProbeBackoff, scale)
	default:
		p.Backoff = min(2*p.Backoff, scaleStep(LoopProbeBackoffMax, scale))
	}
	return p
}

// throttles reports whether the loop waits the back-off before its next batch: it is probing and the
// batch ran and left deliveries waiting.
func (p ProbeState) throttles(res WebhookBatchResult, err error) bool {
	return p.Backoff > 0 && err == nil && res.Waiting > 0 && !res.Disabled
}

// scaleStep is d scaled by scale when 0 < scale < 1 (see WebhookLoopParams.RetryScale).
func scaleStep(d time.Duration, scale float64) time.Duration {
	if scale > 0 && scale < 1 {
		return time.Duration(float64(d) * scale)
	}
	return d
}
