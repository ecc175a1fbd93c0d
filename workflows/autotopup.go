package workflows

import (
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// AutoTopUpCheckSignal wakes AutoTopUpWorkflow for a round now (the API sends it when the setting is
// enabled and after a charge left the balance under the threshold); it never decides anything itself.
const AutoTopUpCheckSignal = "autotopup-check"

// AutoTopUpInterval is how often AutoTopUpWorkflow checks the balance without a signal (a durable timer).
const AutoTopUpInterval = 15 * time.Minute

// autoTopUpChecksPerRun bounds one run's history: after this many checks the workflow continues as new.
const autoTopUpChecksPerRun = 64

// AutoTopUpParams is the input of AutoTopUpWorkflow.
type AutoTopUpParams struct {
	AccountID string
	// Rounds counts the rounds (checks under the threshold) of earlier runs of the chain.
	Rounds int
}

// AutoTopUpBeginInput is the input of ActivityAutoTopUpBegin: RunKey names the check (run id and check
// number) so a retried Begin answers the round it recorded.
type AutoTopUpBeginInput struct {
	AccountID string
	RunKey    string
}

// AutoTopUpBegun is what ActivityAutoTopUpBegin answers: Enabled false ends the workflow; Round is the
// round recorded (0: the balance is not under the threshold, nothing to do).
type AutoTopUpBegun struct {
	Enabled bool
	Round   int
}

// AutoTopUpRoundInput names one round of an account.
type AutoTopUpRoundInput struct {
	AccountID string
	Round     int
}

// AutoTopUpClaims is what ActivityAutoTopUpClaim answers: the round's fee claims.
type AutoTopUpClaims struct {
	ClaimIDs []string
}

// AutoTopUpCredited is what ActivityAutoTopUpCredit answers: the native amount the round's claims
// released (wei, decimal) and the millicredits credited for it.
type AutoTopUpCredited struct {
	ClaimedWei   string
	Millicredits int64
}

// AutoTopUpResult is the workflow's result.
type AutoTopUpResult struct {
	Outcome string
	Rounds  int
}

// autoTopUpOptions retry the bookkeeping until it commits; every step is idempotent.
var autoTopUpOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: time.Minute,
	},
}

// autoTopUpAwaitOptions poll the round's claims until they end (a claim is a sponsored send and its
// receipt: seconds to minutes), giving up after half an hour: what was claimed by then is credited.
var autoTopUpAwaitOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    30 * time.Second,
	ScheduleToCloseTimeout: 30 * time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 1.5, MaximumInterval: 15 * time.Second,
	},
}

// AutoTopUpWorkflow (workflow id autotopup/<accountId>) keeps an account's credits topped up from its
// launch fees while its auto top-up is enabled: each check (every AutoTopUpInterval on a durable timer,
// or at AutoTopUpCheckSignal) reads the setting, ends the workflow when it is disabled, and under the
// threshold runs a round: claims the fees of the account's launched tokens, waits for the claims and
// credits what they released at the configured price, capped at the target. It continues as new every
// autoTopUpChecksPerRun checks.
func AutoTopUpWorkflow(ctx workflow.Context, p AutoTopUpParams) (AutoTopUpResult, error) {
	actx := workflow.WithActivityOptions(ctx, autoTopUpOptions)
	check := workflow.GetSignalChannel(ctx, AutoTopUpCheckSignal)
	rounds := p.Rounds
	runID := workflow.GetInfo(ctx).WorkflowExecution.RunID
	for n := 0; ; n++ {
		var b AutoTopUpBegun
		in := AutoTopUpBeginInput{AccountID: p.AccountID, RunKey: runID + "/" + strconv.Itoa(n)}
		if err := workflow.ExecuteActivity(actx, ActivityAutoTopUpBegin, in).Get(ctx, &b); err != nil {
			return AutoTopUpResult{}, fmt.Errorf("begin auto top-up of %s: %w", p.AccountID, err)
		}
		if !b.Enabled {
			return AutoTopUpResult{Outcome: "disabled", Rounds: rounds}, nil
		}
		if b.Round > 0 {
			if err := autoTopUpRound(ctx, actx, AutoTopUpRoundInput{AccountID: p.AccountID, Round: b.Round}); err != nil {
				return AutoTopUpResult{}, err
			}
			rounds++
		}
		if n+1 >= autoTopUpChecksPerRun {
			return AutoTopUpResult{}, workflow.NewContinueAsNewError(ctx, AutoTopUpWorkflowName, AutoTopUpParams{AccountID: p.AccountID, Rounds: rounds})
		}
		if err := awaitCheck(ctx, check); err != nil {
			return AutoTopUpResult{}, err
		}
	}
}

// autoTopUpRound claims, waits for the claims and credits them. Claims that have not ended after
// autoTopUpAwaitOptions' half hour are left out of the round's credit.
func autoTopUpRound(ctx, actx workflow.Context, in AutoTopUpRoundInput) error {
	var claims AutoTopUpClaims
	if err := workflow.ExecuteActivity(actx, ActivityAutoTopUpClaim, in).Get(ctx, &claims); err != nil {
		return fmt.Errorf("claim fees for auto top-up round %d of %s: %w", in.Round, in.AccountID, err)
	}
	if len(claims.ClaimIDs) > 0 {
		wctx := workflow.WithActivityOptions(ctx, autoTopUpAwaitOptions)
		if err := workflow.ExecuteActivity(wctx, ActivityAutoTopUpAwait, in).Get(ctx, nil); err != nil {
			workflow.GetLogger(ctx).Warn("auto top-up: claims still not ended; crediting those that are", "round", in.Round, "err", err)
		}
	}
	var credited AutoTopUpCredited
	if err := workflow.ExecuteActivity(actx, ActivityAutoTopUpCredit, in).Get(ctx, &credited); err != nil {
		return fmt.Errorf("credit auto top-up round %d of %s: %w", in.Round, in.AccountID, err)
	}
	return nil
}

// awaitCheck waits for the next check: the interval's durable timer or a signal (signals that arrived
// meanwhile are one check).
func awaitCheck(ctx workflow.Context, check workflow.ReceiveChannel) error {
	tctx, cancelTimer := workflow.WithCancel(ctx)
	timer := workflow.NewTimer(tctx, AutoTopUpInterval)
	workflow.NewSelector(ctx).
		AddFuture(timer, func(workflow.Future) {}).
		AddReceive(check, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) }).
		Select(ctx)
	cancelTimer()
	for check.ReceiveAsync(nil) {
	}
	return ctx.Err()
}
