package main

import (
	"encoding/json"
	"fmt"

	"github.com/svcplatform/svc/client"
)

const appsRunHelp = `Usage: svc apps run SLUG SCRIPT [--args JSON]

Runs an app's script as its owner (POST /v1/apps/{slug}/scripts/{name}/run; scope runs:write, service
managed-agents) in the sandboxed engine, workflow appscript/<runId>, and prints its result and log. The
server waits up to 10 s for the run; a longer run is printed queued or running (see "svc apps logs").

  --args JSON        the script's args global (default {})
  --idempotency-key  Idempotency-Key to send (default: random)

` + globalFlagsHelp

const appsLogsHelp = `Usage: svc apps logs SLUG [--run ID]

Lists an app's script runs, newest first (GET /v1/apps/{slug}/runs; scope runs:read), or prints one run
with its result, log and error (--run).

  --run ID   the run (arun_…)

` + globalFlagsHelp

// appRunsCommands are "svc apps run" and "svc apps logs" (the "apps" group's entry is cmd/svc/apps.go's).
func appRunsCommands() []command {
	return []command{
		{name: "apps run", args: "SLUG SCRIPT", run: (*app).appsRun, help: appsRunHelp, brief: "run an app's script as its owner"},
		{name: "apps logs", args: "SLUG", run: (*app).appsLogs, help: appsLogsHelp, brief: "list an app's script runs, or show one"},
	}
}

// appsRun runs a script and prints the run.
func (a *app) appsRun(args []string) int {
	const cmd = "apps run"
	var idemKey, rawArgs string
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&rawArgs, "args", "", "the script's args (JSON)")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 2 || pos[0] == "" || pos[1] == "" {
		return a.usageError(cmd, "apps run takes an app's slug and a script's name")
	}
	if rawArgs != "" && !json.Valid([]byte(rawArgs)) {
		return a.usageError(cmd, "--args is not valid JSON")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.RunAppScript(a.ctx, pos[0], pos[1], client.AppScriptRunRequest{Args: json.RawMessage(rawArgs)}, idemOpts(idemKey)...)
	return answer(a, resp, func(r client.Response[client.AppScriptRunEnvelope]) { a.printAppRun(r.Body.Run) })
}

// appsLogs lists an app's runs, or prints one.
func (a *app) appsLogs(args []string) int {
	const cmd = "apps logs"
	var runID string
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&runID, "run", "", "the run to show")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || pos[0] == "" {
		return a.usageError(cmd, "apps logs takes an app's slug")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	if runID != "" {
		return answer(a, c.GetAppScriptRun(a.ctx, pos[0], runID),
			func(r client.Response[client.AppScriptRunEnvelope]) { a.printAppRun(r.Body.Run) })
	}
	return answer(a, c.ListAppScriptRuns(a.ctx, pos[0], client.ListParams{}), func(r client.Response[client.AppScriptRunList]) {
		w := a.table()
		fmt.Fprintln(w, "ID\tSCRIPT\tTRIGGER\tSTATUS\tCREATED")
		for _, run := range r.Body.Runs {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", run.ID, run.Script, run.Trigger, run.Status, run.CreatedAt.Format("2006-01-02 15:04:05"))
		}
		_ = w.Flush()
	})
}

// printAppRun prints a run: its status, log lines, then its result or error.
func (a *app) printAppRun(r client.AppScriptRun) {
	fmt.Fprintf(a.stdout, "run %s of %s/%s (%s): %s\n", r.ID, r.App, r.Script, r.Trigger, r.Status)
	for _, line := range r.Log {
		fmt.Fprintln(a.stdout, "  log: "+line)
	}
	if r.Error != nil {
		fmt.Fprintln(a.stdout, "error: "+*r.Error)
		return
	}
	if r.Status == client.AppRunSucceeded {
		fmt.Fprintln(a.stdout, string(r.Result))
	}
}
