package activities

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/workflows"
)

// Automations are the activities of automations' fires.
type Automations struct {
	// Firer decides fires; nil fails them saying so (retried until a worker has one).
	Firer *automation.Firer
	// Schedules pauses schedules (the worker's Temporal client).
	Schedules sdkclient.ScheduleClient
}

var errNoAutomations = errors.New("this worker cannot fire automations")

// PrepareAutomationFire decides one fire and records its run (idempotent on the fire's scheduled time).
func (a *Automations) PrepareAutomationFire(ctx context.Context, in workflows.AutomationFireInput) (workflows.AutomationFire, error) {
	if a.Firer == nil {
		return workflows.AutomationFire{}, errNoAutomations
	}
	return a.Firer.Prepare(ctx, in)
}

// PauseAutomationSchedule pauses the automation's schedule with note; a schedule already gone (the
// automation was cancelled meanwhile) is left so.
func (a *Automations) PauseAutomationSchedule(ctx context.Context, automationID, note string) error {
	if a.Schedules == nil {
		return errNoAutomations
	}
	err := a.Schedules.GetHandle(ctx, workflows.AutomationScheduleID(automationID)).Pause(ctx, sdkclient.SchedulePauseOptions{Note: note})
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil
	}
	return err
}
