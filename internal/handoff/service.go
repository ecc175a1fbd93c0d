package handoff

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/uptrace/bun"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/sweep"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/vault"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Defaults of Options.
const (
	// DefaultAckTimeout is how long a handoff waits for an ack unless the request says otherwise.
	DefaultAckTimeout = 24 * time.Hour
	// DefaultCheckEvery is the durable timer between two checks of a transfer's acks.
	DefaultCheckEvery = 15 * time.Second
	// TaskFileName is the payload that carries a task to the receiving agent.
	TaskFileName = "HANDOFF-TASK.md"
	// previewChars is how much of the task file the planner shows.
	previewChars = 600
)

// Engine starts workflows (a Temporal client).
type Engine interface {
	ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
}

// Options tune a Service.
type Options struct {
	// CheckEvery is the interval between ack checks (default DefaultCheckEvery).
	CheckEvery time.Duration
}

// Service plans handoffs and records and starts the sends, for the API.
type Service struct {
	DB *bun.DB
	// Vault is the platform's copy of the synced vault (SVC_VAULT); nil answers 503.
	Vault  *vault.Vault
	Engine Engine
	Opts   Options
}

// Request is one POST /api/handoff.
type Request struct {
	Scope tenant.Scope
	KeyID string
	// ID is the handoff's id (derived from the Idempotency-Key, so a retry finds it).
	ID   string
	Body client.HandoffRequest
}

// ErrNoVault is the answer of a process without SVC_VAULT.
var ErrNoVault = svcerr.New(svcerr.Unavailable, "handoffs need the platform's vault: set SVC_VAULT for the API and worker processes")

// Handoff plans r and, for a send action, records the handoff and starts workflow handoff/<id>; a retry
// of the same request (same id) answers the handoff recorded first.
func (s *Service) Handoff(ctx context.Context, r Request, now time.Time) (*client.HandoffEnvelope, error) {
	if s == nil || s.Vault == nil {
		return nil, ErrNoVault
	}
	if h, err := s.load(ctx, r.Scope, r.ID); err == nil {
		_, err := s.start(ctx, h)
		return s.envelope(h), err
	}
	if err := checkRequest(r.Body); err != nil {
		return nil, err
	}
	plan, err := s.plan(r.Body)
	if err != nil {
		return nil, err
	}
	if r.Body.Action == client.HandoffPlan {
		return &client.HandoffEnvelope{OK: true, Plan: *plan}, nil
	}
	h := newRow(r, plan, now)
	if _, err := s.DB.NewInsert().Model(h).Returning("created_at, updated_at").Exec(ctx); err != nil {
		return nil, fmt.Errorf("record handoff %s: %w", h.ID, err)
	}
	_, err = s.start(ctx, h)
	return s.envelope(h), err
}

// plan resolves the target and selects the agent.
func (s *Service) plan(body client.HandoffRequest) (*client.HandoffPlanResult, error) {
	cards, err := s.Vault.Machines()
	if err != nil {
		return nil, fmt.Errorf("read machine cards: %w", err)
	}
	res, err := Resolve(cards, body.Target)
	if err != nil {
		return nil, err
	}
	sel := SelectAgent(res.Card, body.Task)
	p := &client.HandoffPlanResult{Action: body.Action, Target: body.Target, WorkerClass: sel.WorkerClass,
		Machine: client.HandoffMachine{MachineID: res.Card.MachineID, Host: res.Card.Host, MatchedBy: res.MatchedBy, LastSeen: res.Card.LastSeen}}
	if sel.Agent != nil {
		p.Agent = &client.HandoffAgent{ID: sel.Agent.ID, Runtime: sel.Agent.Runtime, WorkerClasses: sel.Agent.WorkerClasses}
	}
	if body.Task != "" {
		p.RemoteTaskPreview = preview(TaskText(taskInfo{task: body.Task, machineID: res.Card.MachineID, agent: sel.Agent,
			class: sel.WorkerClass, files: baseNames(body.Files)}))
	}
	return p, nil
}

// checkRequest validates the body: the fields each action needs, and no secret in the task, the note,
// the file names or the files.
func checkRequest(b client.HandoffRequest) error {
	needsFiles := b.Action == client.HandoffSendFile || b.Action == client.HandoffSendFileTask
	needsTask := b.Action == client.HandoffSendTask || b.Action == client.HandoffSendFileTask
	switch {
	case strings.TrimSpace(b.Target) == "":
		return svcerr.Invalid("target", "target: name the machine to hand off to")
	case needsTask && strings.TrimSpace(b.Task) == "":
		return svcerr.Invalid("task", "task: %s hands a task to an agent, so it needs a stated task", b.Action)
	case needsFiles && len(b.Files) == 0:
		return svcerr.Invalid("files", "files: %s needs at least one absolute file path", b.Action)
	case b.Action == client.HandoffSendTask && len(b.Files) > 0:
		return svcerr.Invalid("files", "files: send-task sends no files; use send-file-task to send files with the task")
	case b.Action == client.HandoffSendFile && b.Task != "":
		return svcerr.Invalid("task", "task: send-file sends no task; use send-file-task to send a task with the files")
	}
	for _, f := range []struct{ param, text string }{{"task", b.Task}, {"note", b.Note}} {
		if kind := vault.ScanText(f.text); kind != "" {
			return svcerr.Invalid(f.param, "%s holds a %s; handoffs are not for secrets", f.param, kind)
		}
	}
	return checkFiles(b.Files)
}

// checkFiles refuses a path that is not absolute, not a regular file, repeats a name, takes the task
// file's name, or whose name or content holds a secret.
func checkFiles(files []string) error {
	seen := map[string]int{}
	for i, f := range files {
		param := fmt.Sprintf("files[%d]", i)
		name := filepath.Base(f)
		if !filepath.IsAbs(f) {
			return svcerr.Invalid(param, "%s must be an absolute path", param)
		}
		if j, dup := seen[name]; dup {
			return svcerr.Invalid(param, "%s has the same file name as files[%d]; payload names must differ", param, j)
		}
		seen[name] = i
		if strings.EqualFold(name, TaskFileName) {
			return svcerr.Invalid(param, "%s is named %s, the name the task file takes", param, TaskFileName)
		}
		if kind := vault.ScanText(name); kind != "" {
			return svcerr.Invalid(param, "the file name of %s holds a %s; handoffs are not for secrets", param, kind)
		}
		if err := scanFile(f, param); err != nil {
			return err
		}
	}
	return nil
}

// scanFile refuses a file that is not a readable regular file or that holds a secret.
func scanFile(path, param string) error {
	fh, err := os.Open(path)
	if err != nil {
		return svcerr.Invalid(param, "%s: cannot open %s", param, filepath.Base(path))
	}
	defer func() { _ = fh.Close() }()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return svcerr.Invalid(param, "%s: %s is not a regular file", param, filepath.Base(path))
	}
	var sc vault.Scanner
	if _, err := io.Copy(&sc, fh); err != nil {
		return fmt.Errorf("scan %s: %w", param, err)
	}
	_ = sc.Close()
	if kind := sc.Finding(); kind != "" {
		return svcerr.Invalid(param, "%s (%s) holds a %s; handoffs are not for secrets", param, filepath.Base(path), kind)
	}
	return nil
}

// newRow is the handoff row of a send.
func newRow(r Request, plan *client.HandoffPlanResult, now time.Time) *schema.Handoff {
	timeout := DefaultAckTimeout
	if r.Body.AckTimeoutSeconds > 0 {
		timeout = time.Duration(r.Body.AckTimeoutSeconds) * time.Second
	}
	h := &schema.Handoff{ID: r.ID, AccountID: r.Scope.AccountID, ProjectID: r.Scope.ProjectID, KeyID: opt(r.KeyID),
		Action: r.Body.Action, Status: schema.HandoffSending, Target: r.Body.Target, MachineID: plan.Machine.MachineID,
		Host: opt(plan.Machine.Host), WorkerClass: opt(plan.WorkerClass), Files: r.Body.Files, Task: opt(r.Body.Task),
		Note: opt(r.Body.Note), Acks: []byte("[]"), AckDeadline: now.Add(timeout).UTC()}
	if h.Files == nil {
		h.Files = []string{}
	}
	if plan.Agent != nil {
		h.AgentID, h.Runtime = opt(plan.Agent.ID), opt(plan.Agent.Runtime)
	}
	return h
}

// start starts the handoff's workflow unless it runs or ran; started says whether this call started it.
func (s *Service) start(ctx context.Context, h *schema.Handoff) (started bool, err error) {
	if s.Engine == nil {
		return false, svcerr.New(svcerr.Unavailable, "this server has no workflow engine for handoffs")
	}
	checkEvery := s.Opts.CheckEvery
	if checkEvery <= 0 {
		checkEvery = DefaultCheckEvery
	}
	_, err = s.Engine.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: workflows.HandoffWorkflowID(h.ID), TaskQueue: workflows.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE, WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes: workflows.ResourceAttributes(h.AccountID, h.ProjectID, client.ServicePlatformAPI, client.OpHandoffsCreate),
		StaticSummary:         h.Action + " to " + h.MachineID + " (" + h.ID + ")"},
		workflows.HandoffWorkflowName, workflows.HandoffParams{HandoffID: h.ID, Deadline: h.AckDeadline, CheckEvery: checkEvery})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		return false, nil
	}
	if err != nil {
		return false, svcerr.New(svcerr.Unavailable, "the handoff is recorded but its workflow did not start; retry with the same Idempotency-Key")
	}
	return true, nil
}

// Sweep starts the workflows of handoffs a request recorded but did not start (it died between the
// insert and the start, or Temporal refused the start and the caller never retried): handoffs still
// sending, without a transfer, recorded more than settle and less than a day before, at most limit of
// them, the oldest first. A handoff whose workflow runs or ran is left alone (the start is refused as a
// duplicate), so several API processes may sweep at once; it answers how many workflows it started.
// The handoff keeps its recorded ack deadline.
func (s *Service) Sweep(ctx context.Context, settle time.Duration, limit int) (int, error) {
	return sweep.Stale(ctx, s.DB, sweep.Query{What: "handoffs", Statuses: []string{schema.HandoffSending}, Where: "transfer_id IS NULL",
		Settle: settle, Limit: limit}, s.start)
}

// envelope is the answer of a send: the plan as recorded, and the handoff.
func (s *Service) envelope(h *schema.Handoff) *client.HandoffEnvelope {
	w := ToWire(h)
	p := client.HandoffPlanResult{Action: h.Action, Target: h.Target, WorkerClass: deref(h.WorkerClass), TransferID: h.TransferID,
		Machine: client.HandoffMachine{MachineID: h.MachineID, Host: deref(h.Host), MatchedBy: client.MatchMachineID}}
	if cards, err := s.Vault.Machines(); err == nil {
		if res, err := Resolve(cards, h.Target); err == nil && res.Card.MachineID == h.MachineID {
			p.Machine.MatchedBy, p.Machine.LastSeen = res.MatchedBy, res.Card.LastSeen
		}
	}
	if h.AgentID != nil {
		p.Agent = &client.HandoffAgent{ID: *h.AgentID, Runtime: deref(h.Runtime), WorkerClasses: agentClasses(s.Vault, h)}
	}
	if h.Task != nil {
		p.RemoteTaskPreview = preview(TaskText(infoOf(h)))
	}
	return &client.HandoffEnvelope{OK: true, Plan: p, Handoff: &w}
}

// agentClasses are the recorded agent's worker classes as its machine card lists them now.
func agentClasses(v *vault.Vault, h *schema.Handoff) []string {
	cards, _ := v.Machines()
	for _, c := range cards {
		for _, a := range c.Agents {
			if c.MachineID == h.MachineID && a.ID == deref(h.AgentID) && a.Runtime == deref(h.Runtime) {
				return a.WorkerClasses
			}
		}
	}
	return []string{}
}

// Get reads one of the scope's handoffs (another account's is not found).
func (s *Service) Get(ctx context.Context, scope tenant.Scope, id string) (*client.Handoff, error) {
	if s == nil {
		return nil, ErrNoVault
	}
	h, err := s.load(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	w := ToWire(h)
	return &w, nil
}

// load reads a handoff of scope.
func (s *Service) load(ctx context.Context, scope tenant.Scope, id string) (*schema.Handoff, error) {
	h := new(schema.Handoff)
	err := scope.Where(s.DB.NewSelect().Model(h)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("handoff %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read handoff %s: %w", id, err)
	}
	return h, nil
}

// List lists the scope's handoffs, newest first.
func (s *Service) List(ctx context.Context, scope tenant.Scope, pg page.Params) ([]client.Handoff, *string, error) {
	if s == nil {
		return nil, nil, ErrNoVault
	}
	rows := []schema.Handoff{}
	q := scope.Where(s.DB.NewSelect().Model(&rows))
	if pg.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", pg.After.CreatedAt, pg.After.ID)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(pg.Limit + 1)).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list handoffs: %w", err)
	}
	rows, next := page.Next(pg, rows, func(h schema.Handoff) page.Cursor { return page.Cursor{CreatedAt: h.CreatedAt, ID: h.ID} })
	out := make([]client.Handoff, 0, len(rows))
	for i := range rows {
		out = append(out, ToWire(&rows[i]))
	}
	return out, next, nil
}

func preview(text string) string {
	r := []rune(text)
	if len(r) <= previewChars {
		return text
	}
	return string(r[:previewChars]) + "…"
}

func baseNames(files []string) []string {
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, filepath.Base(f))
	}
	return out
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Machines lists the machine cards of the platform's vault, sorted by machine id.
func (s *Service) Machines() ([]client.HandoffMachineCard, error) {
	if s == nil || s.Vault == nil {
		return nil, ErrNoVault
	}
	cards, err := s.Vault.Machines()
	if err != nil {
		return nil, fmt.Errorf("read machine cards: %w", err)
	}
	out := make([]client.HandoffMachineCard, 0, len(cards))
	for _, c := range cards {
		agents := make([]client.HandoffAgent, 0, len(c.Agents))
		for _, a := range c.Agents {
			agents = append(agents, client.HandoffAgent{ID: a.ID, Runtime: a.Runtime, WorkerClasses: nonNil(a.WorkerClasses)})
		}
		out = append(out, client.HandoffMachineCard{MachineID: c.MachineID, Host: c.Host, Runtimes: nonNil(c.Runtimes), Agents: agents,
			FileTransfers: c.Capabilities.FileTransfers, LastSeen: c.LastSeen})
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
