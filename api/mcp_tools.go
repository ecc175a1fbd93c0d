package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/run"
)

// mcpTools are the MCP server's tools. Each call becomes an in-process request through the Gin engine
// with the caller's key and headers, so authorisation, limits, creditsPerDay, idempotency and audit are
// the REST route's by construction.
type mcpTools struct {
	s          *Server
	runs       *run.Service
	runsAPI    *runsAPI
	catalog    *catalog.Catalog
	temporalUI string
	// gates say, per tool name, what a key needs for the tool to be listed.
	gates map[string]toolGate
}

// toolGate is what a key needs for a tool to be listed: what the REST route it becomes needs.
type toolGate struct {
	route   string // method and Gin path, the key of Server.routes
	service string // a service the key must be allowed to use ("" for none)
}

// restCall is the REST request a tool call becomes.
type restCall struct {
	method, path string
	query        url.Values
	body         any
	idemKey      string
}

// toolArgs are a call's arguments.
type toolArgs map[string]any

// platformTool is a hand-written tool: its definition, its route and how its arguments become a request.
type platformTool struct {
	tool  *mcp.Tool
	route string
	// idem marks mutating tools: they take idempotencyKey, derived from the request when absent.
	idem bool
	// waits marks get_run: its answer may wait for the run to finish (waitSeconds).
	waits bool
	build func(args toolArgs) (restCall, error)
	// direct, on a read tool, answers it in process instead of sending its REST request through the
	// engine (see mcpTools.direct).
	direct *directRead
}

// install adds the platform tools and one tool per catalog action to srv, and filters tools/list by key.
// The REST routes must be registered already: a tool answered directly is checked against its route.
func (m *mcpTools) install(srv *mcp.Server) error {
	m.gates = map[string]toolGate{}
	for _, t := range m.platformTools() {
		if t.direct != nil {
			if err := directAllowed(m.s.routes[t.route], t.direct); err != nil {
				return fmt.Errorf("tool %s: %w", t.tool.Name, err)
			}
		}
		m.add(srv, t, "")
	}
	for _, svc := range m.catalog.Services() {
		for _, op := range svc.Operations {
			if t, ok := actionTool(svc, op); ok {
				m.add(srv, t, svc.ID)
			}
		}
	}
	srv.AddReceivingMiddleware(m.filterList)
	return nil
}

// add registers t with srv and remembers its gate (service: the action's service, "" for none).
func (m *mcpTools) add(srv *mcp.Server, t platformTool, service string) {
	if t.idem {
		addIdempotencyKey(t.tool.InputSchema.(map[string]any))
	}
	m.gates[t.tool.Name] = toolGate{route: t.route, service: service}
	srv.AddTool(t.tool, m.handler(t))
}

// addIdempotencyKey declares the optional idempotencyKey argument of a mutating tool.
func addIdempotencyKey(schema map[string]any) {
	schema["properties"].(map[string]any)["idempotencyKey"] = map[string]any{"type": "string", "minLength": 1, "maxLength": 255,
		"description": "Makes retries safe: a call with the same key and arguments answers the first result. Derived from the MCP request id when absent."}
}

// handler runs a tool: arguments, the REST request, its answer as a tool result.
func (m *mcpTools) handler(t platformTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := argsOf(req.Params.Arguments)
		if err != nil {
			return invalidArg("arguments", err.Error()), nil
		}
		call, err := t.build(args)
		if bad := (*argError)(nil); errors.As(err, &bad) {
			return invalidArg(bad.field, bad.message), nil
		} else if err != nil {
			return invalidArg("arguments", err.Error()), nil
		}
		if t.idem {
			if call.idemKey, err = idempotencyKeyOf(ctx, t.tool.Name, args); err != nil {
				return invalidArg("idempotencyKey", err.Error()), nil
			}
		}
		var status int
		var body []byte
		var header http.Header
		if t.direct != nil && principalFrom(ctx) != nil && principalFrom(ctx).Key != nil {
			status, body = m.direct(ctx, t.route, call.path, args, t.direct)
		} else {
			status, body, header = m.do(ctx, call)
		}
		if t.waits && status == http.StatusOK {
			return m.waitRun(ctx, req, args, body), nil
		}
		return m.result(status, body, header), nil
	}
}

// argError names the argument at fault.
type argError struct{ field, message string }

func (e *argError) Error() string { return e.field + ": " + e.message }

// argsOf decodes a call's arguments (an object, or nothing).
func argsOf(raw json.RawMessage) (toolArgs, error) {
	args := toolArgs{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object")
	}
	return args, nil
}

// str is a string argument; required ones must be present and non-empty.
func (a toolArgs) str(name string, required bool) (string, error) {
	v, ok := a[name]
	if !ok || v == nil {
		if required {
			return "", &argError{name, name + " is required"}
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok || required && s == "" {
		return "", &argError{name, name + " must be a non-empty string"}
	}
	return s, nil
}

// object is an object argument ({} when absent).
func (a toolArgs) object(name string) (map[string]any, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return map[string]any{}, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, &argError{name, name + " must be an object"}
	}
	return o, nil
}

// number is a numeric argument (0 when absent).
func (a toolArgs) number(name string) (float64, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return 0, nil
	}
	n, ok := v.(float64)
	if !ok {
		return 0, &argError{name, name + " must be a number"}
	}
	return n, nil
}

// flag is a boolean argument (false when absent).
func (a toolArgs) flag(name string) (bool, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, &argError{name, name + " must be true or false"}
	}
	return b, nil
}

// query copies the named string arguments that are present into a query.
func (a toolArgs) query(names ...string) (url.Values, error) {
	q := url.Values{}
	for _, name := range names {
		v, ok := a[name]
		if !ok || v == nil {
			continue
		}
		switch v := v.(type) {
		case string:
			q.Set(name, v)
		case float64:
			q.Set(name, fmt.Sprint(v))
		default:
			return nil, &argError{name, name + " must be a string or a number"}
		}
	}
	return q, nil
}

// idempotencyKeyOf is the call's idempotencyKey argument, or one derived from the JSON-RPC request id,
// the tool and its arguments: a client that resends the same request gets the first answer again.
func idempotencyKeyOf(ctx context.Context, tool string, args toolArgs) (string, error) {
	if _, ok := args["idempotencyKey"]; ok {
		return args.str("idempotencyKey", true)
	}
	caller := mcpCallerFrom(ctx)
	canonical, err := json.Marshal(args) // map keys are sorted: the same arguments give the same bytes
	if err != nil {
		return "", fmt.Errorf("arguments: %w", err)
	}
	sum := sha256.Sum256([]byte(caller.requestID + "\n" + tool + "\n" + string(canonical)))
	return "mcp-" + hex.EncodeToString(sum[:16]), nil
}

// invalidArg is the tool result of a bad argument, shaped like the API's invalid_request.
func invalidArg(field, message string) *mcp.CallToolResult {
	return errorResult(http.StatusBadRequest, map[string]any{"code": client.CodeInvalidRequest, "message": message, "param": field})
}

// errorResult is a tool result with isError, carrying the platform's error code and message.
func errorResult(status int, apiErr map[string]any) *mcp.CallToolResult {
	if apiErr == nil {
		apiErr = map[string]any{"code": client.CodeInternal, "message": http.StatusText(status)}
	}
	text := fmt.Sprintf("%v: %v", apiErr["code"], apiErr["message"])
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]any{"ok": false, "status": status, "error": apiErr}}
}

// toolName is the tool of a catalog action: <serviceId>__<operationId>, dots made underscores.
func toolName(serviceID, operationID string) string {
	return strings.ReplaceAll(serviceID+"__"+operationID, ".", "_")
}

// objectSchema is an input schema with the given properties and required names.
func objectSchema(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// pageProps are the paging arguments of list tools.
func pageProps(extra map[string]any) map[string]any {
	props := map[string]any{
		"limit":  map[string]any{"type": "integer", "minimum": 1, "maximum": 200, "description": "Page size (default 50)."},
		"cursor": map[string]any{"type": "string", "description": "nextCursor of the previous page."},
	}
	for k, v := range extra {
		props[k] = v
	}
	return props
}

func str(description string) map[string]any {
	return map[string]any{"type": "string", "description": description}
}

// actionTool is the tool of a catalog action that can be started: a run (POST /v1/runs) or an external
// service's invocation (POST /v1/services/{serviceId}/invoke). Route-kind operations have routes of
// their own and no tool.
func actionTool(svc catalog.Service, op catalog.Operation) (platformTool, bool) {
	if !op.Available || op.Kind != catalog.KindRun && op.Kind != catalog.KindInvoke {
		return platformTool{}, false
	}
	props := map[string]any{"input": map[string]any{"type": "object", "additionalProperties": true,
		"description": "The operation's input (the catalog names no fields beyond its description)."}}
	desc := fmt.Sprintf("%s (service %s, operation %s, %g credits).", op.Description, svc.ID, op.ID, catalog.Credits(op.Millicredits))
	t := platformTool{tool: &mcp.Tool{Name: toolName(svc.ID, op.ID), Title: svc.Name + ": " + op.ID, InputSchema: objectSchema(props)},
		idem: true}
	if op.Kind == catalog.KindInvoke {
		t.tool.Description = "Invoke " + desc + " Answers the service's result."
		t.route = http.MethodPost + " /v1/services/:serviceId/invoke"
		t.build = func(a toolArgs) (restCall, error) {
			input, err := a.object("input")
			return restCall{method: http.MethodPost, path: "/v1/services/" + url.PathEscape(svc.ID) + "/invoke",
				body: map[string]any{"operationId": op.ID, "input": input}}, err
		}
		return t, true
	}
	props["requireApproval"] = map[string]any{"type": "boolean", "description": "Wait for an approval before running."}
	t.tool.Description = "Start a durable run of " + desc + " Answers the run; follow it with get_run."
	t.route = http.MethodPost + " /v1/runs"
	t.build = func(a toolArgs) (restCall, error) {
		return runBody(a, svc.ID, op.ID)
	}
	return t, true
}

// runBody is the POST /v1/runs request of a run of serviceID's operationID.
func runBody(a toolArgs, serviceID, operationID string) (restCall, error) {
	input, err := a.object("input")
	if err != nil {
		return restCall{}, err
	}
	approval, err := a.flag("requireApproval")
	if err != nil {
		return restCall{}, err
	}
	body := map[string]any{"serviceId": serviceID, "operationId": operationID, "input": input}
	if approval {
		body["requireApproval"] = true
	}
	return restCall{method: http.MethodPost, path: "/v1/runs", body: body}, nil
}

// filterList keeps, in tools/list answers, only the tools the caller's key may use.
func (m *mcpTools) filterList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if err != nil || method != "tools/list" || !ok {
			return res, err
		}
		out := *list
		out.Tools = make([]*mcp.Tool, 0, len(list.Tools))
		for _, t := range list.Tools {
			if m.allowed(principalFrom(ctx), t.Name) {
				out.Tools = append(out.Tools, t)
			}
		}
		out.CacheScope = "private" // the list depends on the key
		return &out, nil
	}
}

// allowed reports whether p's key holds what the tool's route needs: its scope, write access for a
// route that changes something, and access to the tool's service.
func (m *mcpTools) allowed(p *Principal, name string) bool {
	gate, ok := m.gates[name]
	r := m.s.routes[gate.route]
	if !ok || r == nil || p == nil || p.Key == nil {
		return false
	}
	return keyMayUse(p.Key, r, gate.service)
}
