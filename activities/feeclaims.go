package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"

	"github.com/svcplatform/svc/internal/feeclaim"
	"github.com/svcplatform/svc/workflows"
)

// FeeClaims are the activities of managed-wallet fee claims.
type FeeClaims struct {
	// Worker sponsors and records claims; nil fails the activities saying so (retried until a worker has
	// a chain).
	Worker *feeclaim.Worker
}

var errNoFeeClaims = errors.New("this worker has no chain or gas sponsor for fee claims")

// SponsorFeeClaimGas tops the claim's wallet up with its transaction's gas, once.
func (f *FeeClaims) SponsorFeeClaimGas(ctx context.Context, claimID string) (workflows.LaunchSponsored, error) {
	if f.Worker == nil {
		return workflows.LaunchSponsored{}, errNoFeeClaims
	}
	return f.Worker.SponsorGas(ctx, claimID, func() { activity.RecordHeartbeat(ctx) })
}

// FinishFeeClaim records the claim's end once its wallet transaction has ended (retried until then).
func (f *FeeClaims) FinishFeeClaim(ctx context.Context, claimID string) error {
	if f.Worker == nil {
		return errNoFeeClaims
	}
	return f.Worker.Finish(ctx, claimID)
}
