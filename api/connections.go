package api

import (
	"context"
	"net/http"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/connection"
	"github.com/svcplatform/svc/internal/page"
)

func (co *connectionsAPI) listConnections(ctx context.Context, in *listInput) (*Out[client.ConnectionList], error) {
	p, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	rows, next, err := co.connections.List(ctx, principalFrom(ctx).Scope, p)
	if err != nil {
		return nil, err
	}
	out := client.ConnectionList{OK: true, Connections: make([]client.Connection, 0, len(rows)), NextCursor: next}
	for _, c := range rows {
		out.Connections = append(out.Connections, connection.ToWire(c))
	}
	return reply(out)
}

type createConnectionInput struct {
	Body client.CreateConnectionRequest
}

func (co *connectionsAPI) createConnection(ctx context.Context, in *createConnectionInput) (*Out[client.ConnectionEnvelope], error) {
	b := in.Body
	c, err := co.connections.Create(ctx, principalFrom(ctx).Scope, connection.NewConnection{
		ID: newID(ctx, connection.IDPrefix), Name: b.Name, AuthType: b.AuthType, HeaderName: b.HeaderName,
		Username: b.Username, Secret: b.Secret})
	if err != nil {
		return nil, err
	}
	return reply(client.ConnectionEnvelope{OK: true, Connection: connection.ToWire(c)})
}

type connectionIDInput struct {
	ConnectionID string `path:"connectionId" doc:"The connection id (conn_...)."`
}

func (co *connectionsAPI) getConnection(ctx context.Context, in *connectionIDInput) (*Out[client.ConnectionEnvelope], error) {
	c, err := co.connections.Get(ctx, principalFrom(ctx).Scope, in.ConnectionID)
	if err != nil {
		return nil, err
	}
	return reply(client.ConnectionEnvelope{OK: true, Connection: connection.ToWire(c)})
}

type updateConnectionInput struct {
	ConnectionID string `path:"connectionId" doc:"The connection id (conn_...)."`
	Body         client.UpdateConnectionRequest
}

func (co *connectionsAPI) updateConnection(ctx context.Context, in *updateConnectionInput) (*Out[client.ConnectionEnvelope], error) {
	b := in.Body
	c, err := co.connections.Update(ctx, principalFrom(ctx).Scope, in.ConnectionID,
		connection.Patch{Name: b.Name, Secret: b.Secret, Username: b.Username, Disabled: b.Disabled})
	if err != nil {
		return nil, err
	}
	return reply(client.ConnectionEnvelope{OK: true, Connection: connection.ToWire(c)})
}

func (co *connectionsAPI) deleteConnection(ctx context.Context, in *connectionIDInput) (*Out[client.ConnectionEnvelope], error) {
	c, err := co.connections.Delete(ctx, principalFrom(ctx).Scope, in.ConnectionID)
	if err != nil {
		return nil, err
	}
	return reply(client.ConnectionEnvelope{OK: true, Connection: connection.ToWire(c)})
}

// connectionsAPI serves protected connections (upstream credentials).
type connectionsAPI struct {
	connections *connection.Store
}

// routes are the connections routes.
func (co *connectionsAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpConnectionsList, Method: http.MethodGet, Path: "/v1/connections", Summary: "List protected connections", Tag: "Connections",
			Auth: authKey, Scope: client.ScopeConnectionsRead}, co.listConnections),
		handle(Route{Op: client.OpConnectionsCreate, Method: http.MethodPost, Path: "/v1/connections", Summary: "Store an upstream credential", Tag: "Connections",
			Auth: authKey, Scope: client.ScopeConnectionsWrite, Idem: true, Status: http.StatusCreated}, co.createConnection),
		handle(Route{Op: client.OpConnectionsRead, Method: http.MethodGet, Path: "/v1/connections/{connectionId}", Summary: "Read a connection's metadata", Tag: "Connections",
			Auth: authKey, Scope: client.ScopeConnectionsRead}, co.getConnection),
		handle(Route{Op: client.OpConnectionsUpdate, Method: http.MethodPatch, Path: "/v1/connections/{connectionId}", Summary: "Rotate, rename, disable or enable a connection", Tag: "Connections",
			Auth: authKey, Scope: client.ScopeConnectionsWrite, Idem: true}, co.updateConnection),
		handle(Route{Op: client.OpConnectionsDelete, Method: http.MethodDelete, Path: "/v1/connections/{connectionId}", Summary: "Delete a connection", Tag: "Connections",
			Auth: authKey, Scope: client.ScopeConnectionsWrite, Idem: true}, co.deleteConnection),
	}
}
