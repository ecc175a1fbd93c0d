package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apprun"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// appRunsAPI serves app script runs (issue 26): POST /v1/apps/{slug}/scripts/{name}/run (the owner) and
// the app's run list and runs.
type appRunsAPI struct {
	runs *apprun.Service
}

type appScriptRunInput struct {
	Slug string `path:"slug" maxLength:"64" doc:"The app's slug."`
	Name string `path:"name" maxLength:"128" doc:"The script (scripts/<name>.ts, listed in the manifest's scripts)."`
	Body client.AppScriptRunRequest
}

type appScriptRunOut struct {
	Status int
	Body   client.AppScriptRunEnvelope
}

// run records a run as the owner's key, starts workflow appscript/<id> and waits a bounded time for it:
// 200 with the finished run, else 202 with the run queued or running.
func (ar *appRunsAPI) run(ctx context.Context, in *appScriptRunInput) (*appScriptRunOut, error) {
	if ar.runs == nil {
		return nil, apprun.ErrUnavailable
	}
	p := principalFrom(ctx)
	if p.Key == nil {
		return nil, svcerr.New(svcerr.Forbidden, "app script runs act as an API key: send one")
	}
	r, done, err := ar.runs.Start(ctx, apprun.StartRequest{Scope: p.Scope, KeyID: p.Key.ID, RunID: newID(ctx, ids.AppScriptRun),
		Slug: in.Slug, Script: in.Name, Trigger: schema.AppRunByOwner, Args: in.Body.Args})
	if err != nil {
		return nil, err
	}
	status := http.StatusAccepted
	if done {
		status = http.StatusOK
	}
	return &appScriptRunOut{Status: status, Body: client.AppScriptRunEnvelope{OK: true, Run: *r}}, nil
}

type appRunsListInput struct {
	Slug string `path:"slug" maxLength:"64" doc:"The app's slug."`
	PageQuery
}

func (ar *appRunsAPI) list(ctx context.Context, in *appRunsListInput) (*Out[client.AppScriptRunList], error) {
	if ar.runs == nil {
		return nil, apprun.ErrUnavailable
	}
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	runs, next, err := ar.runs.List(ctx, principalFrom(ctx).Scope, in.Slug, pg)
	if err != nil {
		return nil, err
	}
	return reply(client.AppScriptRunList{OK: true, Runs: runs, NextCursor: next})
}

type appRunInput struct {
	Slug  string `path:"slug" maxLength:"64" doc:"The app's slug."`
	RunID string `path:"runId" maxLength:"200" doc:"The run (arun_…)."`
}

func (ar *appRunsAPI) get(ctx context.Context, in *appRunInput) (*Out[client.AppScriptRunEnvelope], error) {
	if ar.runs == nil {
		return nil, apprun.ErrUnavailable
	}
	r, _, err := ar.runs.Get(ctx, principalFrom(ctx).Scope, in.Slug, in.RunID)
	if err != nil {
		return nil, err
	}
	return reply(client.AppScriptRunEnvelope{OK: true, Run: *r})
}

// routes are the app script runs' routes (service access managed-agents, like the agent's).
func (ar *appRunsAPI) routes() []Route {
	const tag = "Apps"
	svc := client.ServiceManagedAgents
	return []Route{
		handle(Route{Op: client.OpAppsScriptsRun, Method: http.MethodPost, Path: "/v1/apps/{slug}/scripts/{name}/run", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsWrite, Service: svc, Idem: true, Status: http.StatusOK, FreeText: []string{"args"}, Lease: time.Minute,
			Summary: "Run an app's script as its owner (workflow appscript/<runId>): 200 with the finished run when it ends within 10 s, else 202 with the run queued or running (poll GET .../runs/{runId})"},
			ar.run),
		handle(Route{Op: client.OpAppsRunsList, Method: http.MethodGet, Path: "/v1/apps/{slug}/runs", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsRead, Service: svc, Summary: "List an app's script runs, newest first"}, ar.list),
		handle(Route{Op: client.OpAppsRunsRead, Method: http.MethodGet, Path: "/v1/apps/{slug}/runs/{runId}", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsRead, Service: svc, Summary: "Read a script run: status, args, result, log, error and platform calls"}, ar.get),
	}
}
