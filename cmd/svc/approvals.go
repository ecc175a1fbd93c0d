package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// Approval kinds, as the API names them.
const (
	approvalKindRun           = "run"
	approvalKindServiceAction = "service_action"
)

// approvalStatuses are the statuses an approval may have, for the --status filter of approvals list.
var approvalStatuses = []string{client.ApprovalPending, client.ApprovalApproved, client.ApprovalRejected,
	client.ApprovalExpired, client.ApprovalCancelled}

// approvalsHelp is the help of "svc approvals".
const approvalsHelp = `Usage: svc approvals <list|approve|reject|request> [flags]

Approvals gate actions until a key holding approvals:write decides: a run created with
--require-approval (or whose operation the catalog marks as needing approval) waits in
awaiting_approval, and a service action asked for with "approvals request" runs once approved. An
approval nobody decides expires (default after 24 h, at most 7 days).

  approvals list      list approvals, newest first, by status, service and run
  approvals approve   approve a pending approval: its run continues
  approvals reject    reject a pending approval: its run fails with approval_rejected
  approvals request   ask for approval of a service action, which runs as a run once approved

Run "svc approvals <command> --help" for details.`

// approvalsCommands are the commands of approvals, "svc approvals ...".
func approvalsCommands() []command {
	return []command{
		{name: "approvals", help: approvalsHelp},
		{name: "approvals list", run: (*app).approvalsList, help: approvalsListHelp,
			brief: "list approvals, by status, service and run"},
		{name: "approvals approve", run: (*app).approvalsApprove, help: approvalsApproveHelp,
			brief: "approve a pending approval: its run continues"},
		{name: "approvals reject", run: (*app).approvalsReject, help: approvalsRejectHelp,
			brief: "reject a pending approval: its run fails"},
		{name: "approvals request", run: (*app).approvalsRequest, help: approvalsRequestHelp,
			brief: "ask for approval of a service action"},
	}
}

// approvalsListHelp is the help of "svc approvals list".
const approvalsListHelp = `Usage: svc approvals list [--status S] [--service ID] [--run RUN_ID] [--limit N] [--cursor C] [--all]

Lists the approvals of the selected project (or of none), newest first (scope approvals:read).
Approvals of services the key may not use are left out. ACTION is service.operation; RUN is the run the
approval gates, or the run an approved service action started ("-" when none yet).

  --status S     only approvals in status S: pending, approved, rejected, expired or cancelled
  --service ID   only approvals of this service, e.g. managed-workflows
  --run RUN_ID   only the approval of this run
  --limit N      page size 1..200 (default 50)
  --cursor C     the nextCursor of the previous page (repeat the same filters)
  --all          follow nextCursor through every page

` + globalFlagsHelp

// approvalsList lists approvals, newest first, with filters.
func (a *app) approvalsList(args []string) int {
	const cmd = "approvals list"
	flags := a.commandFlags(cmd, nil)
	var (
		pf                     pageFlags
		status, service, runID string
	)
	flags.StringVar(&status, "status", "", "only approvals in this status")
	flags.StringVar(&service, "service", "", "only approvals of this service id")
	flags.StringVar(&runID, "run", "", "only the approval of this run")
	if code, ok := a.parsePaged(cmd, flags, &pf, args); !ok {
		return code
	}
	given := flagsGiven(flags)
	switch {
	case status != "" && !slices.Contains(approvalStatuses, status):
		return a.usageError(cmd, "--status must be one of %s, not %q", strings.Join(approvalStatuses, ", "), status)
	case given["service"] && strings.TrimSpace(service) == "":
		return a.usageError(cmd, "--service must not be empty")
	case given["run"] && strings.TrimSpace(runID) == "":
		return a.usageError(cmd, "--run must not be empty")
	}
	items, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.ApprovalList] {
			return c.ListApprovals(a.ctx, client.ListApprovalsParams{ListParams: p, Status: status, ServiceID: service, RunID: runID})
		},
		func(l client.ApprovalList) ([]client.Approval, *string) { return l.Approvals, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.ApprovalList{OK: true, Approvals: orEmpty(items), NextCursor: next}, len(items), "No approvals.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "ID\tSTATUS\tKIND\tACTION\tRUN\tREQUESTED_BY\tEXPIRES")
	for _, it := range items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", it.ID, it.Status, it.Kind, it.ServiceID+"."+it.OperationID,
			orDash(deref(it.RunID)), it.RequestedBy, it.ExpiresAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
	var filters []string
	for _, f := range []struct{ flag, val string }{{"--status", status}, {"--service", service}, {"--run", runID}} {
		if f.val != "" {
			filters = append(filters, f.flag, shellQuote(f.val))
		}
	}
	if pf.limit != 0 {
		filters = append(filters, "--limit", strconv.Itoa(pf.limit))
	}
	a.moreHint("approvals", cmd, filters, next)
	return exitOK
}

// approvalsApproveHelp is the help of "svc approvals approve".
const approvalsApproveHelp = `Usage: svc approvals approve APPROVAL_ID [--comment TEXT] [--idempotency-key K]

Approves the pending approval APPROVAL_ID (scope approvals:write and access to its service) and shows
it, recording which key decided. The run it gates continues within moments ("svc runs watch RUN_ID"
follows it); an approved service action starts its run. The decision is durable: it is delivered even
while no worker is running.

  --comment TEXT        a comment shown with the decision (at most 1000 characters)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

Exit status: 0 when approved; 1 when the API refused, e.g. "conflict" for an approval already decided,
expired or cancelled, or "not_found" for an unknown one; 2 for a usage error.

` + globalFlagsHelp

// approvalsApprove approves a pending approval.
func (a *app) approvalsApprove(args []string) int {
	return a.approvalsDecide(args, client.DecisionApprove)
}

// approvalsRejectHelp is the help of "svc approvals reject".
const approvalsRejectHelp = `Usage: svc approvals reject APPROVAL_ID [--comment TEXT] [--idempotency-key K]

Rejects the pending approval APPROVAL_ID (scope approvals:write and access to its service) and shows it,
recording which key decided. The run it gates fails with the error code approval_rejected; a rejected
service action never runs.

  --comment TEXT        a comment shown with the decision (at most 1000 characters)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

Exit status: 0 when rejected; 1 when the API refused, e.g. "conflict" for an approval already decided,
expired or cancelled, or "not_found" for an unknown one; 2 for a usage error.

` + globalFlagsHelp

// approvalsReject rejects a pending approval.
func (a *app) approvalsReject(args []string) int {
	return a.approvalsDecide(args, client.DecisionReject)
}

// approvalsDecide approves or rejects a pending approval (decision is client.DecisionApprove or
// client.DecisionReject) and shows it as decided.
func (a *app) approvalsDecide(args []string, decision string) int {
	cmd := "approvals " + decision
	var comment, idemKey string
	flags := a.commandFlags(cmd, &idemKey)
	flags.StringVar(&comment, "comment", "", "a comment shown with the decision")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "approval", idem: true}, flags, args)
	if !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.DecideApproval(a.ctx, id, client.DecideApprovalRequest{Decision: decision, Comment: comment}, idemOpts(idemKey)...)
	return answer(a, resp, func(r client.Response[client.ApprovalEnvelope]) {
		apr := r.Body.Approval
		title := map[string]string{client.ApprovalApproved: "Approved", client.ApprovalRejected: "Rejected"}[apr.Status]
		if title == "" {
			title = "Decided"
		}
		fmt.Fprintln(a.stdout, titleLine(title, apr.ID, "", r.Replayed))
		fmt.Fprintln(a.stdout)
		a.printApproval(apr)
		if hint := decidedHint(apr); hint != "" {
			fmt.Fprintln(a.stdout)
			fmt.Fprintln(a.stdout, hint)
		}
	})
}

// decidedHint says what happens next to a decided approval's action, or "" when nothing does.
func decidedHint(apr client.Approval) string {
	switch {
	case apr.Kind == approvalKindRun && apr.RunID != nil && apr.Status == client.ApprovalApproved:
		return "Run " + *apr.RunID + " continues; follow it with: svc runs watch " + *apr.RunID
	case apr.Kind == approvalKindRun && apr.RunID != nil && apr.Status == client.ApprovalRejected:
		return "Run " + *apr.RunID + " fails with approval_rejected."
	case apr.Kind == approvalKindServiceAction && apr.Status == client.ApprovalApproved:
		return "The action starts as a run shortly; its run id appears in: svc approvals list --status approved"
	}
	return ""
}

// approvalsRequestHelp is the help of "svc approvals request".
const approvalsRequestHelp = `Usage: svc approvals request --service ID --operation ID [--input JSON | --input-file F]
                           [--reason TEXT] [--expires-in D] [--idempotency-key K]

Asks for approval of a service action (scope approvals:write and access to the service) and shows the
pending approval. Once a key holding approvals:write approves it, the action runs as a run whose id the
approval then carries ("svc approvals list --status approved" shows it), e.g.
  svc approvals request --service managed-workflows --operation echo --input '{"n":1}' --reason nightly

  --service ID          service id (required)
  --operation ID        operation id (required)
  --input JSON          the input, a JSON object (default {})
  --input-file F        read the input from file F (- for stdin)
  --reason TEXT         why the action is needed, shown to approvers (at most 1000 characters)
  --expires-in D        how long the approval waits: a duration such as 90m or 48h, or whole seconds
                        such as 3600 (default 24h, at most 168h = 7 days)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// approvalsRequest asks for approval of a service action.
func (a *app) approvalsRequest(args []string) int {
	const cmd = "approvals request"
	var (
		service, operation, reason, expiresIn, idemKey string
		input                                          inputFlags
	)
	flags := a.commandFlags(cmd, &idemKey)
	flags.StringVar(&service, "service", "", "service id")
	flags.StringVar(&operation, "operation", "", "operation id")
	input.register(flags)
	flags.StringVar(&reason, "reason", "", "why the action is needed, shown to approvers")
	flags.StringVar(&expiresIn, "expires-in", "", "how long the approval waits: a duration (48h) or seconds")
	if code, ok := a.parseNone(cmd, flags, args); !ok {
		return code
	}
	switch {
	case strings.TrimSpace(service) == "":
		return a.usageError(cmd, "--service is required")
	case strings.TrimSpace(operation) == "":
		return a.usageError(cmd, "--operation is required")
	case input.both():
		return a.usageError(cmd, msgInputBoth)
	}
	seconds, err := parseSeconds("expires-in", expiresIn, flagsGiven(flags)["expires-in"])
	if err != nil {
		return a.usageError(cmd, "%v", err)
	}
	in, code, ok := input.read(a, cmd)
	if !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.RequestServiceAction(a.ctx, client.CreateServiceActionRequest{ServiceID: service, OperationID: operation,
		Input: in, Reason: reason, ExpiresInSeconds: seconds}, idemOpts(idemKey)...)
	return answer(a, resp, func(r client.Response[client.ApprovalEnvelope]) {
		apr := r.Body.Approval
		fmt.Fprintln(a.stdout, titleLine("Requested approval", apr.ID, "", r.Replayed))
		fmt.Fprintln(a.stdout)
		a.printApproval(apr)
		if apr.Status == client.ApprovalPending {
			fmt.Fprintln(a.stdout)
			fmt.Fprintf(a.stdout, "A key holding approvals:write decides with: svc approvals approve %s (or reject)\n", apr.ID)
		}
	})
}

// approvalHint is the line that tells how to decide a run's pending approval, or "" when the run does not
// await one.
func approvalHint(r client.Run) string {
	if r.Status != client.RunAwaitingApproval || r.ApprovalID == nil {
		return ""
	}
	return fmt.Sprintf("Run %s awaits approval %s; a key holding approvals:write approves it with: svc approvals approve %s",
		r.ID, *r.ApprovalID, *r.ApprovalID)
}

// printApproval shows an approval as aligned lines.
func (a *app) printApproval(apr client.Approval) {
	tw := a.table()
	fmt.Fprintf(tw, "Approval:\t%s\n", apr.ID)
	fmt.Fprintf(tw, "Status:\t%s\n", apr.Status)
	fmt.Fprintf(tw, "Kind:\t%s\n", apr.Kind)
	fmt.Fprintf(tw, "Action:\t%s.%s\n", apr.ServiceID, apr.OperationID)
	if apr.RunID != nil {
		fmt.Fprintf(tw, "Run:\t%s\n", *apr.RunID)
	}
	fmt.Fprintf(tw, "Input:\t%s\n", compactJSON(apr.Input))
	if apr.Reason != nil {
		fmt.Fprintf(tw, "Reason:\t%s\n", oneLine(*apr.Reason, 0))
	}
	fmt.Fprintf(tw, "Requested by:\t%s\n", apr.RequestedBy)
	fmt.Fprintf(tw, "Created:\t%s\n", apr.CreatedAt.UTC().Format(time.RFC3339))
	expires := apr.ExpiresAt.UTC().Format(time.RFC3339)
	if apr.Status == client.ApprovalPending {
		if left := time.Until(apr.ExpiresAt); left > 0 {
			expires += "  (in " + left.Round(time.Second).String() + ")"
		}
	}
	fmt.Fprintf(tw, "Expires:\t%s\n", expires)
	if apr.DecidedBy != nil {
		fmt.Fprintf(tw, "Decided by:\t%s\n", *apr.DecidedBy)
	}
	if apr.DecidedAt != nil {
		fmt.Fprintf(tw, "Decided:\t%s\n", apr.DecidedAt.UTC().Format(time.RFC3339))
	}
	if apr.Comment != nil {
		fmt.Fprintf(tw, "Comment:\t%s\n", oneLine(*apr.Comment, 0))
	}
	_ = tw.Flush()
}
