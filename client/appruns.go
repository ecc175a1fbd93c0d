package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// The app script runs' operations (issue 26).
const (
	OpAppsScriptsRun = "apps.scripts.run"
	OpAppsRunsList   = "apps.runs.list"
	OpAppsRunsRead   = "apps.runs.read"
)

// Statuses of an app script run.
const (
	AppRunQueued    = "queued"
	AppRunRunning   = "running"
	AppRunSucceeded = "succeeded"
	AppRunFailed    = "failed"
)

// AppScriptRunRequest is the body of POST /v1/apps/{slug}/scripts/{name}/run.
type AppScriptRunRequest struct {
	Args json.RawMessage `json:"args,omitempty" doc:"The script's args global (a JSON value; {} when absent)."`
}

// AppScriptRun is one run of an app's script.
type AppScriptRun struct {
	ID     string `json:"id"`
	App    string `json:"app" doc:"The app's slug."`
	Script string `json:"script"`
	// Trigger is owner (POST .../run), frontend (a viewer of the app) or schedule (a manifest entry).
	Trigger string          `json:"trigger" doc:"owner, frontend or schedule."`
	Status  string          `json:"status" doc:"queued, running, succeeded or failed."`
	Args    json.RawMessage `json:"args"`
	// Result is the script's return value (null until it succeeded).
	Result    json.RawMessage `json:"result"`
	Log       []string        `json:"log"`
	Error     *string         `json:"error,omitempty"`
	HostCalls int             `json:"hostCalls"`
	// WorkflowID is the run's workflow, appscript/<id>; absent for a run executed inline.
	WorkflowID string `json:"workflowId,omitempty" doc:"The run's workflow, appscript/<id>; absent when inline."`
	// Inline marks a run that made no platform call and was executed and recorded by the request that
	// started it, without a workflow (nothing outside its result to make exactly-once).
	Inline     bool       `json:"inline,omitempty" doc:"True for a run executed in the API process without a workflow (it made no platform call)."`
	CreatedAt  time.Time  `json:"createdAt"`
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

// AppScriptRunEnvelope answers a run's start (200 once finished, 202 while queued or running) and GET.
type AppScriptRunEnvelope struct {
	OK  bool         `json:"ok"`
	Run AppScriptRun `json:"run"`
}

// AppScriptRunList answers GET /v1/apps/{slug}/runs, newest first.
type AppScriptRunList struct {
	OK         bool           `json:"ok"`
	Runs       []AppScriptRun `json:"runs"`
	NextCursor *string        `json:"nextCursor"`
}

// RunAppScript runs an app's script as its owner, POST /v1/apps/{slug}/scripts/{name}/run: the run is
// answered finished (200) when it ends within the server's wait, else queued or running (202).
func (c *Client) RunAppScript(ctx context.Context, slug, script string, r AppScriptRunRequest, opts ...CallOption) Response[AppScriptRunEnvelope] {
	return send[AppScriptRunEnvelope](ctx, c, call{method: http.MethodPost,
		path: "/apps/" + url.PathEscape(slug) + "/scripts/" + url.PathEscape(script) + "/run", body: r, auth: authKey, idem: true, opts: opts})
}

// ListAppScriptRuns lists an app's runs, newest first.
func (c *Client) ListAppScriptRuns(ctx context.Context, slug string, p ListParams) Response[AppScriptRunList] {
	return send[AppScriptRunList](ctx, c, call{method: http.MethodGet, path: "/apps/" + url.PathEscape(slug) + "/runs", query: p.query(), auth: authKey})
}

// GetAppScriptRun reads one run of an app's script.
func (c *Client) GetAppScriptRun(ctx context.Context, slug, runID string) Response[AppScriptRunEnvelope] {
	return send[AppScriptRunEnvelope](ctx, c, call{method: http.MethodGet,
		path: "/apps/" + url.PathEscape(slug) + "/runs/" + url.PathEscape(runID), auth: authKey})
}
