package api

import (
	"context"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/svcerr"
)

type createRunInput struct {
	Body client.CreateRunRequest
}

func (s *Server) createRun(ctx context.Context, in *createRunInput) (*Out[client.RunEnvelope], error) {
	p := principalFrom(ctx)
	if _, err := run.Validate(in.Body.ServiceID, in.Body.OperationID, in.Body.Input); err != nil {
		return nil, err // unknown services and operations are named before access is judged
	}
	if err := serviceAccess(apikey.GrantsOf(p.Key), in.Body.ServiceID); err != nil {
		return nil, err
	}
	if in.Body.RequireApproval {
		return nil, svcerr.Invalid("requireApproval", "approvals are not available on this server yet")
	}
	r, err := s.runs.Create(ctx, run.CreateParams{
		ID: newID(ctx, ids.Run), Scope: p.Scope, KeyID: p.Key.ID,
		ServiceID: in.Body.ServiceID, OperationID: in.Body.OperationID, Input: in.Body.Input,
	})
	if err != nil {
		return nil, err
	}
	return reply(client.RunEnvelope{OK: true, Run: run.ToWire(r)})
}

type runIDInput struct {
	RunID string `path:"runId" doc:"The run id (run_...)."`
}

func (s *Server) getRun(ctx context.Context, in *runIDInput) (*Out[client.RunEnvelope], error) {
	p := principalFrom(ctx)
	r, err := s.runs.Store().Read(ctx, p.Scope, in.RunID)
	if err != nil {
		return nil, err
	}
	if err := serviceAccess(apikey.GrantsOf(p.Key), r.ServiceID); err != nil {
		return nil, err
	}
	return reply(client.RunEnvelope{OK: true, Run: r})
}
