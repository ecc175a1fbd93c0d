package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Top-up statuses (as package topup and the API name them).
const (
	TopUpCredited = "credited"
	TopUpFailed   = "failed"
)

// TopUpParams is the input of TopUpWorkflow.
type TopUpParams struct {
	TopUpID string
}

// TopUpSettlement is what SettleTopUp found: the transfer is on chain (Settled, TxHash), or the payment
// can never settle (Reason, Message; nothing moved).
type TopUpSettlement struct {
	Settled bool
	TxHash  string
	Reason  string
	Message string
}

// TopUpResult is the outcome of a top-up: credited with the settlement's transaction, or failed with
// the reason the payment could not settle.
type TopUpResult struct {
	Status  string
	TxHash  string
	Reason  string
	Message string
}

// settleOptions retry a settlement until the chain gives a definite answer: each attempt first asks the
// chain whether the authorization was used (reconciling an attempt whose answer was lost) before it
// sends anything, so retrying never pays twice. The authorization's own validBefore bounds how long an
// unused one can stay open; the chain being unreachable keeps the top-up pending, not failed.
var settleOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 2 * time.Minute,
	HeartbeatTimeout:    10 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
	},
}

// creditOptions retry the ledger posting until it commits; it is idempotent. It is a local activity:
// one database transaction, run by the worker that holds the workflow task, without a round trip
// through the task queue.
var creditOptions = workflow.LocalActivityOptions{
	StartToCloseTimeout: 10 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
	},
}

// TopUpWorkflow settles one reserved x402 top-up on chain and then credits it: exactly one transfer,
// exactly one ledger posting, whatever crashes in between. A payment that cannot settle (expired, the
// payer lacks the USDC, the authorization was cancelled) ends the top-up failed with the reason.
func TopUpWorkflow(ctx workflow.Context, p TopUpParams) (TopUpResult, error) {
	var s TopUpSettlement
	sctx := workflow.WithActivityOptions(ctx, settleOptions)
	if err := workflow.ExecuteActivity(sctx, ActivitySettleTopUp, p.TopUpID).Get(ctx, &s); err != nil {
		return TopUpResult{}, fmt.Errorf("settle top-up %s: %w", p.TopUpID, err)
	}
	if !s.Settled {
		upsertStatus(ctx, TopUpFailed)
		return TopUpResult{Status: TopUpFailed, Reason: s.Reason, Message: s.Message}, nil
	}
	cctx := workflow.WithLocalActivityOptions(ctx, creditOptions)
	if err := workflow.ExecuteLocalActivity(cctx, ActivityCreditTopUp, p.TopUpID).Get(ctx, nil); err != nil {
		return TopUpResult{}, fmt.Errorf("credit top-up %s: %w", p.TopUpID, err)
	}
	upsertStatus(ctx, TopUpCredited)
	return TopUpResult{Status: TopUpCredited, TxHash: s.TxHash}, nil
}
