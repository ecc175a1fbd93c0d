package api

import (
	"context"
	"net/http"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/agentenv"
	"github.com/svcplatform/svc/internal/svcerr"
)

// agentEnvAPI serves the agent's environment variables (seed 002's /agent/env, also under /v1) and user
// MCP servers (issue 25; scope runs:write / runs:read and service access managed-agents). Variables and
// servers belong to the account, whatever project the key selects.
type agentEnvAPI struct {
	// env is nil on a server without the encryption key's box: the routes answer 503.
	env *agentenv.Store
}

var errNoAgentEnv = svcerr.New(svcerr.Unavailable, "agent environment variables and MCP servers are not configured on this server")

type setEnvInput struct {
	Body client.SetEnvRequest
}

func envToWire(v agentenv.Variable) client.EnvVar {
	return client.EnvVar{ID: v.ID, Key: v.Name, CreatedAt: v.CreatedAt.UTC(), UpdatedAt: v.UpdatedAt.UTC()}
}

func (a *agentEnvAPI) setEnv(ctx context.Context, in *setEnvInput) (*Out[client.EnvVarEnvelope], error) {
	if a.env == nil {
		return nil, errNoAgentEnv
	}
	v, err := a.env.Set(ctx, principalFrom(ctx).Scope.AccountID, in.Body.Key, in.Body.Value)
	if err != nil {
		return nil, err
	}
	return reply(client.EnvVarEnvelope{OK: true, Env: envToWire(v)})
}

func (a *agentEnvAPI) listEnv(ctx context.Context, _ *struct{}) (*Out[client.EnvVarList], error) {
	if a.env == nil {
		return nil, errNoAgentEnv
	}
	vars, err := a.env.List(ctx, principalFrom(ctx).Scope.AccountID)
	if err != nil {
		return nil, err
	}
	out := client.EnvVarList{OK: true, Env: make([]client.EnvVar, 0, len(vars))}
	for _, v := range vars {
		out.Env = append(out.Env, envToWire(v))
	}
	return reply(out)
}

type envKeyInput struct {
	Key string `path:"key" maxLength:"200" doc:"The variable's name."`
}

func (a *agentEnvAPI) deleteEnv(ctx context.Context, in *envKeyInput) (*Out[client.EnvVarEnvelope], error) {
	if a.env == nil {
		return nil, errNoAgentEnv
	}
	v, err := a.env.Delete(ctx, principalFrom(ctx).Scope.AccountID, in.Key)
	if err != nil {
		return nil, err
	}
	return reply(client.EnvVarEnvelope{OK: true, Env: envToWire(v)})
}

func mcpServerToWire(s agentenv.Server) client.MCPServer {
	return client.MCPServer{ID: s.ID, Name: s.Name, URL: s.URL, Transport: s.Transport, HeaderNames: s.HeaderNames,
		CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()}
}

type createMCPServerInput struct {
	Body client.CreateMCPServerRequest
}

func (a *agentEnvAPI) createMCPServer(ctx context.Context, in *createMCPServerInput) (*Out[client.MCPServerEnvelope], error) {
	if a.env == nil {
		return nil, errNoAgentEnv
	}
	b := in.Body
	s, err := a.env.CreateServer(ctx, principalFrom(ctx).Scope.AccountID, agentenv.NewServer{
		ID: newID(ctx, agentenv.ServerIDPrefix), Name: b.Name, URL: b.URL, Transport: b.Transport, Headers: b.Headers})
	if err != nil {
		return nil, err
	}
	return reply(client.MCPServerEnvelope{OK: true, MCPServer: mcpServerToWire(s)})
}

func (a *agentEnvAPI) listMCPServers(ctx context.Context, _ *struct{}) (*Out[client.MCPServerList], error) {
	if a.env == nil {
		return nil, errNoAgentEnv
	}
	servers, err := a.env.ListServers(ctx, principalFrom(ctx).Scope.AccountID)
	if err != nil {
		return nil, err
	}
	out := client.MCPServerList{OK: true, MCPServers: make([]client.MCPServer, 0, len(servers))}
	for _, s := range servers {
		out.MCPServers = append(out.MCPServers, mcpServerToWire(s))
	}
	return reply(out)
}

type mcpServerIDInput struct {
	ID string `path:"id" maxLength:"200" doc:"The MCP server id (mcps_...)."`
}

func (a *agentEnvAPI) getMCPServer(ctx context.Context, in *mcpServerIDInput) (*Out[client.MCPServerEnvelope], error) {
	if a.env == nil {
		return nil, errNoAgentEnv
	}
	s, err := a.env.GetServer(ctx, principalFrom(ctx).Scope.AccountID, in.ID)
	if err != nil {
		return nil, err
	}
	return reply(client.MCPServerEnvelope{OK: true, MCPServer: mcpServerToWire(s)})
}

func (a *agentEnvAPI) deleteMCPServer(ctx context.Context, in *mcpServerIDInput) (*Out[client.MCPServerEnvelope], error) {
	if a.env == nil {
		return nil, errNoAgentEnv
	}
	s, err := a.env.DeleteServer(ctx, principalFrom(ctx).Scope.AccountID, in.ID)
	if err != nil {
		return nil, err
	}
	return reply(client.MCPServerEnvelope{OK: true, MCPServer: mcpServerToWire(s)})
}

// routes are the environment variable and MCP server routes: seed 002's /agent/env and the same under
// /v1 (sharing limit operations), and /v1/agent/mcp-servers.
func (a *agentEnvAPI) routes() []Route {
	r := func(rt Route, scope client.Scope) Route {
		rt.Tag, rt.Auth, rt.Scope, rt.Service = "Agent", authKey, scope, client.ServiceManagedAgents
		return rt
	}
	var out []Route
	for _, prefix := range []string{"", "/v1"} {
		op := func(id string) string {
			if prefix == "" {
				return id + ".root"
			}
			return id
		}
		out = append(out,
			handle(r(Route{Op: op(client.OpAgentEnvSet), Limit: client.OpAgentEnvSet, Method: http.MethodPost, Path: prefix + "/agent/env",
				Summary: "Set an agent environment variable (create or replace); the value is stored encrypted and never shown"}, client.ScopeRunsWrite), a.setEnv),
			handle(r(Route{Op: op(client.OpAgentEnvList), Limit: client.OpAgentEnvList, Method: http.MethodGet, Path: prefix + "/agent/env",
				Summary: "List the agent's environment variables: names and times, never values"}, client.ScopeRunsRead), a.listEnv),
			handle(r(Route{Op: op(client.OpAgentEnvDelete), Limit: client.OpAgentEnvDelete, Method: http.MethodDelete, Path: prefix + "/agent/env/{key}",
				Summary: "Delete an agent environment variable"}, client.ScopeRunsWrite), a.deleteEnv),
		)
	}
	const one = "/v1/agent/mcp-servers/{id}"
	return append(out,
		handle(r(Route{Op: client.OpAgentMCPServersCreate, Method: http.MethodPost, Path: "/v1/agent/mcp-servers",
			Summary: "Register a user MCP server (at most 20 per account); its headers are stored encrypted and never shown", Idem: true, Status: http.StatusCreated},
			client.ScopeRunsWrite), a.createMCPServer),
		handle(r(Route{Op: client.OpAgentMCPServersList, Method: http.MethodGet, Path: "/v1/agent/mcp-servers",
			Summary: "List the account's MCP servers (header names only)"}, client.ScopeRunsRead), a.listMCPServers),
		handle(r(Route{Op: client.OpAgentMCPServersRead, Method: http.MethodGet, Path: one,
			Summary: "Read an MCP server (header names only)"}, client.ScopeRunsRead), a.getMCPServer),
		handle(r(Route{Op: client.OpAgentMCPServersDelete, Method: http.MethodDelete, Path: one,
			Summary: "Delete an MCP server", Idem: true}, client.ScopeRunsWrite), a.deleteMCPServer),
	)
}
