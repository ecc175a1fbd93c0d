package automation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/schema"
)

// TestUpcomingFollowsTheScheduleSpec: fire times computed by the scheduler's code keep local time across a
// daylight-saving change, stop at endAt, start at startAt, and are none for a paused automation.
func TestUpcomingFollowsTheScheduleSpec(t *testing.T) {
	s := &Service{}
	now := time.Date(2026, 3, 26, 12, 0, 0, 0, time.UTC) // Thursday; Paris moves to UTC+2 on Sunday 29 March
	a := &schema.Automation{ID: "auto_t", Cron: "0 9 * * *", Timezone: "Europe/Paris", Status: schema.AutomationActive}
	got, err := s.upcoming(a, now)
	require.NoError(t, err)
	require.Equal(t, []time.Time{
		time.Date(2026, 3, 27, 8, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 28, 8, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 29, 7, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 30, 7, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 31, 7, 0, 0, 0, time.UTC),
	}, got)

	end := time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC)
	a.EndAt = &end
	got, err = s.upcoming(a, now)
	require.NoError(t, err)
	require.Len(t, got, 2)

	start := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	a.EndAt, a.StartAt, a.Cron, a.Timezone = nil, &start, "@hourly", "UTC"
	got, err = s.upcoming(a, now)
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), got[0])
	require.Equal(t, time.Date(2026, 4, 1, 4, 0, 0, 0, time.UTC), got[4])

	a.Status = schema.AutomationPaused
	got, err = s.upcoming(a, now)
	require.NoError(t, err)
	require.Empty(t, got)

	s.Opts.TestInterval = time.Second
	a.Status, a.StartAt = schema.AutomationActive, nil
	got, err = s.upcoming(a, now)
	require.NoError(t, err)
	require.Equal(t, now.Add(time.Second), got[0])
}
