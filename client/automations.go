package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Statuses of an automation.
const (
	// AutomationActive: the schedule fires runs.
	AutomationActive = "active"
	// AutomationPaused: paused by its owner, an operator in the Temporal Web UI, or its own lifetime
	// limit; resume starts it again.
	AutomationPaused = "paused"
	// AutomationCancelled: no further runs (a run in flight continues).
	AutomationCancelled = "cancelled"
	// AutomationCompleted: its schedule has no fire left (past endAt).
	AutomationCompleted = "completed"
)

// Overlap policies: what a fire does while the automation's previous run is still going.
const (
	OverlapSkip      = "skip"
	OverlapBufferOne = "buffer_one"
	OverlapAllowAll  = "allow_all"
)

// AutomationAction is the run each fire starts.
type AutomationAction struct {
	ServiceID   string         `json:"serviceId" minLength:"1" doc:"The service that executes each run."`
	OperationID string         `json:"operationId" minLength:"1" doc:"The operation of that service."`
	Input       map[string]any `json:"input,omitempty" doc:"The operation's input; {} when omitted."`
}

// CreateAutomationRequest is the body of POST /v1/automations.
type CreateAutomationRequest struct {
	Name string `json:"name" minLength:"1" maxLength:"200"`
	// Cron is a standard 5-field expression (minute hour day-of-month month day-of-week) or a descriptor
	// (@hourly, @daily, @weekly, @monthly, @yearly).
	Cron     string           `json:"cron" minLength:"1" maxLength:"200" doc:"A 5-field cron expression (minute hour day-of-month month day-of-week) or @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually. A day-of-month together with a day-of-week is refused."`
	Timezone string           `json:"timezone,omitempty" maxLength:"100" doc:"An IANA time zone name (default UTC) the cron expression is read in."`
	Action   AutomationAction `json:"action"`
	Overlap  string           `json:"overlap,omitempty" enum:"skip,buffer_one,allow_all" doc:"While the previous run is going: skip the fire (default), keep one fire waiting, or run both."`
	StartAt  *time.Time       `json:"startAt,omitempty" doc:"No fire before this time."`
	EndAt    *time.Time       `json:"endAt,omitempty" doc:"No fire after this time; then the automation is completed."`
	Paused   bool             `json:"paused,omitempty" doc:"Create it paused."`
}

// UpdateAutomationRequest is the body of PATCH /v1/automations/{automationId}: fields left out keep
// their value.
type UpdateAutomationRequest struct {
	Name     *string         `json:"name,omitempty" minLength:"1" maxLength:"200"`
	Cron     *string         `json:"cron,omitempty" minLength:"1" maxLength:"200"`
	Timezone *string         `json:"timezone,omitempty" maxLength:"100"`
	Input    *map[string]any `json:"input,omitempty" doc:"The action's new input (it replaces the old one whole)."`
}

// AutomationNoteRequest is the optional body of pause and resume: a note the Temporal Web UI shows.
type AutomationNoteRequest struct {
	Note string `json:"note,omitempty" maxLength:"500" doc:"Why; shown with the schedule in the Temporal Web UI."`
}

// AutomationCounts count an automation's fires.
type AutomationCounts struct {
	// RunsStarted is the runs its fires started (its executions, which the tier limits).
	RunsStarted int64 `json:"runsStarted"`
	// RunsSkipped is the fires that started no run: a limit was reached, or the previous run was still
	// going (overlap skip).
	RunsSkipped int64 `json:"runsSkipped"`
	// RunsFailed is the started runs that failed.
	RunsFailed int64 `json:"runsFailed"`
	// RunsToday is the runs started on the current UTC day.
	RunsToday int64 `json:"runsToday"`
}

// AutomationLimits are the tier's limits that apply to one automation.
type AutomationLimits struct {
	Executions int64 `json:"executions" doc:"Runs an automation may start in its life (standard 100, Club 1,000)."`
	RunsPerDay int64 `json:"runsPerDay" doc:"Runs an automation may start in one UTC day (standard 24, Club 100)."`
}

// AutomationRun is one recent run of an automation.
type AutomationRun struct {
	RunID       string    `json:"runId"`
	Status      string    `json:"status"`
	ScheduledAt time.Time `json:"scheduledAt" doc:"The fire time the run belongs to (its id derives from it)."`
	CreatedAt   time.Time `json:"createdAt"`
}

// Automation is a cron-driven series of runs on a Temporal Schedule (automation/<id>).
type Automation struct {
	ID        string           `json:"id" doc:"auto_…"`
	Name      string           `json:"name"`
	Cron      string           `json:"cron"`
	Timezone  string           `json:"timezone"`
	Action    AutomationAction `json:"action"`
	Overlap   string           `json:"overlap" enum:"skip,buffer_one,allow_all"`
	Status    string           `json:"status" enum:"active,paused,cancelled,completed"`
	Note      string           `json:"note,omitempty" doc:"The note of the last pause or resume."`
	StartAt   *time.Time       `json:"startAt"`
	EndAt     *time.Time       `json:"endAt"`
	ProjectID *string          `json:"projectId"`
	// App is the slug of the app whose manifest's schedule owns the automation (its action runs the app's
	// script as the owner); empty for the caller's own automations.
	App        string           `json:"app,omitempty" doc:"The app (slug) whose manifest schedule owns it: edit the manifest to change it; a deleted one is made again at the app's next sync."`
	ScheduleID string           `json:"scheduleId" doc:"automation/<id>, as the Temporal Web UI lists it."`
	Counts     AutomationCounts `json:"counts"`
	Limits     AutomationLimits `json:"limits"`
	// LastFireAt is the last time a fire started a run or was refused.
	LastFireAt *time.Time `json:"lastFireAt"`
	// NextFireTimes are the schedule's next fire times (up to five), as Temporal computes them.
	NextFireTimes []time.Time `json:"nextFireTimes" doc:"The next fire times (up to five), from the Temporal Schedule; empty unless active."`
	// RecentRuns are the latest runs, newest first (reads of one automation only).
	RecentRuns []AutomationRun `json:"recentRuns,omitempty"`
	CreatedAt  time.Time       `json:"createdAt"`
	UpdatedAt  time.Time       `json:"updatedAt"`
}

// AutomationEnvelope answers the routes of one automation.
type AutomationEnvelope struct {
	OK         bool       `json:"ok"`
	Automation Automation `json:"automation"`
}

// AutomationList answers GET /v1/automations.
type AutomationList struct {
	OK          bool         `json:"ok"`
	Automations []Automation `json:"automations"`
	NextCursor  *string      `json:"nextCursor"`
}

// ListAutomationsParams filter and page GET /v1/automations.
type ListAutomationsParams struct {
	ListParams
	// Status keeps the automations of one status.
	Status string
}

// CreateAutomation creates an automation and its Temporal Schedule, POST /v1/automations (scope
// runs:write and access to the action's service). The answer carries the next fire times.
func (c *Client) CreateAutomation(ctx context.Context, r CreateAutomationRequest, opts ...CallOption) Response[AutomationEnvelope] {
	return send[AutomationEnvelope](ctx, c, call{method: http.MethodPost, path: "/automations", body: r, auth: authKey, idem: true, opts: opts})
}

// ListAutomations lists the automations of the selected project (or of none), newest first (scope
// runs:read); deleted ones are left out.
func (c *Client) ListAutomations(ctx context.Context, p ListAutomationsParams) Response[AutomationList] {
	q := p.query()
	if p.Status != "" {
		q.Set("status", p.Status)
	}
	return send[AutomationList](ctx, c, call{method: http.MethodGet, path: "/automations", query: q, auth: authKey})
}

// GetAutomation reads an automation with its counts, next fire times and recent runs (scope runs:read).
func (c *Client) GetAutomation(ctx context.Context, id string) Response[AutomationEnvelope] {
	if id == "" {
		return invalidArg[AutomationEnvelope]("automationId", "the automation id is empty")
	}
	return send[AutomationEnvelope](ctx, c, call{method: http.MethodGet, path: automationPath(id), auth: authKey})
}

// UpdateAutomation changes an automation's name, cron, timezone or input (scope runs:write).
func (c *Client) UpdateAutomation(ctx context.Context, id string, r UpdateAutomationRequest, opts ...CallOption) Response[AutomationEnvelope] {
	if id == "" {
		return invalidArg[AutomationEnvelope]("automationId", "the automation id is empty")
	}
	return send[AutomationEnvelope](ctx, c, call{method: http.MethodPatch, path: automationPath(id), body: r, auth: authKey, idem: true, opts: opts})
}

// PauseAutomation pauses an automation's schedule, with an optional note (scope runs:write).
func (c *Client) PauseAutomation(ctx context.Context, id, note string, opts ...CallOption) Response[AutomationEnvelope] {
	return c.automationVerb(ctx, id, "pause", &AutomationNoteRequest{Note: note}, opts)
}

// ResumeAutomation resumes a paused automation, with an optional note (scope runs:write).
func (c *Client) ResumeAutomation(ctx context.Context, id, note string, opts ...CallOption) Response[AutomationEnvelope] {
	return c.automationVerb(ctx, id, "resume", &AutomationNoteRequest{Note: note}, opts)
}

// TriggerAutomation fires an automation once now (scope runs:write); the limits apply as to any fire.
func (c *Client) TriggerAutomation(ctx context.Context, id string, opts ...CallOption) Response[AutomationEnvelope] {
	return c.automationVerb(ctx, id, "trigger", nil, opts)
}

// CancelAutomation stops an automation for good: no further runs; a run in flight continues (scope
// runs:write).
func (c *Client) CancelAutomation(ctx context.Context, id string, opts ...CallOption) Response[AutomationEnvelope] {
	return c.automationVerb(ctx, id, "cancel", nil, opts)
}

// DeleteAutomation cancels an automation and removes it from listings (scope runs:write).
func (c *Client) DeleteAutomation(ctx context.Context, id string, opts ...CallOption) Response[AutomationEnvelope] {
	if id == "" {
		return invalidArg[AutomationEnvelope]("automationId", "the automation id is empty")
	}
	return send[AutomationEnvelope](ctx, c, call{method: http.MethodDelete, path: automationPath(id), auth: authKey, idem: true, opts: opts})
}

func (c *Client) automationVerb(ctx context.Context, id, verb string, body any, opts []CallOption) Response[AutomationEnvelope] {
	if id == "" {
		return invalidArg[AutomationEnvelope]("automationId", "the automation id is empty")
	}
	return send[AutomationEnvelope](ctx, c, call{method: http.MethodPost, path: automationPath(id) + "/" + verb, body: body,
		auth: authKey, idem: true, opts: opts})
}

func automationPath(id string) string { return "/automations/" + url.PathEscape(id) }
