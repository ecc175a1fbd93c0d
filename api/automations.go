package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
)

// automationsAPI serves automations: cron-driven runs on Temporal Schedules (/v1/automations, and
// seed 002's /user/automation twins).
type automationsAPI struct {
	automations *automation.Service
}

type createAutomationInput struct {
	Body client.CreateAutomationRequest
}

type automationIDInput struct {
	AutomationID string `path:"automationId" maxLength:"200" doc:"The automation id (auto_...)."`
}

type automationNoteInput struct {
	AutomationID string `path:"automationId" maxLength:"200" doc:"The automation id (auto_...)."`
	Body         *client.AutomationNoteRequest
}

type updateAutomationInput struct {
	AutomationID string `path:"automationId" maxLength:"200" doc:"The automation id (auto_...)."`
	Body         client.UpdateAutomationRequest
}

type listAutomationsInput struct {
	PageQuery
	Status string `query:"status" enum:"active,paused,cancelled,completed" doc:"Only automations in this status."`
}

func automationReply(a *client.Automation, err error) (*Out[client.AutomationEnvelope], error) {
	if err != nil {
		return nil, err
	}
	return reply(client.AutomationEnvelope{OK: true, Automation: *a})
}

// createAutomation records an automation and its schedule; the key must be allowed the action's service.
func (aa *automationsAPI) createAutomation(ctx context.Context, in *createAutomationInput) (*Out[client.AutomationEnvelope], error) {
	p := principalFrom(ctx)
	input, err := aa.automations.Validate(&in.Body)
	if err != nil {
		return nil, err
	}
	if err := serviceAccess(apikey.GrantsOf(p.Key), in.Body.Action.ServiceID); err != nil {
		return nil, err
	}
	return automationReply(aa.automations.Create(ctx, automation.NewAutomation{ID: newID(ctx, ids.Automation), Scope: p.Scope,
		KeyID: p.Key.ID, Req: in.Body, Input: input}))
}

func (aa *automationsAPI) listAutomations(ctx context.Context, in *listAutomationsInput) (*Out[client.AutomationList], error) {
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	var statuses []string
	if in.Status != "" {
		statuses = []string{in.Status}
	}
	list, next, err := aa.automations.List(ctx, principalFrom(ctx).Scope, statuses, pg)
	if err != nil {
		return nil, err
	}
	return reply(client.AutomationList{OK: true, Automations: list, NextCursor: next})
}

// listActiveAutomations is seed 002's GET /user/automation: the automations that are not cancelled,
// completed or deleted (active and paused), newest first.
func (aa *automationsAPI) listActiveAutomations(ctx context.Context, in *PageQuery) (*Out[client.AutomationList], error) {
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	list, next, err := aa.automations.List(ctx, principalFrom(ctx).Scope, []string{client.AutomationActive, client.AutomationPaused}, pg)
	if err != nil {
		return nil, err
	}
	return reply(client.AutomationList{OK: true, Automations: list, NextCursor: next})
}

func (aa *automationsAPI) getAutomation(ctx context.Context, in *automationIDInput) (*Out[client.AutomationEnvelope], error) {
	return automationReply(aa.automations.Get(ctx, principalFrom(ctx).Scope, in.AutomationID))
}

func (aa *automationsAPI) updateAutomation(ctx context.Context, in *updateAutomationInput) (*Out[client.AutomationEnvelope], error) {
	return automationReply(aa.automations.Update(ctx, principalFrom(ctx).Scope, in.AutomationID, in.Body))
}

func note(in *automationNoteInput) string {
	if in.Body == nil {
		return ""
	}
	return strings.TrimSpace(in.Body.Note)
}

func (aa *automationsAPI) pauseAutomation(ctx context.Context, in *automationNoteInput) (*Out[client.AutomationEnvelope], error) {
	return automationReply(aa.automations.Pause(ctx, principalFrom(ctx).Scope, in.AutomationID, note(in)))
}

func (aa *automationsAPI) resumeAutomation(ctx context.Context, in *automationNoteInput) (*Out[client.AutomationEnvelope], error) {
	return automationReply(aa.automations.Resume(ctx, principalFrom(ctx).Scope, in.AutomationID, note(in)))
}

func (aa *automationsAPI) triggerAutomation(ctx context.Context, in *automationIDInput) (*Out[client.AutomationEnvelope], error) {
	return automationReply(aa.automations.Trigger(ctx, principalFrom(ctx).Scope, in.AutomationID))
}

func (aa *automationsAPI) cancelAutomation(ctx context.Context, in *automationIDInput) (*Out[client.AutomationEnvelope], error) {
	return automationReply(aa.automations.Cancel(ctx, principalFrom(ctx).Scope, in.AutomationID))
}

func (aa *automationsAPI) deleteAutomation(ctx context.Context, in *automationIDInput) (*Out[client.AutomationEnvelope], error) {
	return automationReply(aa.automations.Delete(ctx, principalFrom(ctx).Scope, in.AutomationID))
}

// taskIDInput names an automation as seed 002's paths do (:taskId).
type taskIDInput struct {
	TaskID string `path:"taskId" maxLength:"200" doc:"The automation id (auto_...)."`
}

type taskNoteInput struct {
	TaskID string `path:"taskId" maxLength:"200" doc:"The automation id (auto_...)."`
	Body   *client.AutomationNoteRequest
}

// byTask adapts a handler of /v1/automations/{automationId} to seed 002's /user/automation/{taskId}.
func byTask(h func(context.Context, *automationIDInput) (*Out[client.AutomationEnvelope], error)) func(context.Context, *taskIDInput) (*Out[client.AutomationEnvelope], error) {
	return func(ctx context.Context, in *taskIDInput) (*Out[client.AutomationEnvelope], error) {
		return h(ctx, &automationIDInput{AutomationID: in.TaskID})
	}
}

// byTaskNote is byTask for the routes with a note.
func byTaskNote(h func(context.Context, *automationNoteInput) (*Out[client.AutomationEnvelope], error)) func(context.Context, *taskNoteInput) (*Out[client.AutomationEnvelope], error) {
	return func(ctx context.Context, in *taskNoteInput) (*Out[client.AutomationEnvelope], error) {
		return h(ctx, &automationNoteInput{AutomationID: in.TaskID, Body: in.Body})
	}
}

// userAutomationRoute is seed 002's twin of a /v1/automations route: /user/automation/:taskId/…, the
// same handler, scope, idempotency and limit operation, its own operation id ("user." + the /v1 one).
func userAutomationRoute(r Route, path string) Route {
	r.Limit = r.LimitOp()
	r.Op = "user." + r.Op
	r.Path = path
	r.Summary += " (seed 002's path)"
	r.Session = true
	return r
}

// routes are the automations routes.
func (aa *automationsAPI) routes() []Route {
	const tag = "Automations"
	const one = "/v1/automations/{automationId}"
	write := func(r Route) Route {
		r.Tag, r.Auth, r.Scope, r.Idem = tag, authKey, client.ScopeRunsWrite, true
		return r
	}
	read := func(r Route) Route {
		r.Tag, r.Auth, r.Scope = tag, authKey, client.ScopeRunsRead
		return r
	}
	pause := write(Route{Op: client.OpAutomationsPause, Method: http.MethodPost, Path: one + "/pause",
		Summary: "Pause an automation's schedule (an optional note shows in the Temporal Web UI)"})
	resume := write(Route{Op: client.OpAutomationsResume, Method: http.MethodPost, Path: one + "/resume",
		Summary: "Resume a paused automation"})
	cancel := write(Route{Op: client.OpAutomationsCancel, Method: http.MethodPost, Path: one + "/cancel",
		Summary: "Cancel an automation: no further runs; a run in flight continues"})
	del := write(Route{Op: client.OpAutomationsDelete, Method: http.MethodDelete, Path: one,
		Summary: "Delete an automation: cancel it and remove it from listings"})
	return []Route{
		handle(write(Route{Op: client.OpAutomationsCreate, Method: http.MethodPost, Path: "/v1/automations",
			Summary: "Create an automation: a Temporal Schedule whose fires start runs", Status: http.StatusCreated,
			ServiceBody: "action.serviceId"}), aa.createAutomation),
		handle(read(Route{Op: client.OpAutomationsList, Method: http.MethodGet, Path: "/v1/automations",
			Summary: "List automations, newest first"}), aa.listAutomations),
		handle(read(Route{Op: client.OpAutomationsRead, Method: http.MethodGet, Path: one,
			Summary: "Read an automation: counts, next fire times, recent runs"}), aa.getAutomation),
		handle(write(Route{Op: client.OpAutomationsUpdate, Method: http.MethodPatch, Path: one,
			Summary: "Change an automation's name, cron, timezone or input"}), aa.updateAutomation),
		handle(pause, aa.pauseAutomation), handle(resume, aa.resumeAutomation),
		handle(write(Route{Op: client.OpAutomationsTrigger, Method: http.MethodPost, Path: one + "/trigger",
			Summary: "Fire an automation once now"}), aa.triggerAutomation),
		handle(cancel, aa.cancelAutomation), handle(del, aa.deleteAutomation),
		handle(userAutomationRoute(read(Route{Op: client.OpAutomationsList, Method: http.MethodGet, Path: "/v1/automations",
			Summary: "List active and paused automations"}), "/user/automation"), aa.listActiveAutomations),
		handle(userAutomationRoute(pause, "/user/automation/{taskId}/pause"), byTaskNote(aa.pauseAutomation)),
		handle(userAutomationRoute(resume, "/user/automation/{taskId}/resume"), byTaskNote(aa.resumeAutomation)),
		handle(userAutomationRoute(cancel, "/user/automation/{taskId}/cancel"), byTask(aa.cancelAutomation)),
		handle(userAutomationRoute(del, "/user/automation/{taskId}"), byTask(aa.deleteAutomation)),
	}
}
