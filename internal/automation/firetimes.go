package automation

import (
	"fmt"
	"time"

	schedulepb "go.temporal.io/api/schedule/v1"
	"go.temporal.io/server/service/worker/scheduler"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/svcplatform/svc/schema"
)

// specs compiles schedule specs with the Temporal server's own scheduler code: the code the schedule
// itself runs to decide when it fires, so the times answered are the schedule's, never a second
// interpretation of the cron expression (robfig/cron/v3 only validates it).
var specs = scheduler.NewSpecBuilder(func() int { return 0 }, func() int { return 0 })

// fireTimesShown is how many upcoming fire times an automation shows.
const fireTimesShown = 5

// protoSpec is the wire form of the schedule's spec of a, as the Go SDK sends it for s.spec(a).
func (s *Service) protoSpec(a *schema.Automation) *schedulepb.ScheduleSpec {
	spec := &schedulepb.ScheduleSpec{CronString: []string{a.Cron}, TimezoneName: a.Timezone}
	if s.Opts.TestInterval > 0 {
		spec = &schedulepb.ScheduleSpec{Interval: []*schedulepb.IntervalSpec{{Interval: durationpb.New(s.Opts.TestInterval)}}}
	}
	if a.StartAt != nil {
		spec.StartTime = timestamppb.New(*a.StartAt)
	}
	if a.EndAt != nil {
		spec.EndTime = timestamppb.New(*a.EndAt)
	}
	return spec
}

// upcoming answers the next fire times (up to fireTimesShown) of a's schedule after now, computed from
// its spec by the scheduler's code; none for an automation that is not active.
func (s *Service) upcoming(a *schema.Automation, now time.Time) ([]time.Time, error) {
	out := []time.Time{}
	if a.Status != schema.AutomationActive {
		return out, nil
	}
	cs, err := specs.NewCompiledSpec(s.protoSpec(a))
	if err != nil {
		return nil, fmt.Errorf("compile the schedule spec of automation %s: %w", a.ID, err)
	}
	after := now
	for len(out) < fireTimesShown {
		next, err := cs.GetNextTime("", after)
		if err != nil {
			return nil, fmt.Errorf("next fire time of automation %s: %w", a.ID, err)
		}
		if next.Next.IsZero() {
			break
		}
		out = append(out, next.Next.UTC())
		after = next.Nominal
	}
	return out, nil
}
