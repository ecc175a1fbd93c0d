package api

import (
	"context"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/connection"
	"github.com/svcplatform/svc/internal/page"
)

func connectionToWire(c connection.Connection) client.Connection {
	v := c.View()
	return client.Connection{ID: v.ID, Name: v.Name, AuthType: v.AuthType, HeaderName: v.HeaderName, Status: v.Status,
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, RotatedAt: v.RotatedAt}
}

func (s *Server) listConnections(ctx context.Context, in *listInput) (*Out[client.ConnectionList], error) {
	p, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	rows, next, err := s.connections.List(ctx, principalFrom(ctx).Scope, p)
	if err != nil {
		return nil, err
	}
	out := client.ConnectionList{OK: true, Connections: make([]client.Connection, 0, len(rows)), NextCursor: next}
	for _, c := range rows {
		out.Connections = append(out.Connections, connectionToWire(c))
	}
	return reply(out)
}

type createConnectionInput struct {
	Body client.CreateConnectionRequest
}

func (s *Server) createConnection(ctx context.Context, in *createConnectionInput) (*Out[client.ConnectionEnvelope], error) {
	b := in.Body
	c, err := s.connections.Create(ctx, principalFrom(ctx).Scope, connection.NewConnection{
		ID: newID(ctx, connection.IDPrefix), Name: b.Name, AuthType: b.AuthType, HeaderName: b.HeaderName,
		Username: b.Username, Secret: b.Secret})
	if err != nil {
		return nil, err
	}
	return reply(client.ConnectionEnvelope{OK: true, Connection: connectionToWire(c)})
}

type connectionIDInput struct {
	ConnectionID string `path:"connectionId" doc:"The connection id (conn_...)."`
}

func (s *Server) getConnection(ctx context.Context, in *connectionIDInput) (*Out[client.ConnectionEnvelope], error) {
	c, err := s.connections.Get(ctx, principalFrom(ctx).Scope, in.ConnectionID)
	if err != nil {
		return nil, err
	}
	return reply(client.ConnectionEnvelope{OK: true, Connection: connectionToWire(c)})
}

type updateConnectionInput struct {
	ConnectionID string `path:"connectionId" doc:"The connection id (conn_...)."`
	Body         client.UpdateConnectionRequest
}

func (s *Server) updateConnection(ctx context.Context, in *updateConnectionInput) (*Out[client.ConnectionEnvelope], error) {
	b := in.Body
	c, err := s.connections.Update(ctx, principalFrom(ctx).Scope, in.ConnectionID,
		connection.Patch{Name: b.Name, Secret: b.Secret, Username: b.Username, Disabled: b.Disabled})
	if err != nil {
		return nil, err
	}
	return reply(client.ConnectionEnvelope{OK: true, Connection: connectionToWire(c)})
}

func (s *Server) deleteConnection(ctx context.Context, in *connectionIDInput) (*Out[client.ConnectionEnvelope], error) {
	c, err := s.connections.Delete(ctx, principalFrom(ctx).Scope, in.ConnectionID)
	if err != nil {
		return nil, err
	}
	return reply(client.ConnectionEnvelope{OK: true, Connection: connectionToWire(c)})
}
