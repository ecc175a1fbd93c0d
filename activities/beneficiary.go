package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"

	"github.com/svcplatform/svc/internal/beneficiary"
	"github.com/svcplatform/svc/workflows"
)

// Beneficiaries are the activities of managed-wallet beneficiary transfers.
type Beneficiaries struct {
	// Worker sponsors and records transfers; nil fails the activities saying so (retried until a worker
	// has a chain).
	Worker *beneficiary.Worker
}

var errNoBeneficiaries = errors.New("this worker has no chain or gas sponsor for beneficiary transfers")

// SponsorBeneficiaryGas tops the transfer's wallet up with its transaction's gas, once.
func (b *Beneficiaries) SponsorBeneficiaryGas(ctx context.Context, transferID string) (workflows.LaunchSponsored, error) {
	if b.Worker == nil {
		return workflows.LaunchSponsored{}, errNoBeneficiaries
	}
	return b.Worker.SponsorGas(ctx, transferID, func() { activity.RecordHeartbeat(ctx) })
}

// FinishBeneficiary records the transfer's end once its wallet transaction has ended (retried until
// then).
func (b *Beneficiaries) FinishBeneficiary(ctx context.Context, transferID string) error {
	if b.Worker == nil {
		return errNoBeneficiaries
	}
	return b.Worker.Finish(ctx, transferID)
}
