package agent

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Daily agent messages (prompts) per account and UTC day, by tier (accounts.tier; seed 002).
const (
	DailyStandard = 100
	DailyClub     = 1000
)

// MaxPrompt bounds a prompt, in characters.
const MaxPrompt = 32000

// Engine is the part of the Temporal client the service needs (sdkclient.Client has it).
type Engine interface {
	ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
	CancelWorkflow(ctx context.Context, workflowID, runID string) error
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Service records prompts, starts their jobs' workflows, and reads, cancels and confirms jobs.
type Service struct {
	DB     *bun.DB
	Engine Engine
}

// ErrUnavailable answers agent routes of a server without a workflow engine.
var ErrUnavailable = svcerr.New(svcerr.Unavailable, "agent jobs are not configured here (a workflow engine is needed)")

// PromptRequest is one prompt of a key: JobID is derived from the request's idempotency record, so a
// retried request finds the job its first attempt recorded.
type PromptRequest struct {
	Scope tenant.Scope
	KeyID string
	JobID string
	Body  client.AgentPromptRequest
}

// Prompt records the job (counting the account's message of the day under its lock, refusing the
// 101st, or 1,001st for Club, with 429), its thread's user message, and starts workflow agentjob/<id>.
func (s *Service) Prompt(ctx context.Context, r PromptRequest, now time.Time) (*client.AgentJobRef, error) {
	if s == nil || s.Engine == nil {
		return nil, ErrUnavailable
	}
	prompt := strings.TrimSpace(r.Body.Prompt)
	switch {
	case prompt == "":
		return nil, svcerr.Invalid("prompt", "prompt is required")
	case utf8.RuneCountInString(prompt) > MaxPrompt:
		return nil, svcerr.Invalid("prompt", "prompt has at most %d characters", MaxPrompt)
	case r.Body.ThreadID != "" && !ids.HasPrefix(r.Body.ThreadID, ids.AgentThread):
		return nil, svcerr.NotFoundf("thread %s not found", r.Body.ThreadID)
	}
	job := &schema.AgentJob{ID: r.JobID, AccountID: r.Scope.AccountID, ProjectID: r.Scope.ProjectID, KeyID: r.KeyID,
		Prompt: prompt, Status: schema.AgentQueued}
	err := s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(hashtext(?))", "agent:"+r.Scope.AccountID).Exec(ctx); err != nil {
			return fmt.Errorf("lock the agent messages of %s: %w", r.Scope.AccountID, err)
		}
		existing := new(schema.AgentJob)
		if err := tx.NewSelect().Model(existing).Where("id = ?", job.ID).Scan(ctx); err == nil {
			job = existing
			return nil
		} else if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read agent job %s: %w", job.ID, err)
		}
		if err := countMessage(ctx, tx, r.Scope.AccountID, now); err != nil {
			return err
		}
		threadID, err := thread(ctx, tx, r.Scope, r.Body.ThreadID, prompt, now)
		if err != nil {
			return err
		}
		job.ThreadID = threadID
		if _, err := tx.NewInsert().Model(job).Returning("created_at, updated_at").Exec(ctx); err != nil {
			return fmt.Errorf("record agent job %s: %w", job.ID, err)
		}
		return appendMessage(ctx, tx, threadID, job.ID, llm.TextMessage("user", prompt))
	})
	if err != nil {
		return nil, err
	}
	if err := s.start(ctx, job); err != nil {
		return nil, err
	}
	return &client.AgentJobRef{ID: job.ID, ThreadID: job.ThreadID, Status: job.Status}, nil
}

// countMessage counts one agent message of the account's UTC day, refusing it past its tier's limit.
func countMessage(ctx context.Context, tx bun.Tx, accountID string, now time.Time) error {
	var tier string
	if err := tx.NewRaw("SELECT tier FROM accounts WHERE id = ?", accountID).Scan(ctx, &tier); err != nil {
		return fmt.Errorf("read the tier of %s: %w", accountID, err)
	}
	limit := DailyStandard
	if tier == "club" {
		limit = DailyClub
	}
	day := now.UTC().Truncate(24 * time.Hour)
	var count int
	if err := tx.NewRaw(`INSERT INTO agent_daily_messages (account_id, day, count) VALUES (?, ?, 1)
		ON CONFLICT (account_id, day) DO UPDATE SET count = agent_daily_messages.count + 1 RETURNING count`,
		accountID, day).Scan(ctx, &count); err != nil {
		return fmt.Errorf("count the agent messages of %s: %w", accountID, err)
	}
	if count > limit {
		reset := day.Add(24 * time.Hour)
		// The refused message is not counted: the transaction rolls back.
		return svcerr.New(svcerr.LimitExceeded, "the %s tier sends at most %d agent messages per UTC day (limit agent_messages_per_day); it resets at %s",
			tier, limit, reset.Format(time.RFC3339)).WithDetails("limit", "agent_messages_per_day").WithDetails("max", limit).
			WithDetails("resetAt", reset.Format(time.RFC3339))
	}
	return nil
}

// thread is the scope's thread id (404 for another account's), or a new thread titled by the prompt.
func thread(ctx context.Context, tx bun.Tx, scope tenant.Scope, id, prompt string, now time.Time) (string, error) {
	if id != "" {
		var found string
		err := scope.Where(tx.NewSelect().Model((*schema.AgentThread)(nil)).Column("id")).Where("id = ?", id).For("UPDATE").Scan(ctx, &found)
		if errors.Is(err, sql.ErrNoRows) {
			return "", svcerr.NotFoundf("thread %s not found", id)
		}
		if err != nil {
			return "", fmt.Errorf("read thread %s: %w", id, err)
		}
		if _, err := tx.NewUpdate().Model((*schema.AgentThread)(nil)).Set("updated_at = ?", now).Where("id = ?", id).Exec(ctx); err != nil {
			return "", fmt.Errorf("continue thread %s: %w", id, err)
		}
		return id, nil
	}
	title := prompt
	if r := []rune(title); len(r) > 80 {
		title = string(r[:80])
	}
	t := &schema.AgentThread{ID: ids.New(ids.AgentThread), AccountID: scope.AccountID, ProjectID: scope.ProjectID, Title: title}
	if _, err := tx.NewInsert().Model(t).Exec(ctx); err != nil {
		return "", fmt.Errorf("record thread: %w", err)
	}
	return t.ID, nil
}

// appendMessage adds m at the end of the thread, under the thread's row lock.
func appendMessage(ctx context.Context, db bun.IDB, threadID, jobID string, m llm.Message) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	if _, err := db.NewRaw("SELECT id FROM agent_threads WHERE id = ? FOR UPDATE", threadID).Exec(ctx); err != nil {
		return fmt.Errorf("lock thread %s: %w", threadID, err)
	}
	_, err = db.NewRaw(`INSERT INTO agent_messages (thread_id, seq, job_id, message)
		SELECT ?, coalesce(max(seq), 0) + 1, ?, ? FROM agent_messages WHERE thread_id = ?`, threadID, jobID, string(raw), threadID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("append a message to thread %s: %w", threadID, err)
	}
	return nil
}

// start starts the job's workflow; a workflow already started (a retried request) is fine.
func (s *Service) start(ctx context.Context, job *schema.AgentJob) error {
	_, err := s.Engine.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: workflows.AgentJobWorkflowID(job.ID), TaskQueue: workflows.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE, WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes: workflows.ResourceAttributes(job.AccountID, job.ProjectID, client.ServiceManagedAgents, client.OpAgentPrompt),
		Memo:                  map[string]any{"status": job.Status, "threadId": job.ThreadID}},
		workflows.AgentJobWorkflowName, workflows.AgentJobParams{JobID: job.ID})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &already) {
		return fmt.Errorf("start the workflow of agent job %s: %w", job.ID, err)
	}
	return nil
}

// load reads a job of the scope (404 for another account's).
func load(ctx context.Context, db bun.IDB, scope tenant.Scope, id string) (*schema.AgentJob, error) {
	job := new(schema.AgentJob)
	err := scope.Where(db.NewSelect().Model(job)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("agent job %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read agent job %s: %w", id, err)
	}
	return job, nil
}

// Get reads a job of the scope with its steps.
func (s *Service) Get(ctx context.Context, scope tenant.Scope, id string) (*client.AgentJob, error) {
	job, err := load(ctx, s.DB, scope, id)
	if err != nil {
		return nil, err
	}
	var steps []schema.AgentStep
	if err := s.DB.NewSelect().Model(&steps).Where("job_id = ?", id).OrderExpr("n, created_at, id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("read the steps of agent job %s: %w", id, err)
	}
	w := ToWire(job, steps)
	return &w, nil
}

// ToWire is the API's view of a job and its steps.
func ToWire(j *schema.AgentJob, steps []schema.AgentStep) client.AgentJob {
	out := client.AgentJob{ID: j.ID, ThreadID: j.ThreadID, Prompt: j.Prompt, Status: j.Status, Answer: j.Answer, Error: j.ErrorMessage,
		Steps: make([]client.AgentStep, 0, len(steps)), WorkflowID: workflows.AgentJobWorkflowID(j.ID),
		Usage:     client.AgentUsage{PromptTokens: j.PromptTokens, CompletionTokens: j.CompletionTokens, Credits: catalog.Credits(j.Millicredits)},
		CreatedAt: j.CreatedAt.UTC(), UpdatedAt: j.UpdatedAt.UTC(), EndedAt: j.EndedAt}
	for _, st := range steps {
		w := client.AgentStep{ID: st.ID, N: st.N, Kind: st.Kind, Status: st.Status, Untrusted: st.Untrusted, CreatedAt: st.CreatedAt.UTC()}
		if st.ToolName != nil {
			w.Tool = *st.ToolName
		}
		if st.Summary != nil {
			w.Summary = *st.Summary
		}
		if len(st.Args) > 0 {
			w.Args = json.RawMessage(st.Args)
		}
		out.Steps = append(out.Steps, w)
	}
	return out
}

// Cancel asks the job's workflow to stop (it ends cancelled); a finished job is answered as it is.
func (s *Service) Cancel(ctx context.Context, scope tenant.Scope, id string) (*client.AgentJob, error) {
	if s.Engine == nil {
		return nil, ErrUnavailable
	}
	job, err := load(ctx, s.DB, scope, id)
	if err != nil {
		return nil, err
	}
	if !finished(job.Status) {
		err := s.Engine.CancelWorkflow(ctx, workflows.AgentJobWorkflowID(id), "")
		var notFound *serviceerror.NotFound
		if err != nil && !errors.As(err, &notFound) {
			return nil, fmt.Errorf("cancel agent job %s: %w", id, err)
		}
	}
	return s.Get(ctx, scope, id)
}

func finished(status string) bool {
	return status == schema.AgentSucceeded || status == schema.AgentFailed || status == schema.AgentCancelled
}

// Confirm records the decision on a pending confirmation step of the job, then signals it to the
// workflow (a signal is durable even while no worker runs). Deciding a step again with the same
// decision answers the job; a different decision is a conflict.
func (s *Service) Confirm(ctx context.Context, scope tenant.Scope, keyID, id string, body client.AgentConfirmRequest) (*client.AgentJob, error) {
	if s.Engine == nil {
		return nil, ErrUnavailable
	}
	status := map[string]string{client.AgentApprove: schema.StepApproved, client.AgentReject: schema.StepRejected}[body.Decision]
	if status == "" {
		return nil, svcerr.Invalid("decision", "decision is approve or reject")
	}
	if _, err := load(ctx, s.DB, scope, id); err != nil {
		return nil, err
	}
	step := new(schema.AgentStep)
	err := s.DB.NewSelect().Model(step).Where("id = ? AND job_id = ? AND kind = ?", body.StepID, id, schema.StepConfirmation).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &svcerr.Error{Code: svcerr.NotFound, Param: "stepId", Message: fmt.Sprintf("agent job %s has no confirmation step %s", id, body.StepID)}
	}
	if err != nil {
		return nil, fmt.Errorf("read step %s: %w", body.StepID, err)
	}
	switch step.Status {
	case status: // the same decision again: deliver it again (harmless) and answer
	case schema.StepPending:
		err := s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			res, err := tx.NewUpdate().Model((*schema.AgentStep)(nil)).Set("status = ?, updated_at = now()", status).
				Where("id = ? AND status = ?", step.ID, schema.StepPending).Exec(ctx)
			if err != nil {
				return fmt.Errorf("decide step %s: %w", step.ID, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return svcerr.New(svcerr.Conflict, "step %s was decided meanwhile", step.ID)
			}
			// Its approval is decided with it (unless the approvals routes decided it already).
			aprStatus := map[string]string{client.AgentApprove: client.ApprovalApproved, client.AgentReject: client.ApprovalRejected}[body.Decision]
			_, err = approval.Decide(ctx, tx, scope, workflows.AgentApprovalID(id, step.N), approval.Decision{Status: aprStatus, KeyID: keyID})
			if e, ok := svcerr.As(err); ok && (e.Code == svcerr.Conflict || e.Code == svcerr.NotFound) {
				err = nil
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	default:
		return nil, svcerr.New(svcerr.Conflict, "step %s is already %s", step.ID, step.Status)
	}
	// The approval's workflow learns the decision too, so it ends now rather than at its expiry (it may
	// not exist: a worker without an engine started none).
	aprStatus := map[string]string{client.AgentApprove: client.ApprovalApproved, client.AgentReject: client.ApprovalRejected}[body.Decision]
	_ = s.Engine.SignalWorkflow(ctx, workflows.ApprovalWorkflowID(workflows.AgentApprovalID(id, step.N)), "", workflows.SignalApprovalDecision,
		workflows.ApprovalDecision{Status: aprStatus, KeyID: keyID})
	if err := s.Engine.SignalWorkflow(ctx, workflows.AgentJobWorkflowID(id), "", workflows.SignalAgentConfirm,
		workflows.AgentConfirmation{N: step.N, Decision: body.Decision}); err != nil {
		return nil, fmt.Errorf("deliver the decision on step %s: %w", step.ID, err)
	}
	return s.Get(ctx, scope, id)
}

// Threads lists the scope's threads, most recently used first.
func (s *Service) Threads(ctx context.Context, scope tenant.Scope, pg page.Params) ([]client.AgentThread, *string, error) {
	rows := []schema.AgentThread{}
	q := scope.Where(s.DB.NewSelect().Model(&rows))
	if pg.After != nil {
		q = q.Where("(updated_at, id) < (?, ?)", pg.After.CreatedAt, pg.After.ID)
	}
	if err := q.OrderExpr("updated_at DESC, id DESC").Limit(int64(pg.Limit + 1)).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list threads: %w", err)
	}
	rows, next := page.Next(pg, rows, func(t schema.AgentThread) page.Cursor { return page.Cursor{CreatedAt: t.UpdatedAt, ID: t.ID} })
	out := make([]client.AgentThread, 0, len(rows))
	for _, t := range rows {
		out = append(out, client.AgentThread{ID: t.ID, Title: t.Title, CreatedAt: t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC()})
	}
	return out, next, nil
}

// Thread reads a thread of the scope with its messages.
func (s *Service) Thread(ctx context.Context, scope tenant.Scope, id string) (*client.AgentThread, error) {
	t := new(schema.AgentThread)
	err := scope.Where(s.DB.NewSelect().Model(t)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("thread %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read thread %s: %w", id, err)
	}
	var msgs []schema.AgentMessage
	if err := s.DB.NewSelect().Model(&msgs).Where("thread_id = ?", id).Order("seq").Scan(ctx); err != nil {
		return nil, fmt.Errorf("read the messages of thread %s: %w", id, err)
	}
	out := &client.AgentThread{ID: t.ID, Title: t.Title, CreatedAt: t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC(),
		Messages: make([]client.AgentMessage, 0, len(msgs))}
	for _, m := range msgs {
		var msg llm.Message
		if json.Unmarshal(m.Message, &msg) != nil {
			continue
		}
		w := client.AgentMessage{Role: msg.Role, Content: msg.Text(), JobID: m.JobID, CreatedAt: m.CreatedAt.UTC()}
		if len(msg.ToolCalls) > 0 {
			w.Tool = msg.ToolCalls[0].Function.Name
		}
		out.Messages = append(out.Messages, w)
	}
	return out, nil
}

// Sweep starts the workflows of jobs still queued settle after they were recorded (a request that died
// between its commit and the start): starting is idempotent, so a job whose workflow exists is left as
// it is. It answers how many jobs it handed to the engine.
func (s *Service) Sweep(ctx context.Context, settle time.Duration, limit int) (int, error) {
	if s == nil || s.Engine == nil {
		return 0, nil
	}
	var jobs []schema.AgentJob
	if err := s.DB.NewSelect().Model(&jobs).Where("status = ? AND created_at < ?", schema.AgentQueued, time.Now().Add(-settle)).
		Order("created_at").Limit(int64(limit)).Scan(ctx); err != nil {
		return 0, fmt.Errorf("list queued agent jobs: %w", err)
	}
	for i := range jobs {
		if err := s.start(ctx, &jobs[i]); err != nil {
			return i, err
		}
	}
	return len(jobs), nil
}
