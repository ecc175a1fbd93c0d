package activities

import (
	"context"

	"github.com/svcplatform/svc/internal/autotopup"
	"github.com/svcplatform/svc/workflows"
)

// FaultAutoTopUpStallAfterCredit, as the worker's fault, makes AutoTopUpCredit stop (until its context
// ends) right after a round's credits committed and before it answers: the crash test kills the worker
// there. Never set it in production.
const FaultAutoTopUpStallAfterCredit = "autotopup-stall-after-credit"

// AutoTopUps are the activities of workflow autotopup/<accountId>.
type AutoTopUps struct {
	Worker *autotopup.Worker
}

// AutoTopUpBegin reads the setting and balance and records a round under the threshold (once per key).
func (a *AutoTopUps) AutoTopUpBegin(ctx context.Context, in workflows.AutoTopUpBeginInput) (workflows.AutoTopUpBegun, error) {
	return a.Worker.Begin(ctx, in)
}

// AutoTopUpClaim starts the round's fee claims (the same claims on a retry).
func (a *AutoTopUps) AutoTopUpClaim(ctx context.Context, in workflows.AutoTopUpRoundInput) (workflows.AutoTopUpClaims, error) {
	return a.Worker.Claim(ctx, in)
}

// AutoTopUpAwait fails (and is retried) until the round's fee claims have ended.
func (a *AutoTopUps) AutoTopUpAwait(ctx context.Context, in workflows.AutoTopUpRoundInput) error {
	return a.Worker.Await(ctx, in)
}

// AutoTopUpCredit credits the round's claimed claims and records the round, once.
func (a *AutoTopUps) AutoTopUpCredit(ctx context.Context, in workflows.AutoTopUpRoundInput) (workflows.AutoTopUpCredited, error) {
	return a.Worker.Credit(ctx, in)
}
