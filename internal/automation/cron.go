// Package automation is the platform's cron-driven runs: an automation is a row here and a Temporal
// Schedule (automation/<id>) whose action is AutomationFireWorkflow; every fire starts at most one run,
// whose id derives from the automation and the fire's scheduled time, under the account tier's limits
// counted in PostgreSQL.
package automation

import (
	"strings"
	"time"

	// Time zones are read from the binary, so a machine without tzdata validates and fires alike.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"

	"github.com/svcplatform/svc/internal/svcerr"
)

// descriptors are the cron descriptors both robfig/cron and Temporal Schedules read the same way.
var descriptors = map[string]bool{"@yearly": true, "@annually": true, "@monthly": true, "@weekly": true,
	"@daily": true, "@midnight": true, "@hourly": true}

// parser reads standard 5-field expressions and descriptors.
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ValidateCron checks that expr is a 5-field cron expression or a descriptor that Temporal Schedules
// read as robfig/cron does: no seconds, no CRON_TZ (the timezone field says it), no @every, and never a
// day-of-month together with a day-of-week (cron fires when either matches, Temporal when both do).
// Errors name param.
func ValidateCron(param, expr string) error {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return svcerr.Invalid(param, "%s is empty: give a 5-field cron expression such as \"0 * * * *\" or a descriptor such as @hourly", param)
	}
	if strings.HasPrefix(expr, "@") {
		if !descriptors[expr] {
			return svcerr.Invalid(param, "%s %q is not a descriptor we take: use @hourly, @daily, @midnight, @weekly, @monthly, @yearly or @annually", param, expr)
		}
		return nil
	}
	if strings.Contains(strings.ToUpper(expr), "TZ=") {
		return svcerr.Invalid(param, "%s carries no time zone: give it in timezone", param)
	}
	fields := strings.Fields(expr)
	if len(fields) != 5 {
		return svcerr.Invalid(param, "%s has %d fields; a cron expression has 5: minute hour day-of-month month day-of-week", param, len(fields))
	}
	if _, err := parser.Parse(expr); err != nil {
		return svcerr.Invalid(param, "%s %q is not a valid cron expression: %v", param, expr, err)
	}
	if restricted(fields[2]) && restricted(fields[4]) {
		return svcerr.Invalid(param, "%s restricts both day-of-month (%s) and day-of-week (%s), whose meaning differs between cron and Temporal Schedules: restrict one of them and leave the other *",
			param, fields[2], fields[4])
	}
	return nil
}

// restricted reports whether a day field limits the days (anything but * or ?).
func restricted(field string) bool { return field != "*" && field != "?" }

// ValidateTimezone checks that name is an IANA time zone ("" is UTC); errors name param.
func ValidateTimezone(param, name string) (string, error) {
	if name == "" {
		return "UTC", nil
	}
	if name == "Local" || strings.ContainsAny(name, " \\") {
		return "", svcerr.Invalid(param, "%s %q is not an IANA time zone name (such as Europe/Paris or UTC)", param, name)
	}
	if _, err := time.LoadLocation(name); err != nil {
		return "", svcerr.Invalid(param, "%s %q is not an IANA time zone name (such as Europe/Paris or UTC)", param, name)
	}
	return name, nil
}
