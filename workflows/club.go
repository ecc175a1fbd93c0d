package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// ClubChangedSignal wakes ClubWorkflow to read the subscription again (after a cancel or a resume, or
// an operator's change of the period's end): it never decides anything by itself.
const ClubChangedSignal = "club-changed"

// ClubParams is the input of ClubWorkflow.
type ClubParams struct {
	AccountID string
	// Renewals counts the periods renewed by earlier runs of the chain (continue-as-new).
	Renewals int
}

// ClubState is what ActivityClubState answers.
type ClubState struct {
	// Exists is false for an account without a subscription.
	Exists     bool
	Generation int
	Status     string
	PeriodEnd  time.Time
}

// ClubRenewInput is the input of ActivityRenewClub: the period that ends.
type ClubRenewInput struct {
	AccountID  string
	Generation int
	PeriodEnd  time.Time
}

// ClubRenewal is what ActivityRenewClub answers: the outcome (renewed, lapsed, ended, gone) and the end
// of the next period when renewed.
type ClubRenewal struct {
	Outcome   string
	PeriodEnd time.Time
}

// ClubResult is the workflow's result.
type ClubResult struct {
	Outcome  string
	Renewals int
}

// clubRenewalsPerRun bounds one run's history: after this many renewals the workflow continues as new.
const clubRenewalsPerRun = 12

// clubOptions retry the bookkeeping until it commits; every step is idempotent.
var clubOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 10 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: time.Minute,
	},
}

// ClubWorkflow renews an account's Club subscription: it sleeps on a durable timer to the end of the
// current period, then ends the period (renewed, lapsed or ended) and repeats while renewed. A
// cancellation (POST /v1/club/cancel) only flags the row: the workflow finds it at the period's end.
func ClubWorkflow(ctx workflow.Context, p ClubParams) (ClubResult, error) {
	actx := workflow.WithActivityOptions(ctx, clubOptions)
	changed := workflow.GetSignalChannel(ctx, ClubChangedSignal)
	renewals := p.Renewals
	for run := 0; ; {
		var st ClubState
		if err := workflow.ExecuteActivity(actx, ActivityClubState, p.AccountID).Get(ctx, &st); err != nil {
			return ClubResult{}, fmt.Errorf("read club subscription of %s: %w", p.AccountID, err)
		}
		if !st.Exists {
			return ClubResult{Outcome: "gone", Renewals: renewals}, nil
		}
		upsertStatus(ctx, st.Status)
		if wait := st.PeriodEnd.Sub(workflow.Now(ctx)); wait > 0 {
			// A durable timer to the period's end, or a signal to read the subscription again.
			tctx, cancelTimer := workflow.WithCancel(ctx)
			timer := workflow.NewTimer(tctx, wait)
			woken := false
			workflow.NewSelector(ctx).
				AddFuture(timer, func(workflow.Future) {}).
				AddReceive(changed, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil); woken = true }).
				Select(ctx)
			cancelTimer()
			if err := ctx.Err(); err != nil {
				return ClubResult{}, err
			}
			if woken {
				continue
			}
		}
		var r ClubRenewal
		in := ClubRenewInput{AccountID: p.AccountID, Generation: st.Generation, PeriodEnd: st.PeriodEnd}
		if err := workflow.ExecuteActivity(actx, ActivityRenewClub, in).Get(ctx, &r); err != nil {
			return ClubResult{}, fmt.Errorf("renew club subscription of %s: %w", p.AccountID, err)
		}
		if r.Outcome != "renewed" {
			upsertStatus(ctx, r.Outcome)
			return ClubResult{Outcome: r.Outcome, Renewals: renewals}, nil
		}
		renewals++
		run++
		if run >= clubRenewalsPerRun {
			return ClubResult{}, workflow.NewContinueAsNewError(ctx, ClubWorkflowName, ClubParams{AccountID: p.AccountID, Renewals: renewals})
		}
	}
}
