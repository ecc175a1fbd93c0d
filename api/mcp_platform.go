package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/svcplatform/svc/client"
)

// platformTools are the hand-written tools: discovery, balance, runs, approvals and artifacts.
func (m *mcpTools) platformTools() []platformTool {
	get := http.MethodGet + " "
	post := http.MethodPost + " "
	return []platformTool{
		{tool: readTool("list_services", "List the managed services and operations this key may use.", objectSchema(map[string]any{})),
			route: get + "/v1/services", build: fixed(http.MethodGet, "/v1/services")},
		{tool: readTool("get_balance", "The account's credit balance.", objectSchema(map[string]any{})),
			route: get + "/v1/credits/balance", build: fixed(http.MethodGet, "/v1/credits/balance")},
		{tool: writeTool("create_run", "Start a durable run of a service operation. Answers the run (id, status, Temporal UI link).",
			objectSchema(map[string]any{"serviceId": str("The service, e.g. managed-workflows."), "operationId": str("The operation, e.g. echo."),
				"input":           map[string]any{"type": "object", "additionalProperties": true, "description": "The operation's input."},
				"requireApproval": map[string]any{"type": "boolean", "description": "Wait for an approval before running."}},
				"serviceId", "operationId")),
			route: post + "/v1/runs", idem: true, build: buildCreateRun},
		{tool: readTool("get_run", "Read a run; with waitSeconds (up to 30), wait for it to finish, sending progress notifications.",
			objectSchema(map[string]any{"runId": str("The run id (run_...)."),
				"waitSeconds": map[string]any{"type": "number", "minimum": 0, "maximum": 30, "description": "Wait up to this long for the run to finish."}},
				"runId")),
			route: get + "/v1/runs/:runId", waits: true, build: buildGetRun,
			direct: &directRead{params: []string{"runId"}, read: func(ctx context.Context, a toolArgs) (any, error) {
				id, _ := a.str("runId", true) // buildGetRun has checked it
				return m.runsAPI.readRun(ctx, id)
			}}},
		{tool: writeTool("cancel_run", "Ask a run to stop; it ends cancelled.", objectSchema(map[string]any{"runId": str("The run id (run_...).")}, "runId")),
			route: post + "/v1/runs/:runId/cancel", idem: true, build: pathCall(http.MethodPost, "/v1/runs/%s/cancel", "runId")},
		{tool: readTool("list_approvals", "List approvals, newest first.", objectSchema(pageProps(map[string]any{
			"status": str("pending, approved, rejected, expired or cancelled."), "serviceId": str("Only this service's."), "runId": str("Only this run's.")}))),
			route: get + "/v1/approvals", build: listCall("/v1/approvals", "status", "serviceId", "runId")},
		{tool: writeTool("decide_approval", "Approve or reject a pending approval.", objectSchema(map[string]any{
			"approvalId": str("The approval id (apr_...)."), "decision": map[string]any{"type": "string", "enum": []string{"approve", "reject"}},
			"comment": str("Shown with the decision.")}, "approvalId", "decision")),
			route: post + "/v1/approvals/:approvalId", idem: true, build: buildDecide},
		{tool: readTool("list_artifacts", "List the artifacts runs produced, newest first.", objectSchema(pageProps(map[string]any{"runId": str("Only this run's.")}))),
			route: get + "/v1/artifacts", build: listCall("/v1/artifacts", "runId")},
		{tool: readTool("read_artifact", "Read an artifact's content: text as text, other bytes as an embedded resource.",
			objectSchema(map[string]any{"artifactId": str("The artifact id.")}, "artifactId")),
			route: get + "/v1/artifacts/:artifactId/content", build: pathCall(http.MethodGet, "/v1/artifacts/%s/content", "artifactId")},
	}
}

func readTool(name, description string, schema map[string]any) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: description, InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
}

func writeTool(name, description string, schema map[string]any) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: description, InputSchema: schema, Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}
}

// fixed builds a request without arguments.
func fixed(method, path string) func(toolArgs) (restCall, error) {
	return func(toolArgs) (restCall, error) { return restCall{method: method, path: path}, nil }
}

// pathCall builds a request whose path holds the required argument param: one path segment, so an id
// with a slash (which the router would read as more segments) is refused.
func pathCall(method, pattern, param string) func(toolArgs) (restCall, error) {
	return func(a toolArgs) (restCall, error) {
		id, err := a.str(param, true)
		if err == nil && strings.Contains(id, "/") {
			err = &argError{param, param + " must not contain '/'"}
		}
		return restCall{method: method, path: fmt.Sprintf(pattern, url.PathEscape(id))}, err
	}
}

// listCall builds a list request with paging and the named filters.
func listCall(path string, filters ...string) func(toolArgs) (restCall, error) {
	return func(a toolArgs) (restCall, error) {
		q, err := a.query(append([]string{"limit", "cursor"}, filters...)...)
		return restCall{method: http.MethodGet, path: path, query: q}, err
	}
}

func buildCreateRun(a toolArgs) (restCall, error) {
	serviceID, err := a.str("serviceId", true)
	if err != nil {
		return restCall{}, err
	}
	operationID, err := a.str("operationId", true)
	if err != nil {
		return restCall{}, err
	}
	return runBody(a, serviceID, operationID)
}

func buildGetRun(a toolArgs) (restCall, error) {
	wait, err := a.number("waitSeconds")
	if err == nil && (wait < 0 || wait > mcpWaitLimit.Seconds()) {
		err = &argError{"waitSeconds", fmt.Sprintf("waitSeconds must be from 0 to %g", mcpWaitLimit.Seconds())}
	}
	if err != nil {
		return restCall{}, err
	}
	return pathCall(http.MethodGet, "/v1/runs/%s", "runId")(a)
}

func buildDecide(a toolArgs) (restCall, error) {
	call, err := pathCall(http.MethodPost, "/v1/approvals/%s", "approvalId")(a)
	if err != nil {
		return call, err
	}
	decision, err := a.str("decision", true)
	if err != nil {
		return call, err
	}
	comment, err := a.str("comment", false)
	call.body = map[string]any{"decision": decision, "comment": comment}
	return call, err
}

// forwardedHeaders are the headers of the MCP request a tool's REST request carries: the key, the
// project and what the client address is judged by.
var forwardedHeaders = []string{"Authorization", headerAPIKey, headerProject, "X-Forwarded-For", "X-Real-Ip", "User-Agent"}

// do sends the REST request of a tool call through the Gin engine, as the caller, and returns its status
// and body.
func (m *mcpTools) do(ctx context.Context, call restCall) (int, []byte, http.Header) {
	caller := mcpCallerFrom(ctx)
	var body io.Reader = http.NoBody
	if call.body != nil {
		raw, err := json.Marshal(call.body)
		if err != nil {
			return http.StatusBadRequest, errorBody(client.CodeInvalidRequest, "arguments are not JSON"), nil
		}
		body = bytes.NewReader(raw)
	}
	target := call.path // its parameters are escaped already
	if len(call.query) > 0 {
		target += "?" + call.query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, call.method, target, body)
	if err != nil {
		return http.StatusBadRequest, errorBody(client.CodeInvalidRequest, "the tool's request is malformed: "+err.Error()), nil
	}
	req.RemoteAddr, req.Host, req.TLS = caller.remoteAddr, caller.host, caller.tls
	for _, h := range forwardedHeaders {
		if v := caller.header.Values(h); len(v) > 0 {
			req.Header[http.CanonicalHeaderKey(h)] = v
		}
	}
	if call.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if call.idemKey != "" {
		req.Header.Set(headerIdemKey, call.idemKey)
	}
	rec := httptest.NewRecorder()
	m.s.engine.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), rec.Header()
}

// errorBody is an API error envelope.
func errorBody(code, message string) []byte {
	raw, _ := json.Marshal(map[string]any{"ok": false, "error": map[string]any{"code": code, "message": message}})
	return raw
}

// result turns a REST answer into a tool result: the JSON envelope as text and structured content (with
// the Temporal UI link of a run), or isError with the platform's error code and message.
func (m *mcpTools) result(status int, body []byte, header http.Header) *mcp.CallToolResult {
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		if status < 300 {
			return rawResult(body, header)
		}
		v = map[string]any{"error": map[string]any{"code": client.CodeInternal, "message": strings.TrimSpace(string(body))}}
	}
	if status >= 300 {
		apiErr, _ := v["error"].(map[string]any)
		return errorResult(status, apiErr)
	}
	m.linkRun(v)
	text, _ := json.Marshal(v)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: v}
}

// rawResult is the result of a route answering bytes (an artifact's content): UTF-8 text as text, other
// bytes as an embedded resource.
func rawResult(body []byte, header http.Header) *mcp.CallToolResult {
	mime := header.Get("Content-Type")
	if utf8.Valid(body) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{
		Resource: &mcp.ResourceContents{URI: "svc:artifact", MIMEType: mime, Blob: body}}}}
}

// linkRun adds the Temporal UI link of the run an answer carries (temporalUiUrl), when the UI is known.
func (m *mcpTools) linkRun(v map[string]any) {
	r, _ := v["run"].(map[string]any)
	id, _ := r["id"].(string)
	if m.temporalUI == "" || id == "" {
		return
	}
	v["temporalUiUrl"] = strings.TrimRight(m.temporalUI, "/") + "/workflows/" + url.PathEscape("run/"+id)
}

// waitRun answers get_run: at once, or, with waitSeconds, once the run finished or the wait ran out,
// sending a progress notification (when the client asked for them) each time the run's status changes.
// The REST read has authorised the run; the wait polls the run store in the caller's scope.
func (m *mcpTools) waitRun(ctx context.Context, req *mcp.CallToolRequest, args toolArgs, body []byte) *mcp.CallToolResult {
	wait, _ := args.number("waitSeconds")
	var env client.RunEnvelope
	if wait <= 0 || json.Unmarshal(body, &env) != nil || env.Run.Finished() {
		return m.result(http.StatusOK, body, nil)
	}
	deadline := time.Now().Add(time.Duration(wait * float64(time.Second)))
	r, status := env.Run, env.Run.Status
	tick := time.NewTicker(mcpPollEvery)
	defer tick.Stop()
	for n := 1; !r.Finished() && time.Now().Before(deadline); n++ {
		select {
		case <-ctx.Done():
			return m.result(http.StatusOK, body, nil)
		case <-tick.C:
		}
		next, err := m.runs.Store().Read(ctx, principalFrom(ctx).Scope, r.ID)
		if err != nil {
			return m.result(http.StatusInternalServerError, errorBody(client.CodeInternal, "reading the run failed"), nil)
		}
		r = next
		if r.Status != status || n%4 == 0 { // on each change, and about every second
			status = r.Status
			m.progress(ctx, req, float64(n), "run "+r.ID+" is "+r.Status)
		}
	}
	raw, _ := json.Marshal(client.RunEnvelope{OK: true, Run: r})
	return m.result(http.StatusOK, raw, nil)
}

// mcpPollEvery is how often get_run looks at a run it waits for.
const mcpPollEvery = 250 * time.Millisecond

// progress sends a progress notification for the call, if its client asked for them.
func (m *mcpTools) progress(ctx context.Context, req *mcp.CallToolRequest, n float64, message string) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return
	}
	if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: message}); err != nil {
		m.s.log.Debug("mcp progress notification", "err", err)
	}
}
