package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// agentHelp is the help of "svc agent".
const agentHelp = `Usage: svc agent [--thread ID | -c] TEXT...
       svc agent <status|cancel|skills|profile> ...

Asks the platform's agent (POST /v1/agent/jobs; scope runs:write, service managed-agents) and follows the
job (workflow agentjob/<id>): each step is printed as it happens, and a send, signature, order, launch or
fee claim asks for your confirmation on a terminal. With --not-interactive (or SVC_NOT_INTERACTIVE) a
confirmation fails fast: the job keeps waiting, decide it with the approvals of "svc agent status".
A prompt "/handoff-task NAME TEXT" delegates the task through the handoff planner without the model.

  --thread ID        continue this thread
  -c, --continue     continue the most recently used thread
  --timeout D        stop following after D (default 10m); the job goes on
  --idempotency-key  Idempotency-Key to send (default: random)

  agent status JOB_ID   show a job: status, steps, answer, credits
  agent cancel JOB_ID   cancel a job
  agent skills          the skills the agent sees (name, version, visibility, review, description)
  agent profile         what the agent acts with: credits, threads, today's limit

` + globalFlagsHelp

const agentStatusHelp = `Usage: svc agent status JOB_ID

Shows one of the account's agent jobs (GET /v1/agent/jobs/{jobId}, scope runs:read).

` + globalFlagsHelp

const agentCancelHelp = `Usage: svc agent cancel JOB_ID

Cancels an agent job (POST /v1/agent/jobs/{jobId}/cancel, scope runs:write): it ends cancelled.

` + globalFlagsHelp

const agentProfileHelp = `Usage: svc agent profile

Shows what the agent acts with: the account's credits and its threads, newest first, and the daily
message limit (100 prompts per UTC day, 1,000 for Club).

` + globalFlagsHelp

// agentCommands are the commands of agent jobs, "svc agent ...".
func agentCommands() []command {
	return []command{
		{name: "agent", args: "[TEXT...]", run: (*app).agent, help: agentHelp, brief: "ask the platform's agent and follow its steps (status, cancel, skills, profile)"},
	}
}

// agentSubcommands are "svc agent status|cancel|skills|profile": "agent" itself runs, so they are not groups'
// commands of the table; "svc agent <sub> --help" prints their help.
func agentSubcommand(name string) (run func(a *app, args []string) int, help string, ok bool) {
	switch name {
	case "status":
		return (*app).agentStatus, agentStatusHelp, true
	case "cancel":
		return (*app).agentCancel, agentCancelHelp, true
	case "profile":
		return (*app).agentProfile, agentProfileHelp, true
	case "skills":
		return (*app).agentSkills, agentSkillsHelp, true
	}
	return nil, "", false
}

// agent asks the agent, or runs a subcommand named first.
func (a *app) agent(args []string) int {
	if len(args) > 0 {
		if run, help, ok := agentSubcommand(args[0]); ok {
			if len(args) > 1 && (args[1] == "--help" || args[1] == "-h") {
				fmt.Fprintln(a.stdout, help)
				return exitOK
			}
			return run(a, args[1:])
		}
	}
	const cmd = "agent"
	var idemKey, thread string
	var cont bool
	timeout := 10 * time.Minute
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&thread, "thread", "", "the thread to continue")
	fs.BoolVar(&cont, "continue", false, "continue the most recent thread")
	fs.BoolVar(&cont, "c", false, "continue the most recent thread")
	fs.DurationVar(&timeout, "timeout", timeout, "how long to follow")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	text := strings.TrimSpace(strings.Join(pos, " "))
	switch {
	case text == "":
		return a.usageError(cmd, "say what to do: svc agent TEXT")
	case thread != "" && cont:
		return a.usageError(cmd, "--thread and --continue exclude each other")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	if cont {
		list := c.AgentThreads(a.ctx, client.ListParams{Limit: 1})
		if !list.OK {
			return apiFailure(a, list)
		}
		if len(list.Body.Threads) == 0 {
			return a.usageError(cmd, "there is no thread to continue yet")
		}
		thread = list.Body.Threads[0].ID
	}
	started := c.AgentPrompt(a.ctx, client.AgentPromptRequest{Prompt: text, ThreadID: thread}, idemOpts(idemKey)...)
	if !started.OK {
		return apiFailure(a, started)
	}
	fmt.Fprintf(a.stderr, "job %s (thread %s)\n", started.Body.Job.ID, started.Body.Job.ThreadID)
	return a.followAgent(c, started.Body.Job.ID, timeout)
}

// followAgent prints the job's steps as they appear, asks for confirmations, and ends with the answer.
func (a *app) followAgent(c *client.Client, id string, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	printed := map[string]string{}
	asked := map[string]bool{}
	for {
		r := c.AgentJob(a.ctx, id)
		if !r.OK {
			return apiFailure(a, r)
		}
		job := r.Body.Job
		for _, st := range job.Steps {
			if printed[st.ID] == st.Status {
				continue
			}
			printed[st.ID] = st.Status
			if !a.g.json {
				fmt.Fprintln(a.stderr, "  "+stepLine(st))
			}
		}
		switch job.Status {
		case client.AgentJobSucceeded, client.AgentJobFailed, client.AgentJobCancelled:
			if a.g.json {
				a.printJSON(client.AgentJobEnvelope{OK: true, Job: job})
			} else if job.Answer != nil {
				fmt.Fprintln(a.stdout, *job.Answer)
			}
			if job.Status != client.AgentJobSucceeded {
				return a.localError("agent_job_"+job.Status, "job "+id+" "+job.Status+": "+deref(job.Error))
			}
			return exitOK
		case client.AgentJobAwaitingConfirmation:
			for _, st := range job.Steps {
				if st.Kind != "confirmation" || st.Status != "pending" || asked[st.ID] {
					continue
				}
				asked[st.ID] = true
				if code, ok := a.askConfirmation(c, id, st); !ok {
					return code
				}
			}
		}
		if time.Now().After(deadline) {
			return a.localError("timeout", "stopped following job "+id+" (it goes on): svc agent status "+id)
		}
		select {
		case <-a.ctx.Done():
			return a.localError("interrupted", "stopped following job "+id+" (it goes on)")
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// askConfirmation asks on the terminal whether to run a pending call; without a terminal it fails fast.
func (a *app) askConfirmation(c *client.Client, id string, st client.AgentStep) (int, bool) {
	args, _ := json.Marshal(st.Args)
	what := fmt.Sprintf("%s %s", st.Tool, args)
	if st.Untrusted {
		what += " (proposed after untrusted content entered the context)"
	}
	if !a.interactive() {
		return a.localError("confirmation_required", "job "+id+" waits for a confirmation of "+what+
			": decide it with POST /v1/agent/jobs/"+id+"/confirm {stepId: "+st.ID+"}"), false
	}
	fmt.Fprintf(a.stderr, "Run %s? [y/N] ", what)
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	decision := client.AgentReject
	if ans := strings.ToLower(strings.TrimSpace(line)); ans == "y" || ans == "yes" {
		decision = client.AgentApprove
	}
	r := c.ConfirmAgentJob(a.ctx, id, client.AgentConfirmRequest{StepID: st.ID, Decision: decision})
	if !r.OK {
		return apiFailure(a, r), false
	}
	return exitOK, true
}

// stepLine is one step as the CLI prints it.
func stepLine(st client.AgentStep) string {
	switch st.Kind {
	case "model":
		return fmt.Sprintf("[%d] model: %s", st.N, st.Summary)
	case "confirmation":
		return fmt.Sprintf("[%d] confirm %s: %s", st.N, st.Tool, st.Status)
	}
	return fmt.Sprintf("[%d] %s %s: %s", st.N, st.Tool, st.Status, st.Summary)
}

// agentStatus shows one job.
func (a *app) agentStatus(args []string) int {
	return oneID(a, idSpec{cmd: "agent status", what: "job"}, args,
		func(c *client.Client, id string, _ []client.CallOption) client.Response[client.AgentJobEnvelope] {
			return c.AgentJob(a.ctx, id)
		},
		func(r client.Response[client.AgentJobEnvelope]) { a.printAgentJob(r.Body.Job) })
}

// agentCancel cancels one job.
func (a *app) agentCancel(args []string) int {
	return oneID(a, idSpec{cmd: "agent cancel", what: "job", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.AgentJobEnvelope] {
			return c.CancelAgentJob(a.ctx, id, opts...)
		},
		func(r client.Response[client.AgentJobEnvelope]) { a.printAgentJob(r.Body.Job) })
}

func (a *app) printAgentJob(j client.AgentJob) {
	fmt.Fprintf(a.stdout, "job %s (thread %s): %s\n", j.ID, j.ThreadID, j.Status)
	for _, st := range j.Steps {
		fmt.Fprintln(a.stdout, "  "+stepLine(st))
	}
	if j.Answer != nil {
		fmt.Fprintln(a.stdout, *j.Answer)
	}
	if j.Error != nil {
		fmt.Fprintln(a.stdout, "error: "+*j.Error)
	}
	fmt.Fprintf(a.stdout, "credits %g (%d prompt, %d completion tokens); workflow %s\n", j.Usage.Credits, j.Usage.PromptTokens,
		j.Usage.CompletionTokens, j.WorkflowID)
}

// agentProfile shows the agent's credits and threads.
func (a *app) agentProfile(args []string) int {
	const cmd = "agent profile"
	fs := a.commandFlags(cmd, nil)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	threads := c.AgentThreads(a.ctx, client.ListParams{Limit: 10})
	if !threads.OK {
		return apiFailure(a, threads)
	}
	if a.g.json {
		a.printRaw(threads.Raw)
		return exitOK
	}
	if bal := c.Balance(a.ctx); bal.OK {
		fmt.Fprintf(a.stdout, "credits: %g\n", bal.Body.Balance.Credits)
	}
	fmt.Fprintln(a.stdout, "limit: 100 prompts per UTC day (1,000 for Club)")
	for _, t := range threads.Body.Threads {
		fmt.Fprintf(a.stdout, "%s  %s  %s\n", t.ID, t.UpdatedAt.Format(time.RFC3339), t.Title)
	}
	return exitOK
}
