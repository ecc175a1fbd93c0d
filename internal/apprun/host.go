package apprun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// SecretValues resolves the account's environment variables by name (agentenv.Store.Resolve); values
// are handed to the script only, never logged or journalled.
type SecretValues interface {
	Values(ctx context.Context, accountID string, names []string) (map[string]string, error)
}

// AgentStarter starts an agent job (agent.Service.Prompt).
type AgentStarter interface {
	Prompt(ctx context.Context, r agent.PromptRequest, now time.Time) (*client.AgentJobRef, error)
}

// TokenReader reads public token info (tokeninfo.Service.Info): chain "" is the platform's chain.
type TokenReader interface {
	Info(ctx context.Context, address, chain string) (*client.TokenInfo, error)
}

// HostDeps are the platform services a Host calls; a nil one answers its methods "not available".
type HostDeps struct {
	Apps Apps
	// Dispatch sends platform requests through the API's own engine as the run's key (the agent jobs'
	// dispatcher): scopes, service access, limits and audit apply as to the key's own requests.
	Dispatch agent.Dispatcher
	Secrets  SecretValues
	Agent    AgentStarter
	// Chain is the platform chain's JSON-RPC client, for svc.chain reads (nil: they answer not available).
	Chain ChainRPC
	// Tokens answers svc.tokens.info (public token info: price, pool, 24 h volume).
	Tokens TokenReader
	// AllowLoopback lets http.fetch reach loopback addresses (dev and tests only).
	AllowLoopback bool
}

// Host answers a run's platform calls as the app's owner (the run's key) within the manifest's
// permissions, which the engine checked before each call. It implements appscript.Host.
type Host struct {
	deps HostDeps
	run  *schema.AppScriptRun
	app  *App
}

// NewHost is the Host of one run of app.
func NewHost(deps HostDeps, run *schema.AppScriptRun, app *App) *Host {
	return &Host{deps: deps, run: run, app: app}
}

// ErrNotAvailable is the error of a method the platform does not offer scripts yet.
var ErrNotAvailable = errors.New("not available yet")

// method is one Host method's implementation.
type method func(h *Host, ctx context.Context, args []json.RawMessage) (json.RawMessage, error)

// methods maps the engine's method names (appscript.Method's table) to their implementations.
var methods = map[string]method{
	"appKV.get": kv("get"), "appKV.set": kv("set"), "appKV.list": kv("list"), "appKV.delete": kv("delete"),
	"wallet.identity": (*Host).walletIdentity,
	"wallet.balances": dispatchGet("/wallet/portfolio", "walletId"),
	"portfolio":       dispatchGet("/wallet/portfolio", "walletId"),
	"positions":       dispatchGet("/v1/trading/positions", ""),
	"files.list":      dispatchGet("/v1/files", "name"),
	"files.search":    dispatchGet("/v1/files", "name"),
	"files.read":      (*Host).filesRead,
	"files.write":     (*Host).filesWrite,
	"secrets.get":     (*Host).secretGet,
	"secrets.status":  (*Host).secretStatus,
	"http.fetch":      (*Host).httpFetch,
	"tx.prepare":      unsigned("transaction"),
	"tx.swap":         unsigned("swap"),
	"tx.transfer":     unsigned("transfer"),
	"tx.sign":         unsigned("signature"),
	"agent.ask":       (*Host).askAgent,

	"chain.getBalance":         (*Host).chainGetBalance,
	"chain.readContract":       (*Host).chainReadContract,
	"chain.multicall":          (*Host).chainMulticall,
	"chain.getLogs":            (*Host).chainGetLogs,
	"chain.encodeFunctionData": (*Host).chainEncodeFunctionData,
	"tokens.info":              (*Host).tokenInfo,
}

// Methods lists the Host's implemented methods; every other method of the engine's table answers "not
// available yet" (x402.fetch, which the engine refuses first).
func Methods() []string {
	out := make([]string, 0, len(methods))
	for m := range methods {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// Call implements appscript.Host.
func (h *Host) Call(ctx context.Context, name string, args []json.RawMessage) (json.RawMessage, error) {
	m, ok := methods[name]
	if !ok {
		return nil, fmt.Errorf("%s is %w for app scripts", name, ErrNotAvailable)
	}
	out, err := m(h, ctx, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// viewer is who the run reads and writes appKV records for.
func (h *Host) viewer() Viewer {
	if h.run.Trigger == schema.AppRunByFrontend && h.run.Viewer != "" {
		return Viewer{AccountID: h.run.Viewer}
	}
	return Viewer{AccountID: h.run.AccountID, Owner: true}
}

func kv(op string) method {
	return func(h *Host, ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
		if h.deps.Apps == nil {
			return nil, ErrNotAvailable
		}
		return h.deps.Apps.KV(ctx, h.app, h.viewer(), op, args)
	}
}

// caller is the run's key, as which platform requests are dispatched.
func (h *Host) caller() llm.Caller {
	return llm.Caller{AccountID: h.run.AccountID, ProjectID: tenant.Scope{ProjectID: h.run.ProjectID}.Project(), KeyID: h.run.KeyID}
}

// dispatch sends a request as the run's key and answers its JSON body, or an error with the API's message.
func (h *Host) dispatch(ctx context.Context, call agent.Call) (json.RawMessage, error) {
	if h.deps.Dispatch == nil {
		return nil, ErrNotAvailable
	}
	status, body, err := h.deps.Dispatch.Dispatch(ctx, h.caller(), call)
	if err != nil {
		return nil, err
	}
	if status >= 300 {
		return nil, apiError(status, body)
	}
	if !json.Valid(body) {
		raw, _ := json.Marshal(string(body))
		return raw, nil
	}
	return body, nil
}

// apiError turns an API error envelope into an error carrying its message.
func apiError(status int, body []byte) error {
	var env struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error.Message != "" {
		return fmt.Errorf("%s (HTTP %d, %s)", env.Error.Message, status, env.Error.Code)
	}
	return fmt.Errorf("the platform answered HTTP %d", status)
}

// dispatchGet is a method that GETs path as the run's key, its first argument (a string) as the query
// parameter param, or an object of query parameters.
func dispatchGet(path, param string) method {
	return func(h *Host, ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
		q := url.Values{}
		if len(args) > 0 {
			var s string
			var obj map[string]any
			switch {
			case json.Unmarshal(args[0], &s) == nil && param != "" && s != "":
				q.Set(param, s)
			case json.Unmarshal(args[0], &obj) == nil:
				for k, v := range obj {
					q.Set(k, fmt.Sprint(v))
				}
			}
		}
		return h.dispatch(ctx, agent.Call{Method: http.MethodGet, Path: path, Query: q})
	}
}

// walletIdentity answers the owner's first managed wallet: its id, address and chain.
func (h *Host) walletIdentity(ctx context.Context, _ []json.RawMessage) (json.RawMessage, error) {
	raw, err := h.dispatch(ctx, agent.Call{Method: http.MethodGet, Path: "/v1/wallets", Query: url.Values{"limit": {"1"}}})
	if err != nil {
		return nil, err
	}
	var list struct {
		Wallets []json.RawMessage `json:"wallets"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("read the wallet list: %w", err)
	}
	if len(list.Wallets) == 0 {
		return nil, errors.New("the owner has no managed wallet")
	}
	return list.Wallets[0], nil
}

// filesRead answers a file's content (by id) as a string.
func (h *Host) filesRead(ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
	id, err := stringArg(args, 0, "fileId")
	if err != nil {
		return nil, err
	}
	return h.dispatch(ctx, agent.Call{Method: http.MethodGet, Path: "/v1/files/" + url.PathEscape(id) + "/content"})
}

// filesWrite writes a new text file (name, content), Idempotency-Key derived from the run and the call.
func (h *Host) filesWrite(ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
	name, err := stringArg(args, 0, "name")
	if err != nil {
		return nil, err
	}
	content, err := stringArg(args, 1, "content")
	if err != nil {
		return nil, err
	}
	return h.dispatch(ctx, agent.Call{Method: http.MethodPost, Path: "/v1/files", Raw: []byte(content),
		Header:         map[string]string{"X-File-Name": name, "Content-Type": "text/plain; charset=utf-8"},
		IdempotencyKey: "appscript/" + h.run.ID + "/files.write/" + name})
}

// stringArg is argument i as a non-empty string; errors name it.
func stringArg(args []json.RawMessage, i int, name string) (string, error) {
	var s string
	if len(args) <= i || json.Unmarshal(args[i], &s) != nil || strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("argument %d (%s) must be a non-empty string", i+1, name)
	}
	return s, nil
}

// secretGet answers the value of a secret the manifest declares (null when the account has not set it).
func (h *Host) secretGet(ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
	name, err := stringArg(args, 0, "name")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(h.app.Secrets, name) {
		return nil, fmt.Errorf("secret %q is not declared in the manifest's secrets", name)
	}
	vals, err := h.secretValues(ctx, []string{name})
	if err != nil {
		return nil, err
	}
	v, ok := vals[name]
	if !ok {
		return json.RawMessage(`null`), nil
	}
	return json.Marshal(v)
}

// secretStatus answers, for each secret the manifest declares, whether the account has set it.
func (h *Host) secretStatus(ctx context.Context, _ []json.RawMessage) (json.RawMessage, error) {
	vals, err := h.secretValues(ctx, h.app.Secrets)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(h.app.Secrets))
	for _, n := range h.app.Secrets {
		_, out[n] = vals[n]
	}
	return json.Marshal(out)
}

func (h *Host) secretValues(ctx context.Context, names []string) (map[string]string, error) {
	if h.deps.Secrets == nil {
		return map[string]string{}, nil
	}
	vals, err := h.deps.Secrets.Values(ctx, h.run.AccountID, names)
	if err != nil {
		return nil, fmt.Errorf("read the account's environment variables: %w", err)
	}
	return vals, nil
}

// unsigned is a transaction-building method: it answers the request, unsigned and not broadcast, for the
// user to confirm (the agent's confirmation step or the frontend's confirmTransaction). Nothing is signed.
func unsigned(kind string) method {
	return func(h *Host, _ context.Context, args []json.RawMessage) (json.RawMessage, error) {
		if len(args) == 0 {
			return nil, fmt.Errorf("argument 1 (the %s) is required", kind)
		}
		var req map[string]any
		if err := json.Unmarshal(args[0], &req); err != nil || req == nil {
			return nil, fmt.Errorf("argument 1 (the %s) must be an object", kind)
		}
		if kind == "transaction" {
			if err := checkTx(req); err != nil {
				return nil, err
			}
		}
		return json.Marshal(map[string]any{"kind": kind, "request": req, "signed": false, "broadcast": false,
			"status": "awaiting_confirmation", "app": h.run.AppSlug, "runId": h.run.ID})
	}
}

// checkTx checks an unsigned transaction's fields: to (an address), value and data (hex or decimal strings).
func checkTx(tx map[string]any) error {
	to, _ := tx["to"].(string)
	if !isHex(to, 40) {
		return errors.New("the transaction's to must be a 0x address")
	}
	if d, ok := tx["data"]; ok {
		if s, _ := d.(string); !isHex(s, -1) {
			return errors.New("the transaction's data must be 0x-prefixed hex")
		}
	}
	return nil
}

// isHex reports whether s is 0x and hex digits (exactly n of them when n ≥ 0).
func isHex(s string, n int) bool {
	if !strings.HasPrefix(s, "0x") || (n >= 0 && len(s) != n+2) {
		return false
	}
	return strings.Trim(s[2:], "0123456789abcdefABCDEF") == ""
}

// askAgent starts an agent job with the prompt as the run's key and answers its job id, thread and
// status (the job runs on; read it with GET /v1/agent/jobs/{id}). Its id derives from the run, so a
// retried run starts no second job.
func (h *Host) askAgent(ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
	if h.deps.Agent == nil {
		return nil, ErrNotAvailable
	}
	prompt, err := stringArg(args, 0, "prompt")
	if err != nil {
		return nil, err
	}
	ref, err := h.deps.Agent.Prompt(ctx, agent.PromptRequest{Scope: tenant.Scope{AccountID: h.run.AccountID, ProjectID: h.run.ProjectID},
		KeyID: h.run.KeyID, JobID: ids.Derive(ids.AgentJob, h.run.ID, prompt), Body: client.AgentPromptRequest{Prompt: prompt}}, time.Now())
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"jobId": ref.ID, "threadId": ref.ThreadID, "status": ref.Status})
}

// tokenInfo answers a token's public info (svc.tokens.info(address[, chain])): a launched token or one
// of the trading list, with its pool, price at a stated block and 24 h volume.
func (h *Host) tokenInfo(ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
	if h.deps.Tokens == nil {
		return nil, ErrNotAvailable
	}
	address, err := stringArg(args, 0, "address")
	if err != nil {
		return nil, err
	}
	var chain string
	if len(args) > 1 && string(args[1]) != "null" {
		if chain, err = stringArg(args, 1, "chain"); err != nil {
			return nil, err
		}
	}
	t, err := h.deps.Tokens.Info(ctx, address, chain)
	if err != nil {
		return nil, err
	}
	return json.Marshal(t)
}
