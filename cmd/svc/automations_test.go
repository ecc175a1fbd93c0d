package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// TestAutomationsCommands follows automations through the CLI against the real API: create prints the
// automation and the server's next fire times in its time zone and UTC; list and its --status filter;
// --json and paging; a reused --idempotency-key answers the same automation, replayed; get with counts
// and limits; update sends only the flags given; pause and resume with a note; trigger
// starts a run that "runs list --automation" shows; cancel; delete removes it from listings; a bad cron
// is refused naming cron.
func TestAutomationsCommands(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{NoDatabases: true})
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	svc := func(args ...string) result {
		t.Helper()
		return cli(t, vars, "", args...)
	}
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r.stdout
	}
	getJSON := func(id string) client.Automation {
		t.Helper()
		var env client.AutomationEnvelope
		out := ok(svc("--json", "automations", "get", id))
		require.NoError(t, json.Unmarshal([]byte(out), &env), out)
		return env.Automation
	}

	// Create: the automation, then each next fire time in Europe/Berlin and UTC, as the server computed.
	out := ok(svc("automations", "create", "--name", "hourly echo", "--cron", "0 * * * *", "--timezone", "Europe/Berlin",
		"--service", "managed-workflows", "--operation", "echo", "--input", `{"message":"tick"}`))
	m := regexp.MustCompile(`(?m)^Automation:\s+(auto_\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	id := m[1]
	require.Regexp(t, `(?m)^Name:\s+hourly echo$`, out)
	require.Regexp(t, `(?m)^Cron:\s+0 \* \* \* \*$`, out)
	require.Regexp(t, `(?m)^Timezone:\s+Europe/Berlin$`, out)
	require.Regexp(t, `(?m)^Status:\s+active$`, out)
	require.Regexp(t, `(?m)^Action:\s+managed-workflows\.echo \{"message":"tick"\}$`, out)
	require.Regexp(t, `(?m)^Schedule:\s+automation/`+regexp.QuoteMeta(id)+`$`, out)
	fires := regexp.MustCompile(`(?m)^  (\S+) Europe/Berlin  =  (\S+Z)$`).FindAllStringSubmatch(out, -1)
	auto := getJSON(id)
	require.NotEmpty(t, auto.NextFireTimes)
	require.Len(t, fires, len(auto.NextFireTimes), out)
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	for i, f := range fires {
		local, err := time.Parse(time.RFC3339, f[1])
		require.NoError(t, err)
		utc, err := time.Parse(time.RFC3339, f[2])
		require.NoError(t, err)
		require.True(t, local.Equal(utc), "%s and %s are the same instant", f[1], f[2])
		require.True(t, utc.Equal(auto.NextFireTimes[i]), "line %d shows the server's fire time", i)
		require.Equal(t, local.In(berlin).Format(time.RFC3339), f[1], "in Europe/Berlin")
		require.Zero(t, local.Minute(), "hourly on the hour")
		require.True(t, utc.After(time.Now()), "a next fire is in the future")
	}

	// A paused one, in UTC: no next fire time; --json answers the envelope.
	out = ok(svc("--json", "automations", "create", "--name", "paused daily", "--cron", "@daily",
		"--service", "managed-workflows", "--operation", "echo", "--paused"))
	var created client.AutomationEnvelope
	require.NoError(t, json.Unmarshal([]byte(out), &created), out)
	paused := created.Automation
	require.Equal(t, client.AutomationPaused, paused.Status)
	require.Equal(t, "UTC", paused.Timezone)
	require.Empty(t, paused.NextFireTimes)
	out = ok(svc("automations", "get", paused.ID))
	require.Contains(t, out, "Next fire times: none (paused)")

	// List: both, newest first; --status keeps one.
	out = ok(svc("automations", "list"))
	require.Regexp(t, `(?m)^ID\s+NAME\s+CRON\s+STATUS\s+STARTED\s+SKIPPED\s+FAILED\s+NEXT FIRE \(UTC\)$`, out)
	require.Regexp(t, `(?m)^`+id+`\s+hourly echo\s+0 \* \* \* \* \(Europe/Berlin\)\s+active\s+0\s+0\s+0\s+\d{4}-\d\d-\d\dT\d\d:00:00Z$`, out)
	require.Regexp(t, `(?m)^`+paused.ID+`\s+paused daily\s+@daily\s+paused\s+0\s+0\s+0\s+-$`, out)
	require.Less(t, strings.Index(out, paused.ID), strings.Index(out, id), "newest first")
	out = ok(svc("automations", "list", "--status", "paused"))
	require.Contains(t, out, paused.ID)
	require.NotContains(t, out, id)
	out = ok(svc("--json", "automations", "list", "--limit", "1"))
	var list client.AutomationList
	require.NoError(t, json.Unmarshal([]byte(out), &list), out)
	require.Len(t, list.Automations, 1)
	require.Equal(t, paused.ID, list.Automations[0].ID)
	require.NotNil(t, list.NextCursor, "a second page")

	// The same Idempotency-Key answers the same automation, marked replayed.
	retry := []string{"automations", "create", "--name", "retried", "--cron", "@weekly", "--service", "managed-workflows",
		"--operation", "echo", "--paused", "--idempotency-key", "auto-retry-1"}
	first := regexp.MustCompile(`(?m)^Automation:\s+(auto_\S+)$`).FindStringSubmatch(ok(svc(retry...)))
	require.NotNil(t, first)
	out = ok(svc(retry...))
	require.Regexp(t, `(?m)^Automation:\s+`+first[1]+`  \[replayed answer\]$`, out)
	ok(svc("automations", "delete", first[1]))

	// Get: counts and the standard tier's limits.
	out = ok(svc("automations", "get", id))
	require.Regexp(t, `(?m)^Runs:\s+0 started, 0 skipped, 0 failed; 0 today \(UTC\)$`, out)
	require.Regexp(t, `(?m)^Limits:\s+100 runs in its life, 24 a day$`, out)
	require.Regexp(t, `(?m)^Last fire:\s+-$`, out)

	// Update sends only the flags given: a new cron keeps the name, and moves the fire times.
	out = ok(svc("automations", "update", id, "--cron", "30 * * * *"))
	require.Regexp(t, `(?m)^Name:\s+hourly echo$`, out)
	require.Regexp(t, `(?m)^Cron:\s+30 \* \* \* \*$`, out)
	auto = getJSON(id)
	require.NotEmpty(t, auto.NextFireTimes)
	for _, ft := range auto.NextFireTimes {
		require.Equal(t, 30, ft.Minute(), "the new cron's fire times")
	}
	out = ok(svc("automations", "update", id, "--name", "half past", "--input", `{"message":"tock"}`))
	require.Regexp(t, `(?m)^Cron:\s+30 \* \* \* \*$`, out)
	require.Regexp(t, `(?m)^Name:\s+half past$`, out)
	require.Regexp(t, `(?m)^Action:\s+managed-workflows\.echo \{"message":"tock"\}$`, out)

	// A bad cron is refused by the server, naming cron, on create and on update.
	for _, args := range [][]string{
		{"automations", "create", "--name", "bad", "--cron", "61 0 * 1 *", "--service", "managed-workflows", "--operation", "echo"},
		{"automations", "update", id, "--cron", "not a cron"},
	} {
		r := svc(args...)
		require.Equal(t, exitAPI, r.code, "%v: %s", args, r.stdout)
		require.Contains(t, r.stderr, "cron", args)
		requireSaidOnce(t, r.stderr)
	}

	// Pause and resume, with notes; a paused automation is not triggered.
	out = ok(svc("automations", "pause", id, "--note", "maintenance window"))
	require.Contains(t, out, "Paused automation "+id)
	require.Regexp(t, `(?m)^Status:\s+paused$`, out)
	require.Regexp(t, `(?m)^Note:\s+maintenance window$`, out)
	require.Contains(t, out, "Next fire times: none (paused)")
	r := svc("automations", "trigger", id)
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Contains(t, r.stderr, "conflict")
	out = ok(svc("automations", "resume", id, "--note", "done"))
	require.Contains(t, out, "Resumed automation "+id)
	require.Regexp(t, `(?m)^Status:\s+active$`, out)
	require.Regexp(t, `(?m)^Note:\s+done$`, out)
	require.Regexp(t, `(?m)^  \S+ Europe/Berlin  =  \S+:30:00Z$`, out)

	// Trigger: a run appears in runs list --automation, and in the automation's counts and recent runs.
	out = ok(svc("automations", "trigger", id))
	require.Contains(t, out, "Triggered automation "+id)
	require.Contains(t, out, "svc runs list --automation "+id)
	var runID string
	require.Eventually(t, func() bool {
		r := svc("runs", "list", "--automation", id)
		m := regexp.MustCompile(`(?m)^(run_\S+)\s+\S+\s+managed-workflows\s+echo\s`).FindStringSubmatch(r.stdout)
		if r.code != exitOK || m == nil {
			return false
		}
		runID = m[1]
		return true
	}, 30*time.Second, 100*time.Millisecond)
	out = ok(svc("runs", "list", "--automation", paused.ID))
	require.Contains(t, out, "No runs.", "the other automation started none")
	out = ok(svc("runs", "get", runID))
	require.Regexp(t, `(?m)^Automation:\s+`+id+`$`, out)
	require.Eventually(t, func() bool {
		a := getJSON(id)
		return a.Counts.RunsStarted == 1 && len(a.RecentRuns) == 1
	}, 30*time.Second, 100*time.Millisecond)
	out = ok(svc("automations", "get", id))
	require.Regexp(t, `(?m)^Runs:\s+1 started, 0 skipped, `, out)
	require.Regexp(t, `(?m)^RUN\s+STATUS\s+SCHEDULED FOR\s+CREATED$`, out)
	require.Regexp(t, `(?m)^`+runID+`\s+\S+\s+\d{4}-`, out)
	require.NotRegexp(t, `(?m)^Last fire:\s+-$`, out)

	// Cancel: it stays listed, cancelled, and fires no more.
	out = ok(svc("automations", "cancel", id))
	require.Contains(t, out, "Cancelled automation "+id)
	require.Regexp(t, `(?m)^Status:\s+cancelled$`, out)
	require.Contains(t, out, "Next fire times: none (cancelled)")
	out = ok(svc("automations", "list", "--status", "cancelled"))
	require.Contains(t, out, id)
	r = svc("automations", "resume", id)
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Contains(t, r.stderr, "conflict", "a cancelled automation is not resumed")

	// Delete: gone from listings and reads.
	out = ok(svc("automations", "delete", paused.ID))
	require.Contains(t, out, "Deleted automation "+paused.ID+" (paused daily)")
	out = ok(svc("automations", "list"))
	require.NotContains(t, out, paused.ID)
	require.Contains(t, out, id)
	r = svc("automations", "get", paused.ID)
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Contains(t, r.stderr, "not_found")
	ok(svc("automations", "delete", id))
	out = ok(svc("automations", "list"))
	require.Contains(t, out, "No automations.")
	out = ok(svc("runs", "get", runID))
	require.Regexp(t, `(?m)^Automation:\s+`+id+`$`, out, "its runs stay")
}

// TestAutomationsUsage: flag errors name the flag and exit 2 without calling the server (the key is
// unused); every command has its help.
func TestAutomationsUsage(t *testing.T) {
	t.Parallel()
	vars := testEnv(t, nil)
	vars["SVC_API_KEY"] = "svc_sk_unused"
	vars["SVC_BASE_URL"] = "http://127.0.0.1:1"
	create := []string{"automations", "create", "--name", "n", "--cron", "@hourly", "--service", "s", "--operation", "o"}
	with := func(extra ...string) []string { return append(append([]string{}, create...), extra...) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"automations", "create", "--cron", "@hourly", "--service", "s", "--operation", "o"}, "--name is required"},
		{[]string{"automations", "create", "--name", "n", "--service", "s", "--operation", "o"}, "--cron is required"},
		{[]string{"automations", "create", "--name", "n", "--cron", "@hourly", "--operation", "o"}, "--service is required"},
		{[]string{"automations", "create", "--name", "n", "--cron", "@hourly", "--service", "s"}, "--operation is required"},
		{with("--overlap", "queue"), `--overlap must be one of skip, buffer_one, allow_all, not "queue"`},
		{with("--start-at", "tomorrow"), `--start-at "tomorrow" is not an RFC 3339 time`},
		{with("--end-at", "2026-01-02"), `--end-at "2026-01-02" is not an RFC 3339 time`},
		{with("--start-at", "2026-01-02T00:00:00Z", "--end-at", "2026-01-01T00:00:00Z"), "--start-at must be before --end-at"},
		{with("--timezone", ""), "--timezone must not be empty"},
		{with("--input", "[1]"), "input: must be a JSON object"},
		{with("--input", "{}", "--input-file", "f"), msgInputBoth},
		{with("--crom", "x"), `unknown flag --crom; did you mean --cron?`},
		{with("extra"), `unexpected argument "extra"`},
		{[]string{"automations", "list", "--status", "running"}, `--status must be one of active, paused, cancelled, completed, not "running"`},
		{[]string{"automations", "list", "--limit", "500"}, "--limit must be between 1 and 200"},
		{[]string{"automations", "get"}, "automations get takes exactly one automation id"},
		{[]string{"automations", "get", "a", "b"}, "automations get takes exactly one automation id"},
		{[]string{"automations", "update", "auto_x"}, "nothing to change"},
		{[]string{"automations", "update", "auto_x", "--cron", " "}, "--cron must not be empty"},
		{[]string{"automations", "update", "auto_x", "--name", ""}, "--name must not be empty"},
		{[]string{"automations", "update", "auto_x", "--input", ""}, "--input must be a JSON object"},
		{[]string{"automations", "pause"}, "automations pause takes exactly one automation id"},
		{[]string{"automations", "resume", "auto_x", "--notes", "x"}, "unknown flag --notes; did you mean --note?"},
		{[]string{"automations", "trigger"}, "automations trigger takes exactly one automation id"},
		{[]string{"automations", "cancel", ""}, "automations cancel takes exactly one automation id"},
		{[]string{"automations", "delete", "auto_x", "--confirm"}, "unknown flag --confirm"},
		{[]string{"automations", "stop", "auto_x"}, `unknown command "automations stop"`},
	} {
		r := cli(t, vars, "", c.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, "error: "+c.want, c.args)
		require.Empty(t, r.stdout, c.args)
	}
	for _, args := range [][]string{
		{"automations", "--help"}, {"help", "automations"}, {"automations", "create", "--help"}, {"automations", "list", "-h"},
		{"help", "automations", "get"}, {"automations", "update", "--help"}, {"automations", "pause", "--help"},
		{"automations", "resume", "--help"}, {"automations", "trigger", "--help"}, {"automations", "cancel", "--help"},
		{"automations", "delete", "--help"},
	} {
		r := cli(t, vars, "", args...)
		require.Equal(t, exitOK, r.code, args)
		require.Contains(t, r.stdout, "Usage: svc automations", args)
	}
	r := cli(t, vars, "", "help")
	for _, cmd := range []string{"automations create", "automations list", "automations get", "automations update",
		"automations pause", "automations resume", "automations trigger", "automations cancel", "automations delete"} {
		require.Contains(t, r.stdout, cmd)
	}
	r = cli(t, vars, "", "runs", "list", "--help")
	require.Contains(t, r.stdout, "--automation ID")
	r = cli(t, vars, "", "automations", "delete", "--help")
	require.Contains(t, r.stdout, "removed from", "delete documents that it leaves the listings")
}

// TestFireTimeLines: fire times show in the automation's time zone and UTC, or UTC alone for UTC and for
// a zone the time zone database does not know.
func TestFireTimeLines(t *testing.T) {
	t.Parallel()
	times := []time.Time{time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC), time.Date(2026, 7, 2, 9, 0, 0, 0, time.UTC)}
	require.Equal(t, []string{
		"2026-01-02T10:00:00+01:00 Europe/Berlin  =  2026-01-02T09:00:00Z",
		"2026-07-02T11:00:00+02:00 Europe/Berlin  =  2026-07-02T09:00:00Z",
	}, fireTimeLines(times, "Europe/Berlin"))
	require.Equal(t, []string{"2026-01-02T09:00:00Z", "2026-07-02T09:00:00Z"}, fireTimeLines(times, "UTC"))
	require.Equal(t, []string{"2026-01-02T09:00:00Z", "2026-07-02T09:00:00Z"}, fireTimeLines(times, "Mars/Olympus"))
	require.Equal(t, "-", limitText(0))
	require.Equal(t, "24", limitText(24))
	require.Equal(t, "1,000", limitText(1000))
	require.Equal(t, "1,234,567", limitText(1234567))
}
