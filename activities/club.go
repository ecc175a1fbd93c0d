package activities

import (
	"context"

	"github.com/svcplatform/svc/internal/club"
	"github.com/svcplatform/svc/workflows"
)

// FaultClubStallAfterCharge, as the worker's fault, makes RenewClub stop (until its context ends) right
// after a renewal's charge and before its record: the crash test kills the worker there. Never set it
// in production.
const FaultClubStallAfterCharge = "club-stall-after-charge"

// StallAfterCharge is the club.Store hook of FaultClubStallAfterCharge: it waits until ctx ends.
func StallAfterCharge(ctx context.Context) { <-ctx.Done() }

// Club renews Club subscriptions (workflow club/<accountId>).
type Club struct {
	Store *club.Store
}

// ClubState reads the subscription ClubWorkflow renews.
func (a *Club) ClubState(ctx context.Context, accountID string) (workflows.ClubState, error) {
	sub, err := a.Store.Get(ctx, accountID)
	if err != nil || sub == nil {
		return workflows.ClubState{}, err
	}
	return workflows.ClubState{Exists: true, Generation: sub.Generation, Status: sub.Status, PeriodEnd: sub.PeriodEnd.UTC()}, nil
}

// RenewClub ends one period: charged once per period (its ledger reference), recorded once.
func (a *Club) RenewClub(ctx context.Context, in workflows.ClubRenewInput) (workflows.ClubRenewal, error) {
	outcome, sub, err := a.Store.Renew(ctx, in.AccountID, in.Generation, in.PeriodEnd)
	if err != nil {
		return workflows.ClubRenewal{}, err
	}
	out := workflows.ClubRenewal{Outcome: outcome}
	if sub != nil {
		out.PeriodEnd = sub.PeriodEnd.UTC()
	}
	return out, nil
}
