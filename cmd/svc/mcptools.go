package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/svcplatform/svc/client"
)

// envDevRecord names the variable that says where `svcd dev` records itself (app.DevRecordEnv).
const envDevRecord = "SVC_DEV_RECORD"

const mcpToolsHelp = `Usage: svc mcp-tools [--base-url URL] [--api-key KEY] [--project ID]

Runs seed 001's tool server: an MCP server on standard input and output (newline-delimited JSON-RPC;
nothing else is written to standard output, logs go to standard error) for an agent runtime to start.
Its tools call the platform:

  list_svc_machines      the machine cards of the platform's vault (GET /api/handoff/machines)
  plan_handoff           resolve a machine and the receiving agent, sending nothing (POST /api/handoff)
  handoff_file           send files to a machine
  handoff_file_task      send files and a task to the best agent of a machine
  handoff_task           send a task to the best agent of a machine
  crypto_capabilities    the payment rails and what this key can use (GET /api/crypto/capabilities)
  select_crypto_rail     pick a rail for an amount and a purpose (POST /api/crypto/capabilities)
  prepare_crypto_action  the exact request to pay with a rail; nothing is spent

The API address is the first of: --base-url, ` + envBaseURL + `, the CLI config's baseUrl, the address
of the running "svcd dev" (its record: ` + envDevRecord + `, else dev.json beside the CLI config), then
` + client.DefaultBaseURL + `. The key (sent as the bearer) is the CLI's: --api-key, ` + envAPIKey + ` or
"svc login". It needs runs:write (handoffs, payment rails) and runs:read (machines).

Example MCP host configuration: {"command": "svc", "args": ["mcp-tools"]}

Flags:
  --base-url URL      API address, host root or .../v1 (env ` + envBaseURL + `)
  --api-key KEY       API key, sent as the bearer (env ` + envAPIKey + `)
  --project ID        active project, sent as X-Svc-Project (env ` + envProject + `)
  -h, --help          show help`

// mcpToolsCommands are the commands of the tool server.
func mcpToolsCommands() []command {
	return []command{
		{name: "mcp-tools", run: (*app).mcpTools, help: mcpToolsHelp,
			brief: "run the stdio MCP tool server (handoffs and payment rails) for agent runtimes"},
	}
}

// mcpTools serves the MCP tools on stdin and stdout until the client closes the connection.
func (a *app) mcpTools(args []string) int {
	const cmd = "mcp-tools"
	fs := a.commandFlags(cmd, nil, "json") // --not-interactive is accepted; the server never prompts
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	base, from := a.toolServerBaseURL(s)
	s.baseURL = base
	log.Info("svc mcp-tools: serving MCP on stdio", "api", base, "from", from, "key", keyState(s))
	ts := &toolServer{c: a.newClient(s), hasKey: s.apiKey != ""}
	srv := mcp.NewServer(&mcp.Implementation{Name: "svc-mcp-tools", Title: "svc tool server", Version: client.SDKVersion},
		&mcp.ServerOptions{Logger: log, Instructions: toolServerInstructions})
	ts.register(srv)
	t := &mcp.IOTransport{Reader: nopReadCloser{a.stdin}, Writer: nopWriteCloser{a.stdout}}
	if err := srv.Run(a.ctx, t); err != nil && !errors.Is(err, io.EOF) && a.ctx.Err() == nil {
		log.Error("svc mcp-tools: stopped", "err", err)
		return exitAPI
	}
	return exitOK
}

// toolServerInstructions tell the client what the server is for.
const toolServerInstructions = "Tools of the svc platform: hand files and tasks to other machines and agents through the " +
	"platform's synced vault (plan first; a send returns the handoff, its transfer id and status), and find how to pay " +
	"(payment rails: credits, x402 top-up, managed wallet send). The payment tools never spend: prepare returns the " +
	"request for you to make."

func keyState(s settings) string {
	if s.apiKey == "" {
		return "none: every tool will answer that one is needed"
	}
	return "from " + s.keySource
}

// toolServerBaseURL is the API address: flag, environment, config, the running svcd dev, the default;
// with where it came from.
func (a *app) toolServerBaseURL(s settings) (string, string) {
	if v := first(a.g.baseURL); v != "" {
		return client.NormalizeBaseURL(v), "--base-url"
	}
	if v := first(a.getenv(envBaseURL)); v != "" {
		return client.NormalizeBaseURL(v), envBaseURL
	}
	if cfg, err := loadConfig(s.cfgPath); s.cfgPath != "" && err == nil && first(cfg.BaseURL) != "" {
		return client.NormalizeBaseURL(cfg.BaseURL), s.cfgPath
	}
	if path := devRecordPath(a.getenv); path != "" {
		if u := runningDevAPI(path); u != "" {
			return client.NormalizeBaseURL(u), path
		}
	}
	return client.DefaultBaseURL, "the default"
}

// devRecordPath is where `svcd dev` records itself (app.DevRecordPath): SVC_DEV_RECORD, else dev.json
// beside the CLI's config.
func devRecordPath(getenv func(string) string) string {
	if p := getenv(envDevRecord); p != "" {
		return p
	}
	cfg, err := configPath(getenv)
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(cfg), "dev.json")
}

// devRecord is the part of app.DevRecord the tool server reads.
type devRecord struct {
	PID    int    `json:"pid"`
	APIURL string `json:"apiUrl"`
}

// runningDevAPI is the API address of the svcd dev recorded at path, or "" when there is no record or
// its process is gone.
func runningDevAPI(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var rec devRecord
	if json.Unmarshal(b, &rec) != nil || rec.PID <= 0 || rec.APIURL == "" {
		return ""
	}
	if err := syscall.Kill(rec.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return ""
	}
	return rec.APIURL
}

type nopReadCloser struct{ io.Reader }

func (nopReadCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// apiError is a failed call as a tool error: the status, the API's code and message, and the field.
func apiError[T any](r client.Response[T]) error {
	if r.Error == nil {
		return fmt.Errorf("HTTP %d: the API's answer could not be read", r.StatusCode)
	}
	if r.StatusCode == 0 {
		return fmt.Errorf("the API did not answer: %s", r.Error.Error())
	}
	return fmt.Errorf("HTTP %d %s", r.StatusCode, r.Error.Error())
}
