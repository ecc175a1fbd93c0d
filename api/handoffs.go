package api

import (
	"context"

	"github.com/danielgtaylor/huma/v2"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/handoff"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
)

// handoffsAPI serves seed 001's handoff planner (issue 22): POST /api/handoff at the host root, and the
// recorded handoffs under /v1. Keys are the authentication (the dashboard's device token belongs to the
// dashboard's issue).
type handoffsAPI struct {
	handoffs *handoff.Service
}

type handoffInput struct {
	Body client.HandoffRequest
}

type handoffOut struct {
	Status int
	Body   client.HandoffEnvelope
}

// handoff plans a handoff (200) or records a send and starts its workflow handoff/<id> (202).
func (ha *handoffsAPI) handoff(ctx context.Context, in *handoffInput) (*handoffOut, error) {
	if ha.handoffs == nil {
		return nil, handoff.ErrNoVault
	}
	p := principalFrom(ctx)
	r := handoff.Request{Scope: p.Scope, ID: newID(ctx, ids.Handoff), Body: in.Body}
	if p.Key != nil {
		r.KeyID = p.Key.ID
	}
	env, err := ha.handoffs.Handoff(ctx, r, time.Now())
	if err != nil {
		return nil, err
	}
	status := http.StatusAccepted
	if env.Handoff == nil {
		status = http.StatusOK
	}
	return &handoffOut{Status: status, Body: *env}, nil
}

type handoffIDInput struct {
	HandoffID string `path:"handoffId" maxLength:"200" doc:"The handoff (hnd_…)."`
}

// get reads one of the account's handoffs: status, transfer id, acks.
func (ha *handoffsAPI) get(ctx context.Context, in *handoffIDInput) (*Out[client.HandoffReadEnvelope], error) {
	h, err := ha.handoffs.Get(ctx, principalFrom(ctx).Scope, in.HandoffID)
	if err != nil {
		return nil, err
	}
	return reply(client.HandoffReadEnvelope{OK: true, Handoff: *h})
}

type listHandoffsInput struct {
	PageQuery
}

// list lists the account's handoffs, newest first.
func (ha *handoffsAPI) list(ctx context.Context, in *listHandoffsInput) (*Out[client.HandoffList], error) {
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	hs, next, err := ha.handoffs.List(ctx, principalFrom(ctx).Scope, pg)
	if err != nil {
		return nil, err
	}
	return reply(client.HandoffList{OK: true, Handoffs: hs, NextCursor: next})
}

// machines lists the machine cards of the platform's vault (the tool server's list_svc_machines).
func (ha *handoffsAPI) machines(ctx context.Context, _ *struct{}) (*Out[client.HandoffMachines], error) {
	cards, err := ha.handoffs.Machines()
	if err != nil {
		return nil, err
	}
	return reply(client.HandoffMachines{OK: true, Machines: cards})
}

// documentPlanAnswer adds the 200 answer of action plan beside the 202 of a send.
func documentPlanAnswer(op *huma.Operation) {
	if accepted := op.Responses["202"]; accepted != nil {
		op.Responses["200"] = &huma.Response{Description: "The plan (action plan): nothing was recorded or sent.", Content: accepted.Content}
	}
}

// routes are the handoff routes.
func (ha *handoffsAPI) routes() []Route {
	const tag = "Handoffs"
	return []Route{
		handle(Route{Op: client.OpHandoffsCreate, Method: http.MethodPost, Path: "/api/handoff", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsWrite, Idem: true, Status: http.StatusAccepted, FreeText: []string{"task", "note"}, document: documentPlanAnswer,
			Summary: "Plan a handoff to a machine of the vault (plan: 200, no side effects) or send files and/or a task (202): the workflow handoff/<id> writes the vault transfer and waits for the receiver's ack"},
			ha.handoff),
		handle(Route{Op: client.OpHandoffMachinesList, Method: http.MethodGet, Path: "/api/handoff/machines", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsRead, Summary: "List the machine cards of the platform's vault: machines, runtimes, agents and their worker classes"},
			ha.machines),
		handle(Route{Op: client.OpHandoffsList, Method: http.MethodGet, Path: "/v1/handoffs", Tag: tag, Auth: authKey, Scope: client.ScopeRunsRead,
			Summary: "List the account's handoffs, newest first"}, ha.list),
		handle(Route{Op: client.OpHandoffsRead, Method: http.MethodGet, Path: "/v1/handoffs/{handoffId}", Tag: tag, Auth: authKey, Scope: client.ScopeRunsRead,
			Summary: "Read a handoff: status, transfer id, acks"}, ha.get),
	}
}
