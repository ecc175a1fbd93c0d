package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	// The fire times are shown in the automation's time zone even where the system has no zoneinfo.
	_ "time/tzdata"

	"github.com/svcplatform/svc/client"
)

// automationsHelp is the help of "svc automations".
const automationsHelp = `Usage: svc automations <create|list|get|update|pause|resume|trigger|cancel|delete> [flags]

Automations start a run of a service's operation on a cron schedule. Each one is a Temporal Schedule,
automation/<id>, which the Temporal Web UI lists (and can pause). Reading needs scope runs:read,
changing runs:write.

  automations create    create an automation; shows its next fire times
  automations list      list automations with their run counts and next fire
  automations get       show an automation: counts, limits, fire times, recent runs
  automations update    change an automation's name, cron, timezone or input
  automations pause     pause an automation's schedule
  automations resume    resume a paused automation
  automations trigger   fire an automation once now
  automations cancel    stop an automation for good
  automations delete    cancel an automation and remove it from listings

Its runs: svc runs list --automation ID.
Run "svc automations <command> --help" for details.`

// automationsCommands are the commands of automations, "svc automations ...".
func automationsCommands() []command {
	return []command{
		{name: "automations", help: automationsHelp},
		{name: "automations create", run: (*app).automationsCreate, help: automationsCreateHelp,
			brief: "run an operation on a cron schedule; shows the next fire times"},
		{name: "automations list", run: (*app).automationsList, help: automationsListHelp,
			brief: "list automations with their run counts and next fire"},
		{name: "automations get", run: (*app).automationsGet, help: automationsGetHelp,
			brief: "show an automation: counts, limits, fire times, recent runs"},
		{name: "automations update", run: (*app).automationsUpdate, help: automationsUpdateHelp,
			brief: "change an automation's name, cron, timezone or input"},
		{name: "automations pause", run: (*app).automationsPause, help: automationsPauseHelp,
			brief: "pause an automation's schedule"},
		{name: "automations resume", run: (*app).automationsResume, help: automationsResumeHelp,
			brief: "resume a paused automation"},
		{name: "automations trigger", run: (*app).automationsTrigger, help: automationsTriggerHelp,
			brief: "fire an automation once now"},
		{name: "automations cancel", run: (*app).automationsCancel, help: automationsCancelHelp,
			brief: "stop an automation for good (a run in flight continues)"},
		{name: "automations delete", run: (*app).automationsDelete, help: automationsDeleteHelp,
			brief: "cancel an automation and remove it from listings"},
	}
}

// automationStatuses are the statuses an automation may have, for the --status filter of list.
var automationStatuses = []string{client.AutomationActive, client.AutomationPaused, client.AutomationCancelled,
	client.AutomationCompleted}

// overlapPolicies are the values of --overlap.
var overlapPolicies = []string{client.OverlapSkip, client.OverlapBufferOne, client.OverlapAllowAll}

// cronHelp documents the cron expressions the API accepts, for the helps of create and update.
const cronHelp = `A cron expression has 5 fields, minute hour day-of-month month day-of-week ("0 * * * *" is every
hour on the hour, "30 9 * * 1-5" is 09:30 on weekdays), or is one of @hourly, @daily, @midnight,
@weekly, @monthly, @yearly, @annually. It is read in the automation's time zone (default UTC). A
day-of-month together with a day-of-week is refused. The server checks it and names cron when it
refuses it (exit 1).`

// automationsCreateHelp is the help of "svc automations create".
const automationsCreateHelp = `Usage: svc automations create --name N --cron EXPR [--timezone TZ] --service S --operation O
                             [--input JSON | --input-file F] [--overlap skip|buffer_one|allow_all]
                             [--start-at TIME] [--end-at TIME] [--paused] [--idempotency-key K]

Creates an automation (scope runs:write and access to the service): each fire of its cron schedule
starts a run of the operation with the input, as "svc runs create" would. It prints the automation and
its next fire times, in its time zone and in UTC. E.g. every hour on the hour:
  svc automations create --name hourly-echo --cron "0 * * * *" \
    --service managed-workflows --operation echo --input '{"message":"tick"}'

` + cronHelp + `

The account's tier limits the automations that are active or paused (standard 5, Club 20; one more is
refused, limit_exceeded), the runs one automation may start in its life (100, 1,000) and in one UTC day
(24, 100): a fire past a limit starts no run and counts as skipped, and one that has used its lifetime
runs is paused. The limits of the key that creates it (runs.create, creditsPerDay) apply to each fire.

  --name N              a name, 1..200 characters (required)
  --cron EXPR           when to fire (required), see above
  --timezone TZ         IANA time zone the cron is read in, e.g. Europe/Berlin (default UTC)
  --service S           service id of the runs (required)
  --operation O         operation id of the runs (required)
  --input JSON          the runs' input, a JSON object (default {})
  --input-file F        read the input from file F (- for stdin)
  --overlap P           while the previous run is still going: skip the fire (skip, the default),
                        keep one fire waiting (buffer_one), or run both (allow_all)
  --start-at TIME       no fire before TIME, RFC 3339 (2026-01-02T15:04:05Z)
  --end-at TIME         no fire after TIME, RFC 3339; the automation is then completed
  --paused              create it paused ("svc automations resume ID" starts it)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// automationsCreate creates an automation and shows it with its next fire times.
func (a *app) automationsCreate(args []string) int {
	const cmd = "automations create"
	var (
		req                client.CreateAutomationRequest
		input              inputFlags
		idemKey            string
		startAtS, endAtS   string
		service, operation string
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&req.Name, "name", "", "the automation's name")
	fs.StringVar(&req.Cron, "cron", "", "5-field cron expression or @hourly, @daily, ...")
	fs.StringVar(&req.Timezone, "timezone", "", "IANA time zone of the cron (default UTC)")
	fs.StringVar(&service, "service", "", "service id of the runs")
	fs.StringVar(&operation, "operation", "", "operation id of the runs")
	input.register(fs)
	fs.StringVar(&req.Overlap, "overlap", "", "skip, buffer_one or allow_all")
	fs.StringVar(&startAtS, "start-at", "", "no fire before this RFC 3339 time")
	fs.StringVar(&endAtS, "end-at", "", "no fire after this RFC 3339 time")
	fs.BoolVar(&req.Paused, "paused", false, "create it paused")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	given := flagsGiven(fs)
	switch {
	case strings.TrimSpace(req.Name) == "":
		return a.usageError(cmd, "--name is required")
	case strings.TrimSpace(req.Cron) == "":
		return a.usageError(cmd, "--cron is required, e.g. --cron \"0 * * * *\" (every hour)")
	case given["timezone"] && strings.TrimSpace(req.Timezone) == "":
		return a.usageError(cmd, "--timezone must not be empty (leave it out for UTC)")
	case service == "":
		return a.usageError(cmd, "--service is required")
	case operation == "":
		return a.usageError(cmd, "--operation is required")
	case input.both():
		return a.usageError(cmd, msgInputBoth)
	case given["overlap"] && !slices.Contains(overlapPolicies, req.Overlap):
		return a.usageError(cmd, "--overlap must be one of %s, not %q", strings.Join(overlapPolicies, ", "), req.Overlap)
	}
	var err error
	if req.StartAt, err = parseTimeFlag("start-at", startAtS); err != nil {
		return a.usageError(cmd, "%v", err)
	}
	if req.EndAt, err = parseTimeFlag("end-at", endAtS); err != nil {
		return a.usageError(cmd, "%v", err)
	}
	if req.StartAt != nil && req.EndAt != nil && !req.StartAt.Before(*req.EndAt) {
		return a.usageError(cmd, "--start-at must be before --end-at")
	}
	in, code, ok := input.read(a, cmd)
	if !ok {
		return code
	}
	req.Action = client.AutomationAction{ServiceID: service, OperationID: operation, Input: in}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.CreateAutomation(a.ctx, req, idemOpts(idemKey)...), func(r client.Response[client.AutomationEnvelope]) {
		a.printAutomation(r.Body.Automation, r.Replayed)
	})
}

// parseTimeFlag parses the value of --name as an RFC 3339 time; "" is nil.
func parseTimeFlag(name, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, fmt.Errorf("--%s %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", name, v)
	}
	return &t, nil
}

// automationsListHelp is the help of "svc automations list".
const automationsListHelp = `Usage: svc automations list [--status S] [--limit N] [--cursor C] [--all]

Lists automations, newest first (scope runs:read): id, name, cron, status, the runs its fires started,
skipped and saw fail, and its next fire (UTC; "-" unless active). With a project selected only that project's automations
are shown, without one only those made outside any project. Deleted automations are left out.

  --status S   only automations in status S: active, paused, cancelled or completed
  --limit N    page size 1..200 (default 50)
  --cursor C   the nextCursor of the previous page (repeat the same filters)
  --all        follow nextCursor through every page

` + globalFlagsHelp

// automationsList lists automations as a table.
func (a *app) automationsList(args []string) int {
	const cmd = "automations list"
	fs := a.commandFlags(cmd, nil)
	var (
		pf     pageFlags
		status string
	)
	fs.StringVar(&status, "status", "", "only automations in this status")
	if code, ok := a.parsePaged(cmd, fs, &pf, args); !ok {
		return code
	}
	if status != "" && !slices.Contains(automationStatuses, status) {
		return a.usageError(cmd, "--status must be one of %s, not %q", strings.Join(automationStatuses, ", "), status)
	}
	autos, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.AutomationList] {
			return c.ListAutomations(a.ctx, client.ListAutomationsParams{ListParams: p, Status: status})
		},
		func(l client.AutomationList) ([]client.Automation, *string) { return l.Automations, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.AutomationList{OK: true, Automations: orEmpty(autos), NextCursor: next}, len(autos), "No automations.") {
		return exitOK
	}
	a.fillFireTimes(autos)
	tw := a.table()
	fmt.Fprintln(tw, "ID\tNAME\tCRON\tSTATUS\tSTARTED\tSKIPPED\tFAILED\tNEXT FIRE (UTC)")
	for _, au := range autos {
		nextFire := "-"
		if len(au.NextFireTimes) > 0 {
			nextFire = au.NextFireTimes[0].UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", au.ID, oneLine(au.Name, 40), cronLabel(au), au.Status,
			au.Counts.RunsStarted, au.Counts.RunsSkipped, au.Counts.RunsFailed, nextFire)
	}
	_ = tw.Flush()
	var filters []string
	if status != "" {
		filters = append(filters, "--status", shellQuote(status))
	}
	if pf.limit != 0 {
		filters = append(filters, "--limit", strconv.Itoa(pf.limit))
	}
	a.moreHint("automations", cmd, filters, next)
	return exitOK
}

// maxFills bounds the reads fillFireTimes makes for one listing: the Club tier's active automations.
const maxFills = 20

// fillFireTimes reads each active automation whose list entry has no next fire time (the list answers
// the rows alone; a read of one automation asks its Temporal Schedule) and takes its next fire times and
// counts from the read (the failed runs are counted there too), at most maxFills of them. A read that
// fails leaves its entry as listed; the listing itself does not fail.
func (a *app) fillFireTimes(autos []client.Automation) {
	c, _, _, ok := a.authedClient()
	if !ok {
		return
	}
	fills := 0
	for i := range autos {
		au := &autos[i]
		if au.Status != client.AutomationActive || len(au.NextFireTimes) > 0 || fills == maxFills {
			continue
		}
		fills++
		if r := c.GetAutomation(a.ctx, au.ID); r.OK {
			au.NextFireTimes, au.Counts = r.Body.Automation.NextFireTimes, r.Body.Automation.Counts
		}
	}
}

// cronLabel is an automation's cron expression, followed by its time zone unless that is UTC.
func cronLabel(au client.Automation) string {
	if au.Timezone == "" || au.Timezone == "UTC" {
		return oneLine(au.Cron, 40)
	}
	return oneLine(au.Cron, 40) + " (" + au.Timezone + ")"
}

// automationsGetHelp is the help of "svc automations get".
const automationsGetHelp = `Usage: svc automations get ID

Shows an automation (scope runs:read): its cron, action and status, the runs its fires started, skipped
(a limit was reached, or the previous run was still going) and saw fail, the tier's limits per
automation, its last fire, its next fire times (in its time zone and UTC) and its recent runs. All its
runs: svc runs list --automation ID.

` + globalFlagsHelp

// automationsGet shows one automation in detail.
func (a *app) automationsGet(args []string) int {
	return oneID(a, idSpec{cmd: "automations get", what: "automation"}, args,
		func(c *client.Client, id string, _ []client.CallOption) client.Response[client.AutomationEnvelope] {
			return c.GetAutomation(a.ctx, id)
		},
		func(r client.Response[client.AutomationEnvelope]) { a.printAutomation(r.Body.Automation, false) })
}

// automationsUpdateHelp is the help of "svc automations update".
const automationsUpdateHelp = `Usage: svc automations update ID [--name N] [--cron EXPR] [--timezone TZ]
                             [--input JSON | --input-file F] [--idempotency-key K]

Changes an automation (scope runs:write); give at least one flag. Only the flags given are sent; the
others keep their value. A new cron or time zone moves the next fire times, which it prints; a new
input applies from the next fire. A cancelled or completed automation cannot be changed (conflict).

` + cronHelp + `

  --name N              the new name, 1..200 characters
  --cron EXPR           the new cron expression
  --timezone TZ         the new IANA time zone of the cron, e.g. UTC or America/New_York
  --input JSON          the runs' new input, a JSON object; it replaces the old one whole ('{}' clears it)
  --input-file F        read the new input from file F (- for stdin)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// automationsUpdate changes the fields of an automation whose flags are given.
func (a *app) automationsUpdate(args []string) int {
	const cmd = "automations update"
	var (
		name, cron, timezone, idemKey string
		input                         inputFlags
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&name, "name", "", "the new name")
	fs.StringVar(&cron, "cron", "", "the new cron expression")
	fs.StringVar(&timezone, "timezone", "", "the new IANA time zone")
	input.register(fs)
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "automation"}, fs, args)
	if !ok {
		return code
	}
	set := flagsGiven(fs)
	var req client.UpdateAutomationRequest
	for _, f := range []struct {
		flag string
		val  string
		dst  **string
	}{{"name", name, &req.Name}, {"cron", cron, &req.Cron}, {"timezone", timezone, &req.Timezone}} {
		if !set[f.flag] {
			continue
		}
		if strings.TrimSpace(f.val) == "" {
			return a.usageError(cmd, "--%s must not be empty", f.flag)
		}
		*f.dst = &f.val
	}
	switch {
	case input.both():
		return a.usageError(cmd, msgInputBoth)
	case set["input"] || set["input-file"]:
		in, code, ok := input.read(a, cmd)
		if !ok {
			return code
		}
		if in == nil {
			return a.usageError(cmd, "--input must be a JSON object ('{}' clears the input)")
		}
		req.Input = &in
	case req.Name == nil && req.Cron == nil && req.Timezone == nil:
		return a.usageError(cmd, "nothing to change: give --name, --cron, --timezone or --input")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.UpdateAutomation(a.ctx, id, req, idemOpts(idemKey)...), func(r client.Response[client.AutomationEnvelope]) {
		a.printAutomation(r.Body.Automation, r.Replayed)
	})
}

// automationsPauseHelp is the help of "svc automations pause".
const automationsPauseHelp = `Usage: svc automations pause ID [--note TEXT] [--idempotency-key K]

Pauses an automation's schedule (scope runs:write): it fires no more until resumed; a run in flight
continues. The note (at most 500 characters) is shown with the schedule in the Temporal Web UI and by
"svc automations get". An automation paused in the Web UI shows paused here too.

  --note TEXT           why it is paused
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// automationsPause pauses an automation.
func (a *app) automationsPause(args []string) int {
	return a.automationNoteVerb("automations pause", "Paused", args, (*client.Client).PauseAutomation)
}

// automationsResumeHelp is the help of "svc automations resume".
const automationsResumeHelp = `Usage: svc automations resume ID [--note TEXT] [--idempotency-key K]

Resumes a paused automation (scope runs:write), also one paused in the Temporal Web UI: its schedule
fires again at its next fire times, which it prints. The note (at most 500 characters) is shown with
the schedule in the Temporal Web UI and by "svc automations get".

  --note TEXT           why it is resumed
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// automationsResume resumes an automation.
func (a *app) automationsResume(args []string) int {
	return a.automationNoteVerb("automations resume", "Resumed", args, (*client.Client).ResumeAutomation)
}

// automationNoteVerb runs pause or resume: one id, an optional --note, and the automation as answered
// under a line saying what was done.
func (a *app) automationNoteVerb(cmd, done string, args []string,
	call func(c *client.Client, ctx context.Context, id, note string, opts ...client.CallOption) client.Response[client.AutomationEnvelope]) int {
	var note, idemKey string
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&note, "note", "", "why; shown in the Temporal Web UI")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "automation"}, fs, args)
	if !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, call(c, a.ctx, id, note, idemOpts(idemKey)...), func(r client.Response[client.AutomationEnvelope]) {
		fmt.Fprintln(a.stdout, titleLine(done+" automation", r.Body.Automation.ID, "", r.Replayed))
		fmt.Fprintln(a.stdout)
		a.printAutomation(r.Body.Automation, false)
	})
}

// automationsTriggerHelp is the help of "svc automations trigger".
const automationsTriggerHelp = `Usage: svc automations trigger ID [--idempotency-key K]

Fires an active automation once now (scope runs:write), besides its schedule and even while its
previous run still goes: the fire starts a run as a scheduled one would, and the tier's limits apply to
it the same way (past a limit it is skipped). The run appears in "svc runs list --automation ID"
moments later. A paused automation must be resumed first; a cancelled or completed one cannot fire
(conflict, exit 1).

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// automationsTrigger fires an automation once now.
func (a *app) automationsTrigger(args []string) int {
	return oneID(a, idSpec{cmd: "automations trigger", what: "automation", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.AutomationEnvelope] {
			return c.TriggerAutomation(a.ctx, id, opts...)
		},
		func(r client.Response[client.AutomationEnvelope]) {
			au := r.Body.Automation
			fmt.Fprintln(a.stdout, titleLine("Triggered automation", au.ID, "", r.Replayed))
			fmt.Fprintf(a.stdout, "Its run starts now; list it with: svc runs list --automation %s\n\n", au.ID)
			a.printAutomation(au, false)
		})
}

// automationsCancelHelp is the help of "svc automations cancel".
const automationsCancelHelp = `Usage: svc automations cancel ID [--idempotency-key K]

Stops an automation for good (scope runs:write): its schedule fires no more and it cannot be resumed;
a run in flight continues. It stays listed, as cancelled, with its counts and runs.

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// automationsCancel stops an automation for good.
func (a *app) automationsCancel(args []string) int {
	return oneID(a, idSpec{cmd: "automations cancel", what: "automation", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.AutomationEnvelope] {
			return c.CancelAutomation(a.ctx, id, opts...)
		},
		func(r client.Response[client.AutomationEnvelope]) {
			fmt.Fprintln(a.stdout, titleLine("Cancelled automation", r.Body.Automation.ID, "", r.Replayed))
			fmt.Fprintln(a.stdout, "It fires no more; a run in flight continues.")
			fmt.Fprintln(a.stdout)
			a.printAutomation(r.Body.Automation, false)
		})
}

// automationsDeleteHelp is the help of "svc automations delete".
const automationsDeleteHelp = `Usage: svc automations delete ID [--idempotency-key K]

Deletes an automation (scope runs:write) without asking: it is cancelled (its schedule fires no more;
a run in flight continues) and removed from "svc automations list"; "svc automations get ID" then
answers not found. The runs it started stay, in "svc runs list".

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// automationsDelete deletes an automation.
func (a *app) automationsDelete(args []string) int {
	return oneID(a, idSpec{cmd: "automations delete", what: "automation", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.AutomationEnvelope] {
			return c.DeleteAutomation(a.ctx, id, opts...)
		},
		func(r client.Response[client.AutomationEnvelope]) {
			au := r.Body.Automation
			fmt.Fprintln(a.stdout, titleLine("Deleted automation", au.ID, au.Name, r.Replayed))
			fmt.Fprintln(a.stdout, "It fires no more and is removed from listings; its runs stay in \"svc runs list\".")
		})
}

// printAutomation shows an automation as aligned lines, then its next fire times (in its time zone and
// UTC) and, when the answer has them, its recent runs.
func (a *app) printAutomation(au client.Automation, replayed bool) {
	tw := a.table()
	id := au.ID
	if replayed {
		id += "  [replayed answer]"
	}
	fmt.Fprintf(tw, "Automation:\t%s\n", id)
	fmt.Fprintf(tw, "Name:\t%s\n", oneLine(au.Name, 0))
	fmt.Fprintf(tw, "Cron:\t%s\n", au.Cron)
	fmt.Fprintf(tw, "Timezone:\t%s\n", orDash(au.Timezone))
	fmt.Fprintf(tw, "Status:\t%s\n", au.Status)
	if au.Note != "" {
		fmt.Fprintf(tw, "Note:\t%s\n", oneLine(au.Note, 0))
	}
	fmt.Fprintf(tw, "Action:\t%s.%s %s\n", au.Action.ServiceID, au.Action.OperationID, inputJSON(au.Action.Input))
	fmt.Fprintf(tw, "Overlap:\t%s\n", orDash(au.Overlap))
	if au.StartAt != nil {
		fmt.Fprintf(tw, "Starts:\t%s\n", au.StartAt.UTC().Format(time.RFC3339))
	}
	if au.EndAt != nil {
		fmt.Fprintf(tw, "Ends:\t%s\n", au.EndAt.UTC().Format(time.RFC3339))
	}
	if au.ProjectID != nil {
		fmt.Fprintf(tw, "Project:\t%s\n", *au.ProjectID)
	}
	fmt.Fprintf(tw, "Schedule:\t%s\n", orDash(au.ScheduleID))
	fmt.Fprintf(tw, "Runs:\t%d started, %d skipped, %d failed; %d today (UTC)\n", au.Counts.RunsStarted,
		au.Counts.RunsSkipped, au.Counts.RunsFailed, au.Counts.RunsToday)
	fmt.Fprintf(tw, "Limits:\t%s runs in its life, %s a day\n", limitText(au.Limits.Executions), limitText(au.Limits.RunsPerDay))
	last := "-"
	if au.LastFireAt != nil {
		last = au.LastFireAt.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(tw, "Last fire:\t%s\n", last)
	fmt.Fprintf(tw, "Created:\t%s\n", au.CreatedAt.UTC().Format(time.RFC3339))
	_ = tw.Flush()

	fmt.Fprintln(a.stdout)
	if len(au.NextFireTimes) == 0 {
		fmt.Fprintf(a.stdout, "Next fire times: none (%s)\n", au.Status)
	} else {
		fmt.Fprintln(a.stdout, "Next fire times:")
		for _, line := range fireTimeLines(au.NextFireTimes, au.Timezone) {
			fmt.Fprintln(a.stdout, "  "+line)
		}
	}
	if len(au.RecentRuns) == 0 {
		return
	}
	fmt.Fprintln(a.stdout)
	fmt.Fprintln(a.stdout, "Recent runs:")
	tw = a.table()
	fmt.Fprintln(tw, "RUN\tSTATUS\tSCHEDULED FOR\tCREATED")
	for _, r := range au.RecentRuns {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.RunID, r.Status, r.ScheduledAt.UTC().Format(time.RFC3339),
			r.CreatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
}

// inputJSON shows an action's input as one line of JSON, {} for none.
func inputJSON(in map[string]any) string {
	if len(in) == 0 {
		return "{}"
	}
	return oneLine(compactJSON(in), 120)
}

// limitText shows a limit with thousands separators (1,000); 0 (not answered) is "-".
func limitText(n int64) string {
	if n <= 0 {
		return "-"
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// fireTimeLines shows each fire time in the time zone tz (unless it is UTC, or a zone the Go time
// zone database does not know) and in UTC: "2026-01-02T10:00:00+01:00 Europe/Berlin  =  2026-01-02T09:00:00Z", or only the UTC time.
func fireTimeLines(times []time.Time, tz string) []string {
	var loc *time.Location
	if tz != "" && tz != "UTC" {
		if l, err := time.LoadLocation(tz); err == nil {
			loc = l
		}
	}
	lines := make([]string, len(times))
	for i, t := range times {
		utc := t.UTC().Format(time.RFC3339)
		if loc == nil {
			lines[i] = utc
			continue
		}
		lines[i] = t.In(loc).Format(time.RFC3339) + " " + tz + "  =  " + utc
	}
	return lines
}
