package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"

	"github.com/svcplatform/svc/internal/launch"
	"github.com/svcplatform/svc/workflows"
)

// Launches are the activities of token launches.
type Launches struct {
	// Worker sponsors and records launches; nil fails the activities saying so (retried until a worker
	// has a chain).
	Worker *launch.Worker
}

var errNoLaunches = errors.New("this worker has no chain or gas sponsor for token launches")

// SponsorLaunchGas tops the launch's wallet up with its transaction's gas, once.
func (l *Launches) SponsorLaunchGas(ctx context.Context, launchID string) (workflows.LaunchSponsored, error) {
	if l.Worker == nil {
		return workflows.LaunchSponsored{}, errNoLaunches
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
