package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// runsHelp is the help of "svc runs".
const runsHelp = `Usage: svc runs <list|create|get|watch|cancel> [flags]

  runs list      list runs, newest first, by status, service, operation and creation time
  runs create    start a durable run, optionally waiting until it finishes
  runs get       show a run, optionally waiting until it finishes
  runs watch     follow a run's status until it finishes
  runs cancel    request a run's cancellation

Run "svc runs <command> --help" for details.`

// runsCommands are the commands of durable runs, "svc runs ...".
func runsCommands() []command {
	return []command{
		{name: "runs", help: runsHelp},
		{name: "runs list", run: (*app).runsList, help: runsListHelp,
			brief: "list runs, newest first, by status, service, operation and creation time"},
		{name: "runs create", run: (*app).runsCreate, help: runsCreateHelp,
			brief: "start a durable run, optionally waiting until it finishes"},
		{name: "runs get", run: (*app).runsGet, help: runsGetHelp,
			brief: "show a run, optionally waiting until it finishes"},
		{name: "runs watch", run: (*app).runsWatch, help: runsWatchHelp,
			brief: "follow a run's status until it finishes"},
		{name: "runs cancel", run: (*app).runsCancel, help: runsCancelHelp, brief: "request a run's cancellation"},
	}
}

// runsCreateHelp is the help of "svc runs create".
const runsCreateHelp = `Usage: svc runs create --service S --operation O [--input JSON | --input-file F] [--wait]
                      [--interval D] [--require-approval [--approval-expires-in D]] [--idempotency-key K]

Starts a durable run (scope runs:write and access to the service), e.g.
  svc runs create --service managed-workflows --operation echo --input '{"message":"hi"}' --wait

A run created with --require-approval (or whose operation the catalog marks as needing approval) waits in
awaiting_approval until a key holding approvals:write approves it; svc then prints a line naming the
approval and the command to approve it, "svc approvals approve APPROVAL_ID" (to stderr with --json).
Rejected, the run fails with approval_rejected; left undecided until it expires, with approval_expired.

  --service S           service id (required)
  --operation O         operation id (required)
  --input JSON          the input, a JSON object (default {})
  --input-file F        read the input from file F (- for stdin)
  --wait                follow the run until it finishes, printing each status change;
                        a failed or cancelled run then exits 1
  --interval D          poll interval with --wait (default 1s)
  --require-approval    wait for an approval before running
  --approval-expires-in D
                        how long the approval waits: a duration such as 90m or 48h, or whole
                        seconds such as 3600 (default 24h, at most 168h = 7 days)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// runsCreate starts a durable run and, with --wait, follows it until it finishes.
func (a *app) runsCreate(args []string) int {
	const cmd = "runs create"
	var (
		service, operation, idemKey string
		input                       inputFlags
		wait, requireApproval       bool
		interval                    time.Duration
		approvalExpiresIn           string
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&service, "service", "", "service id")
	fs.StringVar(&operation, "operation", "", "operation id")
	input.register(fs)
	fs.BoolVar(&wait, "wait", false, "wait until the run finishes, showing status changes")
	fs.DurationVar(&interval, "interval", time.Second, "poll interval with --wait")
	fs.BoolVar(&requireApproval, "require-approval", false, "wait for an approval before running")
	fs.StringVar(&approvalExpiresIn, "approval-expires-in", "", "how long the approval waits: a duration (48h) or seconds")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	expiresIn, err := parseSeconds("approval-expires-in", approvalExpiresIn, flagsGiven(fs)["approval-expires-in"])
	switch {
	case err != nil:
		return a.usageError(cmd, "%v", err)
	case service == "":
		return a.usageError(cmd, "--service is required")
	case operation == "":
		return a.usageError(cmd, "--operation is required")
	case input.both():
		return a.usageError(cmd, msgInputBoth)
	case interval <= 0:
		return a.usageError(cmd, "--interval must be positive")
	}
	in, code, ok := input.read(a, cmd)
	if !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.CreateRun(a.ctx, client.CreateRunRequest{ServiceID: service, OperationID: operation, Input: in,
		RequireApproval: requireApproval, ApprovalExpiresInSeconds: expiresIn}, idemOpts(idemKey)...)
	// A run awaiting approval gets a hint naming the approval, where progress goes (stderr with --json).
	hint := ""
	if resp.OK {
		hint = approvalHint(resp.Body.Run)
	}
	if wait && resp.OK {
		if hint != "" {
			fmt.Fprintln(a.progress(), hint)
		}
		return a.waitRun(c, resp, interval)
	}
	code = answer(a, resp, func(r client.Response[client.RunEnvelope]) { a.printRun(r.Body.Run, r.Replayed) })
	if hint != "" {
		if !a.g.json {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprintln(a.progress(), hint)
	}
	return code
}

// runsGetHelp is the help of "svc runs get".
const runsGetHelp = `Usage: svc runs get ID [--wait] [--interval D]

Shows a run (scope runs:read). Runs created with a project selected are visible only with that project.

  --wait         follow the run until it finishes, printing each status change;
                 a failed or cancelled run then exits 1
  --interval D   poll interval with --wait (default 1s)

` + globalFlagsHelp

// runsGet shows a run and, with --wait, follows it until it finishes.
func (a *app) runsGet(args []string) int {
	const cmd = "runs get"
	var (
		wait     bool
		interval time.Duration
	)
	fs := a.commandFlags(cmd, nil)
	fs.BoolVar(&wait, "wait", false, "wait until the run finishes, showing status changes")
	fs.DurationVar(&interval, "interval", time.Second, "poll interval with --wait")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "run", blank: true}, fs, args)
	if !ok {
		return code
	}
	if interval <= 0 {
		return a.usageError(cmd, "--interval must be positive")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.GetRun(a.ctx, id)
	if wait && resp.OK {
		return a.waitRun(c, resp, interval)
	}
	return answer(a, resp, func(r client.Response[client.RunEnvelope]) { a.printRun(r.Body.Run, false) })
}

// runStatuses are the statuses a run may have, for the --status filter of runs list.
var runStatuses = []string{client.RunQueued, client.RunRunning, client.RunAwaitingApproval,
	client.RunSucceeded, client.RunFailed, client.RunCancelled}

// runsListHelp is the help of "svc runs list".
const runsListHelp = `Usage: svc runs list [--status S] [--service ID] [--operation ID] [--automation ID] [--from TIME]
                     [--to TIME] [--limit N] [--cursor C] [--all]

Lists runs, newest first (scope runs:read). With a project selected only that project's runs are shown,
without one only the runs made outside any project; runs of services the key may not use are left out.

  --status S       only runs in status S: queued, running, awaiting_approval, succeeded, failed or
                   cancelled
  --service ID     only runs of this service, e.g. managed-workflows
  --operation ID   only runs of this operation, e.g. sleep
  --automation ID  only runs the automation ID started (auto_...)
  --from TIME      runs created at or after TIME: RFC 3339 in whole seconds (2026-01-02T15:04:05Z), or a
                   day (2026-01-02, midnight UTC)
  --to TIME        runs created before TIME (exclusive), same forms as --from
  --limit N        page size 1..200 (default 50)
  --cursor C       the nextCursor of the previous page (repeat the same filters)
  --all            follow nextCursor through every page

` + globalFlagsHelp

// runsList lists runs, newest first, with filters.
func (a *app) runsList(args []string) int {
	const cmd = "runs list"
	fs := a.commandFlags(cmd, nil)
	var (
		pf                                     pageFlags
		status, service, operation, automation string
		fromS, toS                             string
	)
	fs.StringVar(&status, "status", "", "only runs in this status")
	fs.StringVar(&service, "service", "", "only runs of this service id")
	fs.StringVar(&operation, "operation", "", "only runs of this operation id")
	fs.StringVar(&automation, "automation", "", "only runs this automation started")
	fs.StringVar(&fromS, "from", "", "runs created at or after this RFC 3339 time")
	fs.StringVar(&toS, "to", "", "runs created before this RFC 3339 time")
	if code, ok := a.parsePaged(cmd, fs, &pf, args); !ok {
		return code
	}
	if status != "" && !slices.Contains(runStatuses, status) {
		return a.usageError(cmd, "--status must be one of %s, not %q", strings.Join(runStatuses, ", "), status)
	}
	from, to, err := parseRange(fromS, toS)
	if err != nil {
		return a.usageError(cmd, "%v", err)
	}
	runs, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.RunList] {
			return c.ListRuns(a.ctx, client.ListRunsParams{ListParams: p, Status: status, ServiceID: service,
				OperationID: operation, AutomationID: automation, From: from, To: to})
		},
		func(l client.RunList) ([]client.Run, *string) { return l.Runs, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.RunList{OK: true, Runs: orEmpty(runs), NextCursor: next}, len(runs), "No runs.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "ID\tSTATUS\tSERVICE\tOPERATION\tCREATED\tCREDITS")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Status, r.ServiceID, r.OperationID,
			r.CreatedAt.UTC().Format(time.RFC3339), formatCredits(r.ChargedCredits))
	}
	_ = tw.Flush()
	var filters []string
	for _, f := range []struct{ flag, val string }{
		{"--status", status}, {"--service", service}, {"--operation", operation},
		{"--automation", automation}, {"--from", fromS}, {"--to", toS},
	} {
		if f.val != "" {
			filters = append(filters, f.flag, shellQuote(f.val))
		}
	}
	if pf.limit != 0 {
		filters = append(filters, "--limit", strconv.Itoa(pf.limit))
	}
	a.moreHint("runs", cmd, filters, next)
	return exitOK
}

// runsCancelHelp is the help of "svc runs cancel".
const runsCancelHelp = `Usage: svc runs cancel ID [--idempotency-key K]

Requests the cancellation of the run ID (scope runs:write and access to its service) and shows the run.
It usually still shows running: its workflow stops the operation and ends it cancelled moments later,
which "svc runs watch ID" follows. A run that has already finished cannot be cancelled (conflict, exit 1).

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// runsCancel requests a run's cancellation and shows the run as the API answered it.
func (a *app) runsCancel(args []string) int {
	return oneID(a, idSpec{cmd: "runs cancel", what: "run", idem: true, blank: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.RunEnvelope] {
			return c.CancelRun(a.ctx, id, opts...)
		},
		func(r client.Response[client.RunEnvelope]) {
			run := r.Body.Run
			line := "Cancellation requested for run " + run.ID
			if r.Replayed {
				line += " [replayed answer]"
			}
			fmt.Fprintln(a.stdout, line)
			if !run.Finished() {
				fmt.Fprintf(a.stdout, "It ends cancelled shortly; follow it with: svc runs watch %s\n", run.ID)
			}
			fmt.Fprintln(a.stdout)
			a.printRun(run, false)
		})
}

// runsWatchHelp is the help of "svc runs watch".
const runsWatchHelp = `Usage: svc runs watch ID [--interval D]

Follows the run ID (scope runs:read) until it finishes: one line per status change as it happens, then
the finished run (with --json, the changes go to stderr and the final envelope to stdout). Stopping the
command (Ctrl-C) does not affect the run.

  --interval D   poll interval (default 1s)

Exit status: 0 when the run succeeded; 1 when it failed or was cancelled (the reason goes to stderr), or
when the API refused the call; 2 for a usage error.

` + globalFlagsHelp

// runsWatch follows a run until it finishes, one line per status change, then shows it. A failed or
// cancelled run exits 1, as runs get --wait does.
func (a *app) runsWatch(args []string) int {
	const cmd = "runs watch"
	var interval time.Duration
	fs := a.commandFlags(cmd, nil)
	fs.DurationVar(&interval, "interval", time.Second, "poll interval")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "run", blank: true}, fs, args)
	if !ok {
		return code
	}
	if interval <= 0 {
		return a.usageError(cmd, "--interval must be positive")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	first := c.GetRun(a.ctx, id)
	if !first.OK {
		return apiFailure(a, first)
	}
	return a.waitRun(c, first, interval)
}

// waitRun follows a run from its first answer until it finishes, printing each status change (to stdout,
// or to stderr in --json mode, where stdout gets only the final envelope). A failed or cancelled run
// exits 1.
func (a *app) waitRun(c *client.Client, first client.Response[client.RunEnvelope], interval time.Duration) int {
	progress := a.stdout
	if a.g.json {
		progress = a.stderr
	}
	run := first.Body.Run
	start := time.Now()
	fmt.Fprintf(progress, "%s  %s.%s  %s\n", run.ID, run.ServiceID, run.OperationID, run.Status)
	last := first
	if !run.Finished() {
		status := run.Status
		last = c.WatchRun(a.ctx, run.ID, interval, func(r client.Response[client.RunEnvelope]) {
			if r.OK && r.Body.Run.Status != status {
				status = r.Body.Run.Status
				fmt.Fprintf(progress, "%s  %s  (%s)\n", run.ID, status, time.Since(start).Round(100*time.Millisecond))
			}
		})
	}
	if !last.OK {
		return apiFailure(a, last)
	}
	run = last.Body.Run
	if !run.Finished() {
		return a.localError("wait_interrupted", fmt.Sprintf("stopped waiting; run %s is still %s", run.ID, run.Status))
	}
	if a.g.json {
		a.printRaw(last.Raw)
	} else {
		fmt.Fprintln(a.stdout)
		a.printRun(run, false)
	}
	if run.Status != client.RunSucceeded {
		msg := "run " + run.ID + " " + run.Status
		if reason := runReason(run); reason != "" {
			msg += ": " + reason
		}
		fmt.Fprintln(a.stderr, "error: "+msg)
		return exitAPI
	}
	return exitOK
}

// runReason is what a finished run's error adds to its status: "<code>: <message>", without the code
// when it is the status and without the message when it only says the status again; "" when the error
// adds nothing (a cancelled run's "cancelled: the run was cancelled").
func runReason(r client.Run) string {
	if r.Error == nil {
		return ""
	}
	code, msg := r.Error.Code, r.Error.Message
	if code == r.Status {
		code = ""
	}
	switch strings.TrimSuffix(strings.ToLower(strings.TrimSpace(msg)), ".") {
	case "", r.Status, "run " + r.Status, "the run was " + r.Status, "the run " + r.Status:
		msg = ""
	}
	switch {
	case code != "" && msg != "":
		return code + ": " + msg
	case code != "":
		return code
	}
	return msg
}

// progress is where hints go, as waitRun's status changes do: stdout, or stderr in --json mode, where
// stdout gets only the envelope.
func (a *app) progress() io.Writer {
	if a.g.json {
		return a.stderr
	}
	return a.stdout
}

// printRun shows a run as aligned lines.
func (a *app) printRun(r client.Run, replayed bool) {
	tw := a.table()
	id := r.ID
	if replayed {
		id += "  [replayed answer]"
	}
	fmt.Fprintf(tw, "Run:\t%s\n", id)
	fmt.Fprintf(tw, "Service:\t%s\n", r.ServiceID)
	fmt.Fprintf(tw, "Operation:\t%s\n", r.OperationID)
	fmt.Fprintf(tw, "Status:\t%s\n", r.Status)
	if r.ApprovalID != nil {
		fmt.Fprintf(tw, "Approval:\t%s\n", *r.ApprovalID)
	}
	if r.AutomationID != nil {
		fmt.Fprintf(tw, "Automation:\t%s\n", *r.AutomationID)
	}
	fmt.Fprintf(tw, "Created:\t%s\n", r.CreatedAt.UTC().Format(time.RFC3339))
	if r.CompletedAt != nil {
		fmt.Fprintf(tw, "Completed:\t%s  (%s)\n", r.CompletedAt.UTC().Format(time.RFC3339), r.CompletedAt.Sub(r.CreatedAt).Round(time.Millisecond))
	}
	fmt.Fprintf(tw, "Charged:\t%g credits\n", r.ChargedCredits)
	fmt.Fprintf(tw, "Input:\t%s\n", compactJSON(r.Input))
	if r.Output != nil {
		fmt.Fprintf(tw, "Output:\t%s\n", compactJSON(r.Output))
	}
	if reason := runReason(r); reason != "" {
		fmt.Fprintf(tw, "Error:\t%s\n", reason)
	}
	_ = tw.Flush()
}
