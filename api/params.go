package api

import (
	"time"

	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/svcerr"
)

// parseTime reads an optional RFC 3339 query parameter; "" is nil.
func parseTime(param, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, svcerr.Invalid(param, "%s must be an RFC 3339 time such as 2026-01-02T15:04:05Z", param)
	}
	return &t, nil
}

// approvalTTL validates an expiry in seconds: 0 means the default, at most approval.MaxTTL.
func approvalTTL(param string, seconds int) (time.Duration, error) {
	if seconds == 0 {
		return approval.DefaultTTL, nil
	}
	if seconds < 1 || time.Duration(seconds)*time.Second > approval.MaxTTL {
		return 0, svcerr.Invalid(param, "%s must be between 1 and %d", param, int(approval.MaxTTL.Seconds()))
	}
	return time.Duration(seconds) * time.Second, nil
}
