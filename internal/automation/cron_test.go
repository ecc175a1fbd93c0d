package automation

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
)

// TestValidateCron: what robfig/cron and Temporal Schedules read alike passes; the rest is refused
// naming the field.
func TestValidateCron(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"* * * * *", "0 * * * *", "*/15 9-17 * * 1-5", "0 0 1 * *", "0 12 * JAN,JUL MON",
		"@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually", "0 0 ? * SUN", " 5 4 * * * "} {
		require.NoError(t, ValidateCron("cron", ok), ok)
	}
	for _, bad := range []string{"", "* * * *", "* * * * * *", "61 * * * *", "* 24 * * *", "0 0 1 * MON", "0 0 1-7 * 1",
		"@every 1m", "@reboot", "CRON_TZ=UTC 0 * * * *", "TZ=Europe/Paris 0 * * * *", "a b c d e", "0 0 L * *"} {
		err := ValidateCron("cron", bad)
		require.Error(t, err, bad)
		e, ok := svcerr.As(err)
		require.True(t, ok, bad)
		require.Equal(t, "cron", e.Param, bad)
	}
}

// TestValidateTimezone: IANA names pass ("" is UTC); anything else is refused naming the field.
func TestValidateTimezone(t *testing.T) {
	t.Parallel()
	tz, err := ValidateTimezone("timezone", "")
	require.NoError(t, err)
	require.Equal(t, "UTC", tz)
	for _, ok := range []string{"UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata"} {
		got, err := ValidateTimezone("timezone", ok)
		require.NoError(t, err)
		require.Equal(t, ok, got)
	}
	for _, bad := range []string{"Local", "Mars/Olympus", "Europe/ Paris", "../etc/passwd", "+02:00"} {
		_, err := ValidateTimezone("timezone", bad)
		e, ok := svcerr.As(err)
		require.True(t, ok, bad)
		require.Equal(t, "timezone", e.Param, bad)
	}
}
