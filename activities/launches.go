package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"

	"github.com/svcplatform/svc/internal/launch"
	"github.com/svcplatform/svc/workflows"
)

// FaultStallAfterSponsorSign (a test-only fault, as Launches.Fault from SVC_TEST_FAULT) stops
// SponsorLaunchGas once the gas top-up is signed and stored, before it is sent, until its context ends:
// a crash test kills the worker there and the retry must send the stored top-up, not sign another.
const FaultStallAfterSponsorSign = "stall-after-sponsor-sign"

// Launches are the activities of token launches.
type Launches struct {
	// Worker sponsors and records launches; nil fails the activities saying so (retried until a worker
	// has a chain).
	Worker *launch.Worker
	// Fault injects a test fault (FaultStallAfterSponsorSign); empty in production.
	Fault string
}

var errNoLaunches = errors.New("this worker has no chain or gas sponsor for token launches")

// SponsorLaunchGas tops the launch's wallet up with its transaction's gas, once.
func (l *Launches) SponsorLaunchGas(ctx context.Context, launchID string) (workflows.LaunchSponsored, error) {
	if l.Worker == nil {
		return workflows.LaunchSponsored{}, errNoLaunches
	}
	if l.Fault == FaultStallAfterSponsorSign {
		if err := l.Worker.PrepareGas(ctx, launchID); err != nil {
			return workflows.LaunchSponsored{}, err
		}
		<-ctx.Done()
		return workflows.LaunchSponsored{}, ctx.Err()
	}
	return l.Worker.SponsorGas(ctx, launchID, func() { activity.RecordHeartbeat(ctx) })
}

// FinishLaunch records the launch's end once its wallet transaction has ended (retried until then).
func (l *Launches) FinishLaunch(ctx context.Context, launchID string) error {
	if l.Worker == nil {
		return errNoLaunches
	}
	return l.Worker.Finish(ctx, launchID)
}

// ReadApprovalOutcome reads the approval's outcome ("" status while it is pending).
func (l *Launches) ReadApprovalOutcome(ctx context.Context, approvalID string) (workflows.ApprovalOutcome, error) {
	if l.Worker == nil {
		return workflows.ApprovalOutcome{}, errNoLaunches
	}
	return l.Worker.ApprovalOutcome(ctx, approvalID)
}
