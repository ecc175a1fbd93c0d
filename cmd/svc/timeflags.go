package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseDay parses the value of --name as a UTC day, YYYY-MM-DD; "" is the zero time.
func parseDay(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s %q is not a day in the form YYYY-MM-DD, such as 2026-01-31", name, v)
	}
	return t, nil
}

// parseRange parses --from and --to (see parseInstant) and checks that from is before to (to is
// exclusive); either may be empty.
func parseRange(fromS, toS string) (from, to time.Time, err error) {
	if from, err = parseInstant("from", fromS); err != nil {
		return from, to, err
	}
	if to, err = parseInstant("to", toS); err != nil {
		return from, to, err
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return from, to, errors.New("--from must be before --to (--to is exclusive)")
	}
	return from, to, nil
}

// parseInstant parses the value of --name as an RFC 3339 time in whole seconds, or a day YYYY-MM-DD
// (midnight UTC); "" is the zero time. Fractions of a second are refused because the SDK sends whole
// seconds, which would silently move the bound.
func parseInstant(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z (or a day such as 2026-01-02)", name, v)
	}
	if t.Nanosecond() != 0 {
		return time.Time{}, fmt.Errorf("--%s %q: give whole seconds (fractions are not sent)", name, v)
	}
	return t, nil
}

// parseSeconds parses the value of --name as a positive whole number of seconds: a Go duration such as
// 90m or 48h, or plain seconds such as 3600. A flag not given is 0 (the server's default); the range is
// left to the server, which names the field when it refuses.
func parseSeconds(name, v string, given bool) (int, error) {
	if !given {
		return 0, nil
	}
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 || n > 1<<31-1 {
			return 0, fmt.Errorf("--%s must be a positive number of seconds, not %q", name, v)
		}
		return int(n), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("--%s %q is neither a duration such as 48h or 90m nor whole seconds such as 3600", name, v)
	}
	if d < time.Second || d%time.Second != 0 {
		return 0, fmt.Errorf("--%s must be a positive whole number of seconds, not %q", name, v)
	}
	return int(d / time.Second), nil
}
