package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// handoffHelp is the help of "svc handoff".
const handoffHelp = `Usage: svc handoff <send|task|plan|get|list> [flags]

Handoffs through the platform (seed 001's handoff CLI, POST /api/handoff, scope runs:write): the
platform resolves a machine name against the machine cards in its vault (exact id, host, a prefix of
either, or a near miss; an ambiguous name lists the candidates), selects the receiving agent by worker
class, writes the vault transfer from its worker (workflow handoff/<id>) and waits for the receiver's
ack. The files are absolute paths on the machine that holds the platform's vault (SVC_VAULT).

  handoff send   send files (and with --task, a task) to a machine
  handoff task   send a task to the best agent of a machine
  handoff plan   resolve the machine and the agent, sending nothing
  handoff get    show a handoff: status, transfer id, acks
  handoff list   list the account's handoffs, newest first

Run "svc handoff <command> --help" for details.`

// handoffCommands are the commands of handoffs, "svc handoff ...".
func handoffCommands() []command {
	return []command{
		{name: "handoff", help: handoffHelp},
		{name: "handoff send", args: "FILE...", run: (*app).handoffSend, help: handoffSendHelp,
			brief: "send files (and a task) to a machine through the platform's vault"},
		{name: "handoff task", args: "TEXT...", run: (*app).handoffTask, help: handoffTaskHelp,
			brief: "send a task to the best agent of a machine"},
		{name: "handoff plan", run: (*app).handoffPlan, help: handoffPlanHelp,
			brief: "resolve a machine name and the receiving agent, without side effects"},
		{name: "handoff get", args: "HANDOFF_ID", run: (*app).handoffGet, help: handoffGetHelp,
			brief: "show a handoff: status, transfer id, acks"},
		{name: "handoff list", run: (*app).handoffList, help: handoffListHelp,
			brief: "list the account's handoffs, newest first"},
	}
}

const handoffFollowHelp = `  --note TEXT        context for the receiver (never a secret)
  --ack-timeout D    how long the handoff waits for an ack before it expires (default 24h)
  --wait             wait until the handoff is acknowledged or expired (exit 1 when expired)
  --timeout D        stop waiting after D (default 30s without --wait, 24h with it); the handoff goes on
  --idempotency-key  Idempotency-Key to send (default: random)
`

const handoffSendHelp = `Usage: svc handoff send --to NAME [--task TEXT] [--note TEXT] [--wait] FILE...

Sends the files to the machine NAME resolves to (send-file); with --task also hands the task to its
best agent (send-file-task). Prints the resolved machine, the agent, the worker class and, once the
platform's worker has written it, the transfer id.

  --to NAME          the machine: id, host, a prefix of either, or a near miss (required)
  --task TEXT        a task for the receiving agent
` + handoffFollowHelp + "\n" + globalFlagsHelp

const handoffTaskHelp = `Usage: svc handoff task --to NAME [--note TEXT] [--wait] TEXT...

Hands the task TEXT to the best agent of the machine NAME resolves to (send-task): it travels as the
transfer's HANDOFF-TASK.md with the inbox and ack instructions.

  --to NAME          the machine (required)
` + handoffFollowHelp + "\n" + globalFlagsHelp

const handoffPlanHelp = `Usage: svc handoff plan --to NAME [--task TEXT]

Resolves the machine and selects the agent (and its worker class) for the task, sending nothing.

  --to NAME          the machine (required)
  --task TEXT        the task the agent would get

` + globalFlagsHelp

const handoffGetHelp = `Usage: svc handoff get HANDOFF_ID

Shows one of the account's handoffs (GET /v1/handoffs/{handoffId}, scope runs:read).

` + globalFlagsHelp

const handoffListHelp = `Usage: svc handoff list [--limit N] [--cursor C]

Lists the account's handoffs, newest first (GET /v1/handoffs, scope runs:read).

` + globalFlagsHelp

// handoffFlags are the flags a sending handoff command shares.
type handoffFlags struct {
	to, task, note, idemKey string
	ackTimeout, timeout     time.Duration
	wait                    bool
}

func (f *handoffFlags) register(fs *flag.FlagSet, withTask bool) {
	fs.StringVar(&f.to, "to", "", "the machine")
	if withTask {
		fs.StringVar(&f.task, "task", "", "a task for the receiving agent")
	}
	fs.StringVar(&f.note, "note", "", "context for the receiver")
	fs.DurationVar(&f.ackTimeout, "ack-timeout", 0, "how long to wait for an ack")
	fs.BoolVar(&f.wait, "wait", false, "wait for the ack")
	fs.DurationVar(&f.timeout, "timeout", 0, "how long to follow")
}

// request is the body the flags make for action.
func (f *handoffFlags) request(action string, files []string) client.HandoffRequest {
	return client.HandoffRequest{Action: action, Target: f.to, Files: files, Task: f.task, Note: f.note,
		AckTimeoutSeconds: int(f.ackTimeout / time.Second)}
}

// check names what is wrong with the flags, or "".
func (f *handoffFlags) check() string {
	switch {
	case strings.TrimSpace(f.to) == "":
		return "--to is required: the machine to hand off to"
	case f.ackTimeout < 0 || f.ackTimeout > 0 && f.ackTimeout < time.Second || f.ackTimeout > 7*24*time.Hour:
		return "--ack-timeout must be between 1s and 168h"
	case f.timeout < 0:
		return "--timeout must be positive"
	}
	return ""
}

// handoffSend sends files, and with --task a task.
func (a *app) handoffSend(args []string) int {
	const cmd = "handoff send"
	var f handoffFlags
	fs := a.commandFlags(cmd, &f.idemKey)
	f.register(fs, true)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if msg := f.check(); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	if len(pos) == 0 {
		return a.usageError(cmd, "name at least one file to send")
	}
	files := make([]string, len(pos))
	for i, p := range pos {
		abs, err := filepath.Abs(p)
		if err != nil {
			return a.usageError(cmd, "file %q: %v", p, err)
		}
		files[i] = abs
	}
	action := client.HandoffSendFile
	if f.task != "" {
		action = client.HandoffSendFileTask
	}
	return a.sendHandoff(f.request(action, files), f)
}

// handoffTask sends a task.
func (a *app) handoffTask(args []string) int {
	const cmd = "handoff task"
	var f handoffFlags
	fs := a.commandFlags(cmd, &f.idemKey)
	f.register(fs, false)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if msg := f.check(); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	f.task = strings.TrimSpace(strings.Join(pos, " "))
	if f.task == "" {
		return a.usageError(cmd, "state the task: svc handoff task --to NAME TEXT")
	}
	return a.sendHandoff(f.request(client.HandoffSendTask, nil), f)
}

// handoffPlan resolves without side effects.
func (a *app) handoffPlan(args []string) int {
	const cmd = "handoff plan"
	var f handoffFlags
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&f.to, "to", "", "the machine")
	fs.StringVar(&f.task, "task", "", "the task")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if msg := f.check(); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.Handoff(a.ctx, f.request(client.HandoffPlan, nil)), func(r client.Response[client.HandoffEnvelope]) {
		a.printHandoffPlan(r.Body.Plan)
	})
}

// handoffGet shows one handoff.
func (a *app) handoffGet(args []string) int {
	return oneID(a, idSpec{cmd: "handoff get", what: "handoff"}, args,
		func(c *client.Client, id string, _ []client.CallOption) client.Response[client.HandoffReadEnvelope] {
			return c.GetHandoff(a.ctx, id)
		},
		func(r client.Response[client.HandoffReadEnvelope]) { a.printHandoff(r.Body.Handoff) })
}

// handoffList lists the account's handoffs.
func (a *app) handoffList(args []string) int {
	const cmd = "handoff list"
	var pf pageFlags
	fs := a.commandFlags(cmd, nil)
	if code, ok := a.parsePaged(cmd, fs, &pf, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.Handoffs(a.ctx, client.ListParams{Limit: pf.limit, Cursor: pf.cursor}), func(r client.Response[client.HandoffList]) {
		w := a.table()
		fmt.Fprintln(w, "ID\tACTION\tSTATUS\tMACHINE\tAGENT\tTRANSFER\tCREATED")
		for _, h := range r.Body.Handoffs {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", h.ID, h.Action, h.Status, h.Machine, orDefault(h.AgentID, "-"),
				orDefault(deref(h.TransferID), "-"), h.CreatedAt.Format(time.RFC3339))
		}
		_ = w.Flush()
		if r.Body.NextCursor != nil {
			fmt.Fprintf(a.stdout, "More: --cursor %s\n", *r.Body.NextCursor)
		}
	})
}

// sendHandoff sends req and follows the handoff: until its transfer is written, or with --wait until it
// is acknowledged or expired.
func (a *app) sendHandoff(req client.HandoffRequest, f handoffFlags) int {
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	r := c.Handoff(a.ctx, req, idemOpts(f.idemKey)...)
	if !r.OK {
		return apiFailure(a, r)
	}
	if !a.g.json {
		a.printHandoffPlan(r.Body.Plan)
	}
	h, code := a.followHandoff(c, *r.Body.Handoff, f)
	if a.g.json {
		a.printJSON(client.HandoffReadEnvelope{OK: h.Status != client.HandoffFailed && h.Status != client.HandoffExpired, Handoff: h})
	} else {
		a.printHandoff(h)
	}
	return code
}

// followHandoff polls the handoff until it is settled enough for f.
func (a *app) followHandoff(c *client.Client, h client.Handoff, f handoffFlags) (client.Handoff, int) {
	timeout := f.timeout
	if timeout == 0 {
		timeout = 30 * time.Second
		if f.wait {
			timeout = 24 * time.Hour
		}
	}
	done := func(h client.Handoff) bool {
		final := h.Status == client.HandoffAcknowledged || h.Status == client.HandoffExpired || h.Status == client.HandoffFailed
		return final || !f.wait && h.TransferID != nil
	}
	deadline := time.Now().Add(timeout)
	for !done(h) && time.Now().Before(deadline) {
		select {
		case <-a.ctx.Done():
			return h, a.localError("interrupted", "stopped following handoff "+h.ID+"; it goes on (svc handoff get "+h.ID+")")
		case <-time.After(200 * time.Millisecond):
		}
		r := c.GetHandoff(a.ctx, h.ID)
		if !r.OK {
			return h, apiFailure(a, r)
		}
		h = r.Body.Handoff
	}
	switch {
	case h.Status == client.HandoffFailed || h.Status == client.HandoffExpired:
		fmt.Fprintf(a.stderr, "error: handoff %s %s%s\n", h.ID, h.Status, errSuffix(h.Error))
		return h, exitAPI
	case !done(h):
		fmt.Fprintf(a.stderr, "handoff %s still %s after %s; it goes on (svc handoff get %s)\n", h.ID, h.Status, timeout, h.ID)
	}
	return h, exitOK
}

func errSuffix(e *string) string {
	if e == nil {
		return ""
	}
	return ": " + *e
}

// printHandoffPlan prints the planner's fields.
func (a *app) printHandoffPlan(p client.HandoffPlanResult) {
	w := a.table()
	host := ""
	if p.Machine.Host != "" {
		host = " (host " + p.Machine.Host + ")"
	}
	fmt.Fprintf(w, "Machine:\t%s%s, matched by %s\n", p.Machine.MachineID, host, p.Machine.MatchedBy)
	if p.Agent != nil {
		fmt.Fprintf(w, "Agent:\t%s (runtime %s)\n", p.Agent.ID, p.Agent.Runtime)
	} else {
		fmt.Fprintln(w, "Agent:\tnone on the machine's card")
	}
	fmt.Fprintf(w, "Worker class:\t%s\n", p.WorkerClass)
	_ = w.Flush()
	if p.RemoteTaskPreview != "" {
		fmt.Fprintf(a.stdout, "Task preview:\n%s\n", p.RemoteTaskPreview)
	}
}

// printHandoff prints a recorded handoff.
func (a *app) printHandoff(h client.Handoff) {
	w := a.table()
	fmt.Fprintf(w, "Handoff:\t%s (%s)\n", h.ID, h.Action)
	fmt.Fprintf(w, "Status:\t%s\n", h.Status)
	fmt.Fprintf(w, "Transfer:\t%s\n", orDefault(deref(h.TransferID), "(not written yet)"))
	for _, ack := range h.Acks {
		fmt.Fprintf(w, "Ack:\t%s %s %s at %s (%d file(s) verified)\n", orDefault(ack.MachineID, ack.Host), orDefault(ack.Runtime, "-"), orDefault(ack.AgentID, "-"),
			ack.AckedAt, len(ack.Verified))
	}
	if h.Error != nil {
		fmt.Fprintf(w, "Error:\t%s\n", *h.Error)
	}
	_ = w.Flush()
}
