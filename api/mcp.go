package api

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humagin"
	"github.com/gin-gonic/gin"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/svcerr"
)

// MCPPath is where the Streamable HTTP MCP transport is mounted (seed 000's {mcp_url}).
const MCPPath = "/mcp"

// mcpRoute is the route-table entry of the MCP transport: the same middleware as REST authenticates it
// (401 before any MCP session exists), requires services:read and counts sessions against actions.list.
// It is marked Reads because the transport itself changes nothing: every tool call is a request of its
// own through the REST route it stands for, authorised, limited, made idempotent and audited there.
// Its JSON-RPC params may carry the caller's free text (tool arguments) at any depth.
func mcpRoute() Route {
	return Route{Op: "mcp.connect", Limit: client.OpActionsList, Method: http.MethodPost, Path: MCPPath, Tag: "MCP",
		Summary: "Streamable HTTP MCP transport (stateless): the platform's actions as tools",
		Auth:    authKey, Scope: client.ScopeServicesRead, Reads: true, FreeText: []string{"params", "result", "error"},
		LimitOnly: mcpSessionStart}
}

// mcpSessionStart reports whether the request opens an MCP session (JSON-RPC initialize, or
// server/discover, its replacement in the sessionless protocol of 2026-07-28): only those
// count against the transport's limit operation, so a limit on actions.list bounds sessions, not the
// protocol's chatter; tool calls count against their own routes' operations.
func mcpSessionStart(c *gin.Context) bool {
	m := mcpMessageOf(c).Method
	return m == "initialize" || m == "server/discover"
}

// mcpMessage is what the transport reads of a JSON-RPC message before the SDK does.
type mcpMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	} `json:"params"`
}

// wantsProgress reports whether the message's caller asked for progress notifications (a progress
// token in its params' _meta): only such a request can hear from the server before its result.
func (m mcpMessage) wantsProgress() bool {
	t := bytes.TrimSpace(m.Params.Meta.ProgressToken)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

// mcpMessageOf decodes the request's JSON-RPC message (the body strictInput has buffered); a body that
// is not one yields the zero message and the SDK answers it.
func mcpMessageOf(c *gin.Context) mcpMessage {
	var m mcpMessage
	if body, err := readBody(c); err == nil {
		_ = json.Unmarshal(body, &m)
	}
	return m
}

// mcpCallerKey keys the mcpCaller of a transport request in its context.
type mcpCallerKey struct{}

// mcpCaller is what a tool call forwards of the MCP request that carries it to the REST route it
// becomes: the caller's headers and address, and the JSON-RPC id (for derived idempotency keys).
type mcpCaller struct {
	header     http.Header
	remoteAddr string
	host       string
	tls        *tls.ConnectionState
	requestID  string
	// clientIP is the client address the middleware judged the MCP request by (Gin's ClientIP): the
	// address a tool call's REST request is judged and audited by too.
	clientIP string
}

func mcpCallerFrom(ctx context.Context) *mcpCaller {
	c, _ := ctx.Value(mcpCallerKey{}).(*mcpCaller)
	return c
}

// mcpInput is the transport's request: one JSON-RPC message, read whole (strictInput buffered it).
type mcpInput struct {
	Accept  string `header:"Accept" doc:"Must name both application/json and text/event-stream (the Streamable HTTP transport)."`
	RawBody []byte
}

// mcpAPI serves the MCP transport: one stateless MCP server for every key (tools/list is filtered per
// key), behind the SDK's bearer check configured for keys without expiry.
type mcpAPI struct {
	s *Server
	// stream answers with a text/event-stream (progress notifications, then the result); plain answers
	// a request that asked for no progress with one application/json body, which costs less.
	stream, plain http.Handler
}

// mcpRoutes builds the MCP server and its tools and returns the transport's route.
func (s *Server) mcpRoutes(d Deps) ([]Route, error) {
	tools := &mcpTools{s: s, runs: d.Runs, runsAPI: &runsAPI{runs: d.Runs}, catalog: s.catalog, temporalUI: d.TemporalUI}
	srv := mcp.NewServer(&mcp.Implementation{Name: "svc", Title: "svc platform", Version: d.Version},
		&mcp.ServerOptions{Instructions: mcpInstructions, Logger: d.Logger})
	if err := tools.install(srv); err != nil {
		return nil, fmt.Errorf("mcp tools: %w", err)
	}
	transport := func(jsonResponse bool) http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			// Every request carries an API key, so a page that rebinds a name to a loopback address gets
			// nothing without one; and svcd behind a reverse proxy on the same host sees loopback requests
			// for its public name, which the SDK's localhost protection would refuse.
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: jsonResponse, Logger: d.Logger, DisableLocalhostProtection: true})
	}
	bearer := auth.RequireBearerToken(s.mcpTokenInfo, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	m := &mcpAPI{s: s, stream: bearer(transport(false)), plain: bearer(transport(true))}
	r := mcpRoute()
	r.document = documentMCP
	return []Route{handle(r, m.serve)}, nil
}

// serve hands an authenticated request to the SDK, which answers it on the connection (JSON, or a
// text/event-stream of progress notifications and the result when the request asked for progress).
func (m *mcpAPI) serve(_ context.Context, in *mcpInput) (*huma.StreamResponse, error) {
	if !acceptsMCP(in.Accept) {
		// The SDK would answer this in plain text; the platform's errors are JSON naming the field.
		return nil, svcerr.Invalid("Accept", "an MCP request must accept both application/json and text/event-stream (the Streamable HTTP transport); got %q", in.Accept)
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		c := humagin.Unwrap(hctx)
		c.Request.Body = io.NopCloser(bytes.NewReader(in.RawBody))
		m.s.serveMCP(c, m.stream, m.plain)
	}}, nil
}

// acceptsMCP says whether an Accept header names both media types the Streamable HTTP transport answers
// with (or wildcards covering them).
func acceptsMCP(accept string) bool {
	var jsonOK, sseOK bool
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "*/*":
			jsonOK, sseOK = true, true
		case "application/*", "application/json":
			jsonOK = true
		case "text/*", "text/event-stream":
			sseOK = true
		}
	}
	return jsonOK && sseOK
}

// mcpInstructions tell a connected agent how the tools relate.
const mcpInstructions = "svc platform tools. list_services shows what this key may use; each catalog action is a tool " +
	"named <serviceId>__<operationId>. create_run starts a durable run; get_run with waitSeconds follows it. " +
	"Mutating tools take an optional idempotencyKey: a retry with the same key never repeats the work."

// serveMCP hands an authenticated request to the SDK, with what its tool calls forward: a request that
// carries a progress token is answered as a text/event-stream (its notifications, then its result), any
// other with one application/json body.
func (s *Server) serveMCP(c *gin.Context, stream, plain http.Handler) {
	req := c.Request
	msg := mcpMessageOf(c)
	if req.Header.Get("Authorization") == "" && req.Header.Get(headerAPIKey) != "" {
		req.Header.Set("Authorization", "Bearer "+req.Header.Get(headerAPIKey)) // for the SDK's bearer check
	}
	caller := &mcpCaller{header: req.Header.Clone(), remoteAddr: req.RemoteAddr, host: req.Host, tls: req.TLS,
		requestID: string(msg.ID), clientIP: c.ClientIP()}
	c.Request = req.WithContext(context.WithValue(req.Context(), mcpCallerKey{}, caller))
	h := plain
	if msg.wantsProgress() {
		h = stream
	}
	h.ServeHTTP(c.Writer, c.Request)
}

// mcpTokenInfo is the SDK's view of the key the middleware has already authenticated: keys have no
// expiry (AllowMissingExpiration), and revocation is the middleware's concern.
func (s *Server) mcpTokenInfo(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
	p := principalFrom(ctx)
	if p == nil || p.Key == nil {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: p.Key.ID, Scopes: apikey.GrantsOf(p.Key).Scopes}, nil
}

// documentMCP describes the transport in the OpenAPI document.
func documentMCP(op *huma.Operation) {
	op.Description += " The Model Context Protocol's Streamable HTTP transport in stateless mode: each POST carries " +
		"one JSON-RPC message and is answered with JSON or a text/event-stream of progress notifications and " +
		"the result (GET and DELETE are not used). Send Accept: application/json, text/event-stream. " +
		"Only initialize (or server/discover) requests count against actions.list; each tool call is authorised, limited and " +
		"audited as the REST request it stands for."
	if op.RequestBody != nil {
		op.RequestBody.Description = "A JSON-RPC 2.0 message of MCP."
		op.RequestBody.Content = map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: "object"}}}
	}
	if resp := op.Responses["200"]; resp != nil {
		resp.Description = "The JSON-RPC answer, as JSON or as a text/event-stream."
		resp.Content = map[string]*huma.MediaType{
			"application/json":  {Schema: &huma.Schema{Type: "object"}},
			"text/event-stream": {Schema: &huma.Schema{Type: "string"}},
		}
	}
}

// mcpWaitLimit bounds get_run's wait for a run to finish.
const mcpWaitLimit = 30 * time.Second
