package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// directRead answers a read tool in process: what the handler of the tool's GET route answers, judged
// by the same rules the middleware applies to that route, without a second pass through the engine.
type directRead struct {
	// params are the tool arguments that are the route's path parameters.
	params []string
	// read is the route handler's answer (its success envelope) for the call's arguments, in a context
	// that carries the request's state as the middleware leaves it for a handler.
	read func(ctx context.Context, args toolArgs) (any, error)
}

// direct answers a read tool's call as its REST request (GET path of route) would be answered through
// the engine, and returns the same status and body. The MCP request that carries the call has been
// authenticated by the middleware with the headers the REST request would forward (key, project, client
// address), so its principal is the one a second authentication would find; the rest is the middleware's
// own rules, in its order: the request gets an id of its own and one audit event (operation, path,
// status, client address), its parameters are checked as strictInput does, its key is authorised as
// authorize does (scope, read-only, service access), its limits are spent as limited does, and errors
// are the envelopes toAPIError makes. Only the routes directAllowed admits take this path.
func (m *mcpTools) direct(ctx context.Context, route, path string, args toolArgs, d *directRead) (int, []byte) {
	r := m.s.routes[route]
	outer := stateFrom(ctx)
	p := outer.principal
	st := &requestState{id: ids.New(ids.Request), origin: outer.origin, principal: p}
	ctx = context.WithValue(ctx, ctxKey{}, st)
	status, body := m.answerDirect(ctx, r, p, args, d)
	if unescaped, err := url.PathUnescape(path); err == nil {
		path = unescaped // the engine's request path is the unescaped one
	}
	m.s.audit.Record(auditEventOf(st, r, p, http.MethodGet, path, mcpCallerFrom(ctx).clientIP, status))
	return status, body
}

// answerDirect is direct's answer, before its audit event.
func (m *mcpTools) answerDirect(ctx context.Context, r *Route, p *Principal, args toolArgs, d *directRead) (status int, body []byte) {
	defer func() { // as recoverPanics does for the engine
		if v := recover(); v != nil {
			m.s.log.Error("panic in handler", "requestId", requestIDFrom(ctx), "panic", v)
			status, body = m.errorAnswer(ctx, svcerr.New(svcerr.Internal, "internal error"))
		}
	}()
	params := map[string]string{}
	for _, name := range d.params {
		v, _ := args.str(name, true)
		if err := checkText("path parameter", name, v); err != nil {
			return m.errorAnswer(ctx, err)
		}
		params[name] = v
	}
	if err := m.s.authorizeKey(r, p, func(name string) string { return params[name] }); err != nil {
		return m.errorAnswer(ctx, err)
	}
	if hasLimits(p) {
		dec, err := m.s.decideLimits(ctx, r, p, "", "")
		if err == nil && !dec.Allowed {
			err = limitExceeded(dec)
		}
		if err != nil {
			return m.errorAnswer(ctx, err)
		}
	}
	out, err := d.read(ctx, args)
	if err != nil {
		return m.errorAnswer(ctx, err)
	}
	body, err = json.Marshal(out)
	if err != nil {
		return m.errorAnswer(ctx, svcerr.New(svcerr.Internal, "encoding the answer failed"))
	}
	return http.StatusOK, body
}

// errorAnswer is the status and envelope the API answers err with.
func (m *mcpTools) errorAnswer(ctx context.Context, err error) (int, []byte) {
	ae := m.s.toAPIError(ctx, err)
	body, mErr := json.Marshal(ae.ErrorEnvelope)
	if mErr != nil {
		return http.StatusInternalServerError, errorBody(client.CodeInternal, "encoding the error failed")
	}
	return ae.status, body
}

// directAllowed says whether a tool may answer route r directly: a GET route authenticated by API key
// whose middleware does no more than direct does (no idempotency, limit qualifiers, LimitOnly,
// deprecation headers or other callers), with every path parameter it has among d's.
func directAllowed(r *Route, d *directRead) error {
	switch {
	case r == nil:
		return errors.New("no such route")
	case r.Method != http.MethodGet || r.Auth != authKey:
		return fmt.Errorf("%s %s is not a GET route authenticated by API key", r.Method, r.Path)
	case r.Idem || r.Qualified || r.LimitOnly != nil || r.Deprecated != nil || r.Partner || r.SessionOnly || r.RawBody:
		return fmt.Errorf("the middleware of %s %s does more than a direct read does", r.Method, r.Path)
	}
	for _, name := range pathParams(r.Path) {
		if !slices.Contains(d.params, name) {
			return fmt.Errorf("path parameter %s of %s is not among the direct read's", name, r.Path)
		}
	}
	return nil
}

// pathParams are the names of a route path's {parameters}.
func pathParams(path string) []string {
	var out []string
	for _, seg := range strings.Split(path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			out = append(out, strings.TrimSuffix(name, "}"))
		}
	}
	return out
}
