package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/schema"
)

// audited records one audit event per authenticated request, once it is answered (so refusals are
// audited too). The event of a read joins the background writer's next batch (written within ~50 ms,
// off the read's critical path); so does that of a route marked Reads (a read-only query sent as POST).
// The answer of a request that may change something (any other method but GET) is held until its event is stored: with the idempotent answer's transaction when there is one
// (see record), otherwise by an INSERT here. Either way the event is in the database, and listed, when
// the client gets the answer, and a crash of the process cannot lose it.
//
// (Every event used to go through the batch writer: a client that made a dozen writes in ~16 ms and
// then listed its audit events ran before the writer's next 50 ms tick and was answered [] about half
// the time, and a kill -9 lost whatever was buffered.)
func (s *Server) audited(c *gin.Context) {
	r := s.route(c)
	p := principalFrom(c.Request.Context())
	if r == nil || p == nil {
		c.Next()
		return
	}
	if r.Method == http.MethodGet || r.Reads {
		c.Next()
		s.audit.Record(s.auditEvent(c, r, p, c.Writer.Status()))
		return
	}
	if r.Streamed {
		c.Next()
		s.writeAuditEvent(c.Request.Context(), s.auditEvent(c, r, p, c.Writer.Status()))
		return
	}
	w := &capture{ResponseWriter: c.Writer}
	c.Writer = w
	defer func() { c.Writer = w.ResponseWriter }() // after a panic, recoverPanics answers on the real writer
	c.Next()
	c.Writer = w.ResponseWriter
	switch ev := s.auditEvent(c, r, p, w.Status()); {
	case stateFrom(c.Request.Context()).auditStored:
	case w.Status() == http.StatusServiceUnavailable:
		// A dependency (PostgreSQL, most often) is down and nothing was changed: the answer does not wait
		// for a write that would fail too; the background writer retries.
		s.audit.Record(ev)
	default:
		s.writeAuditEvent(c.Request.Context(), ev)
	}
	_, _ = c.Writer.Write(w.buf.Bytes())
}

// auditWriteTimeout bounds how long an answer waits for its event's direct write before leaving the
// event to the background writer (an outage must not hold every answer for long).
const auditWriteTimeout = 2 * time.Second

// writeAuditEvent stores an event before its answer is sent; if the database refuses or is slower than
// auditWriteTimeout, the event goes to the background writer, which retries.
func (s *Server) writeAuditEvent(ctx context.Context, ev schema.AuditEvent) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditWriteTimeout)
	defer cancel()
	if err := s.audit.Write(ctx, ev); err != nil {
		s.log.Error("write audit event; left to the background writer", "requestId", ev.RequestID, "err", err)
		s.audit.Record(ev)
	}
}

// auditEvent is the event of a request answered with status.
func (s *Server) auditEvent(c *gin.Context, r *Route, p *Principal, status int) schema.AuditEvent {
	st := stateFrom(c.Request.Context())
	ev := schema.AuditEvent{
		ID: ids.New(ids.AuditEvent), AccountID: p.Scope.AccountID, ProjectID: p.Scope.ProjectID,
		Operation: r.LimitOp(), Method: c.Request.Method, Path: c.Request.URL.Path, Status: status,
		RequestID: st.id, ClientIP: c.ClientIP(), CreatedAt: time.Now().UTC(), ChargedMillicredits: st.charged,
	}
	if p.Key != nil {
		ev.KeyID = &p.Key.ID
	}
	if p.Partner != nil {
		ev.PartnerID = &p.Partner.ID
	}
	if p.Session != nil {
		ev.SessionAddress = &p.Session.Address
	}
	return ev
}

type auditListInput struct {
	PageQuery
	Operation string `query:"operation" doc:"Only this limit operation id."`
	KeyID     string `query:"keyId" doc:"Only requests of this key."`
	Status    int    `query:"status" minimum:"100" maximum:"599" doc:"Only answers with this HTTP status."`
	From      string `query:"from" doc:"RFC 3339 time: events at or after it."`
	To        string `query:"to" doc:"RFC 3339 time: events before it."`
}

func (au *auditAPI) listAuditEvents(ctx context.Context, in *auditListInput) (*Out[client.AuditEventList], error) {
	p, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	f, err := auditFilter(ctx, in)
	if err != nil {
		return nil, err
	}
	rows, next, err := audit.List(ctx, au.db, f, p)
	if err != nil {
		return nil, err
	}
	out := client.AuditEventList{OK: true, AuditEvents: make([]client.AuditEvent, 0, len(rows)), NextCursor: next}
	for i := range rows {
		out.AuditEvents = append(out.AuditEvents, audit.EventToWire(&rows[i]))
	}
	return reply(out)
}

func auditFilter(ctx context.Context, in *auditListInput) (audit.Filter, error) {
	p := principalFrom(ctx)
	f := audit.Filter{AccountID: p.Scope.AccountID, Project: p.Scope.ProjectID, Operation: in.Operation, KeyID: in.KeyID, Status: in.Status}
	var err error
	if f.From, err = parseTime("from", in.From); err != nil {
		return f, err
	}
	if f.To, err = parseTime("to", in.To); err != nil {
		return f, err
	}
	return f, nil
}

// auditAPI serves the audit events the middleware (audited) records.
type auditAPI struct {
	db *bun.DB
}

// routes are the audit routes.
func (au *auditAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpAuditEventsList, Method: http.MethodGet, Path: "/v1/audit-events", Summary: "List audit events", Tag: "Projects",
			Auth: authKey, Scope: client.ScopeAuditRead}, au.listAuditEvents),
	}
}
