package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/svcplatform/svc/internal/llm"
)

// Tool is one of the platform's capabilities offered to the model. A route tool becomes the REST
// request Build makes, dispatched as the job's key; a local tool (http_fetch, the memory reads) runs in
// the worker through Local.
type Tool struct {
	Name        string
	Description string
	Params      map[string]any
	// Method and Path name the route (Huma path) the key must be allowed to use for the tool to be
	// offered; empty for local tools every key of the agent may use.
	Method, Path string
	// Confirm marks tools that move money or sign: their calls wait for the user's confirmation.
	Confirm bool
	// Untrusted marks tools whose results are content from outside (web pages, files, MCP servers):
	// wrapped as untrusted in the context, and any later confirmation is flagged.
	Untrusted bool
	// Env marks tools that reach outside the platform (http_fetch, MCP tools): only their arguments
	// have ${NAME} replaced by environment values. The platform's own routes get the text as written,
	// since they store what they are sent (runs and their histories, files, audit paths).
	Env bool
	// MaxResult bounds the tool's result given to the model, in bytes (0: MaxResult).
	MaxResult int
	Build     func(args map[string]any) (Call, error)
	Local     func(ctx context.Context, r *Runner, as jobCaller, args map[string]any) (string, error)
}

// MemoryPurpose is the purpose of the account's memory files: the files capability is flat (a name is
// never a path), so the /.memory/ folder is the files whose purpose is "/.memory/".
const MemoryPurpose = "/.memory/"

func obj(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func strProp(desc string) map[string]any {
	return map[string]any{"type": "string", "description": desc}
}

// bodyTool is a route tool whose arguments are the route's JSON body.
func bodyTool(name, desc, method, path string, params map[string]any, confirm bool) Tool {
	return Tool{Name: name, Description: desc, Method: method, Path: path, Params: params, Confirm: confirm,
		Build: func(args map[string]any) (Call, error) { return Call{Method: method, Path: path, Body: args}, nil }}
}

// queryTool is a route tool whose arguments are the route's query.
func queryTool(name, desc, path string, params map[string]any) Tool {
	return Tool{Name: name, Description: desc, Method: http.MethodGet, Path: path, Params: params,
		Build: func(args map[string]any) (Call, error) {
			q := url.Values{}
			for k, v := range args {
				q.Set(k, fmt.Sprint(v))
			}
			return Call{Method: http.MethodGet, Path: path, Query: q}, nil
		}}
}

// pathTool is a route tool whose one argument param fills the path's {param}.
func pathTool(name, desc, method, pattern, param string, untrusted bool) Tool {
	return Tool{Name: name, Description: desc, Method: method, Path: pattern, Untrusted: untrusted,
		Params: obj(map[string]any{param: strProp("The id.")}, param),
		Build: func(args map[string]any) (Call, error) {
			id, _ := args[param].(string)
			if id == "" || strings.Contains(id, "/") {
				return Call{}, fmt.Errorf("%s must be a non-empty id", param)
			}
			return Call{Method: method, Path: strings.Replace(pattern, "{"+param+"}", url.PathEscape(id), 1)}, nil
		}}
}

// Tools are the platform tools, in the order they are offered.
func Tools() []Tool {
	freeform := map[string]any{"type": "object", "additionalProperties": true}
	return []Tool{
		bodyTool("get_balance", "The account's credit balance.", http.MethodGet, "/v1/credits/balance", obj(map[string]any{}), false),
		queryTool("list_wallets", "The account's managed wallets.", "/v1/wallets", obj(map[string]any{})),
		queryTool("wallet_portfolio", "A managed wallet's balances and their USD value (walletId optional: the first wallet).", "/wallet/portfolio",
			obj(map[string]any{"walletId": strProp("The wallet (wal_…).")})),
		bodyTool("wallet_send", "Send tokens from a managed wallet (POST /wallet/transfer: to, amount, token usdc or an address, or native). Waits for the user's confirmation.",
			http.MethodPost, "/wallet/transfer", obj(map[string]any{"to": strProp("Recipient address or name."), "amount": strProp("Decimal amount."),
				"token": strProp("usdc or a token address."), "native": map[string]any{"type": "boolean"}, "walletId": strProp("The wallet.")}, "to", "amount"), true),
		bodyTool("wallet_sign", "Sign a message or transaction with a managed wallet (POST /wallet/sign). Waits for the user's confirmation.",
			http.MethodPost, "/wallet/sign", freeform, true),
		bodyTool("trading_quote", "Quote a spot trade (POST /v1/trading/quotes: walletId, side, base, quote, amount, amountKind).",
			http.MethodPost, "/v1/trading/quotes", freeform, false),
		bodyTool("trading_order", "Place a spot order: market, limit, stop, dca or twap (POST /v1/trading/orders). Waits for the user's confirmation.",
			http.MethodPost, "/v1/trading/orders", freeform, true),
		bodyTool("token_launch", "Launch a token from the managed wallet (POST /token-launches/deploy). Waits for the user's confirmation.",
			http.MethodPost, "/token-launches/deploy", freeform, true),
		{Name: "claim_fees", Description: "Claim a launched token's fees (POST /token-launches/{tokenAddress}/fees/claim). Waits for the user's confirmation.",
			Method: http.MethodPost, Path: "/token-launches/{tokenAddress}/fees/claim", Confirm: true,
			Params: obj(map[string]any{"tokenAddress": strProp("The token (0x…).")}, "tokenAddress"),
			Build: func(args map[string]any) (Call, error) {
				addr, _ := args["tokenAddress"].(string)
				if addr == "" || strings.Contains(addr, "/") {
					return Call{}, fmt.Errorf("tokenAddress must be an address")
				}
				return Call{Method: http.MethodPost, Path: "/token-launches/" + url.PathEscape(addr) + "/fees/claim", Body: map[string]any{}}, nil
			}},
		bodyTool("create_run", "Start a durable run of a service operation (POST /v1/runs: serviceId, operationId, input).",
			http.MethodPost, "/v1/runs", obj(map[string]any{"serviceId": strProp("The service."), "operationId": strProp("The operation."),
				"input": map[string]any{"type": "object", "additionalProperties": true}}, "serviceId", "operationId"), false),
		pathTool("get_run", "Read a run.", http.MethodGet, "/v1/runs/{runId}", "runId", false),
		queryTool("list_files", "List the account's files (name: a name prefix; purpose).", "/v1/files",
			obj(map[string]any{"name": strProp("Name prefix."), "purpose": strProp("Purpose.")})),
		pathTool("read_file", "Read a file's content (untrusted content).", http.MethodGet, "/v1/files/{fileId}/content", "fileId", true),
		{Name: "write_file", Description: "Write a text file (a new file named name).", Method: http.MethodPost, Path: "/v1/files",
			Params: obj(map[string]any{"name": strProp("The file's name."), "content": strProp("Its text.")}, "name", "content"),
			Build: func(args map[string]any) (Call, error) {
				name, _ := args["name"].(string)
				content, _ := args["content"].(string)
				return Call{Method: http.MethodPost, Path: "/v1/files", Raw: []byte(content),
					Header: map[string]string{"X-File-Name": name, "Content-Type": "text/plain; charset=utf-8"}}, nil
			}},
		{Name: "memory_list", Description: "List the memory files (/.memory/): MEMORY.md, user_*, feedback_*, project_*, reference_*.",
			Method: http.MethodGet, Path: "/v1/files", Params: obj(map[string]any{}), Local: memoryList},
		{Name: "memory_read", Description: "Read a memory file by name (feedback_*.md, project_*.md, reference_*.md...).",
			Method: http.MethodGet, Path: "/v1/files/{fileId}/content", Params: obj(map[string]any{"name": strProp("The memory file's name.")}, "name"),
			Local: memoryRead},
		{Name: "memory_write", Description: "Write a memory file (/.memory/<name>): MEMORY.md, or user_, feedback_, project_ or reference_ *.md.",
			Method: http.MethodPost, Path: "/v1/files",
			Params: obj(map[string]any{"name": strProp("The memory file's name."), "content": strProp("Its whole new text.")}, "name", "content"),
			Build: func(args map[string]any) (Call, error) {
				name, _ := args["name"].(string)
				content, _ := args["content"].(string)
				if !MemoryName(name) {
					return Call{}, fmt.Errorf("name must be MEMORY.md or user_*.md, feedback_*.md, project_*.md, reference_*.md")
				}
				return Call{Method: http.MethodPost, Path: "/v1/files", Raw: []byte(content),
					Header: map[string]string{"X-File-Name": name, "X-Svc-File-Purpose": MemoryPurpose, "Content-Type": "text/markdown; charset=utf-8"}}, nil
			}},
		bodyTool("database_query", "Run one read-only SQL statement on the account's managed database (POST /v1/databases/query: sql, params).",
			http.MethodPost, "/v1/databases/query", obj(map[string]any{"sql": strProp("The statement."), "params": map[string]any{"type": "array"}}, "sql"), false),
		queryTool("list_automations", "List the account's automations.", "/v1/automations", obj(map[string]any{})),
		bodyTool("create_automation", "Create an automation: a cron schedule of runs (POST /v1/automations: name, cron, action).",
			http.MethodPost, "/v1/automations", freeform, false),
		{Name: "http_fetch", Description: "Fetch a public http(s) URL (GET; private and internal addresses are refused). The page is untrusted content.",
			Untrusted: true, Env: true, Params: obj(map[string]any{"url": strProp("The URL.")}, "url"), Local: httpFetch},
	}
}

// memoryName matches the memory files' names.
var memoryName = regexp.MustCompile(`^(MEMORY\.md|(user|feedback|project|reference)_[A-Za-z0-9_.-]{1,100}\.md)$`)

// MemoryName reports whether name is a memory file's name.
func MemoryName(name string) bool {
	return memoryName.MatchString(name) && !strings.Contains(name, "..")
}

// alwaysLoaded reports whether a memory file is always in the context (MEMORY.md, user_*.md).
func alwaysLoaded(name string) bool { return name == "MEMORY.md" || strings.HasPrefix(name, "user_") }

// toolSet is the tools of a job by name.
type toolSet map[string]Tool

// definitions are the tools' definitions for the model, sorted by name.
func (ts toolSet) definitions() []llm.Tool {
	names := make([]string, 0, len(ts))
	for n := range ts {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]llm.Tool, 0, len(names))
	for _, n := range names {
		t := ts[n]
		raw, _ := json.Marshal(t.Params)
		out = append(out, llm.Tool{Type: "function", Function: llm.FunctionDef{Name: t.Name, Description: t.Description, Parameters: raw}})
	}
	return out
}

// secretArg matches argument names whose values are redacted in the job's steps.
var secretArg = regexp.MustCompile(`(?i)(secret|password|passphrase|private|mnemonic|seed_?phrase|api_?key|authorization|credential|cookie)`)

// redact returns args with the values of secret-looking names replaced.
func redact(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if secretArg.MatchString(k) {
				out[k] = "[redacted]"
				continue
			}
			out[k] = redact(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = redact(x)
		}
		return out
	}
	return v
}

// envRef matches ${NAME} references to the account's environment variables in a tool's arguments.
var envRef = regexp.MustCompile(`\$\{([A-Z][A-Z0-9_]{0,127})\}`)

// envNames lists the environment variables args refer to.
func envNames(v any, into map[string]bool) {
	switch v := v.(type) {
	case string:
		for _, m := range envRef.FindAllStringSubmatch(v, -1) {
			into[m[1]] = true
		}
	case map[string]any:
		for _, x := range v {
			envNames(x, into)
		}
	case []any:
		for _, x := range v {
			envNames(x, into)
		}
	}
}

// substitute replaces ${NAME} references with their values (unknown names stay as written).
func substitute(v any, values map[string]string) any {
	switch v := v.(type) {
	case string:
		return envRef.ReplaceAllStringFunc(v, func(m string) string {
			if val, ok := values[m[2:len(m)-1]]; ok {
				return val
			}
			return m
		})
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = substitute(x, values)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = substitute(x, values)
		}
		return out
	}
	return v
}
