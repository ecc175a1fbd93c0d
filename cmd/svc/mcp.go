package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/svcplatform/svc/client"
)

// mcpHelp is the help of "svc mcp".
const mcpHelp = `Usage: svc mcp config [flags]

  mcp config   print the JSON an MCP client (an IDE or agent) needs to connect to /mcp

Run "svc mcp <command> --help" for details.`

// mcpCommands are the commands of the MCP transport, "svc mcp ...".
func mcpCommands() []command {
	return []command{
		{name: "mcp", help: mcpHelp},
		{name: "mcp config", run: (*app).mcpConfig, help: mcpConfigHelp,
			brief: "print the MCP client configuration for /mcp (the key comes from an environment variable)"},
	}
}

// mcpConfigHelp is the help of "svc mcp config".
const mcpConfigHelp = `Usage: svc mcp config [--name NAME] [--key-env VAR]

Prints the JSON snippet an MCP client needs to connect to the API's Streamable HTTP MCP endpoint
(<host>/mcp): an "mcpServers" entry with the endpoint's URL and an Authorization header that names
the environment variable holding the API key, as ${VAR}. The secret itself is never printed or
written: export the variable (default ` + envAPIKey + `) where the client runs. The key needs scope
services:read; the tools listed follow its scopes and services. With --project (or ` + envProject + `)
the snippet also sends X-Svc-Project. Makes no API call.

Flags:
  --name NAME      the server's name in the snippet (default svc)
  --key-env VAR    the environment variable holding the key (default ` + envAPIKey + `)

` + globalFlagsHelp

// envVarName is what --key-env accepts: a portable environment variable name.
var envVarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// mcpConfig prints the MCP client configuration.
func (a *app) mcpConfig(args []string) int {
	const cmd = "mcp config"
	fs := a.commandFlags(cmd, nil)
	name, keyEnv := "svc", envAPIKey
	fs.StringVar(&name, "name", name, "the server's name")
	fs.StringVar(&keyEnv, "key-env", keyEnv, "the environment variable holding the key")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if !envVarName.MatchString(keyEnv) {
		return a.usageError(cmd, "--key-env %q is not an environment variable name", keyEnv)
	}
	if strings.TrimSpace(name) == "" {
		return a.usageError(cmd, "--name must not be empty")
	}
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	out, err := json.MarshalIndent(mcpClientConfig(name, mcpURL(s.baseURL), keyEnv, s.project), "", "  ")
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	fmt.Fprintln(a.stdout, string(out))
	if a.getenv(keyEnv) == "" {
		fmt.Fprintf(a.stderr, "note: %s is not set here; export it (an API key with services:read) where the MCP client runs\n", keyEnv)
	}
	return exitOK
}

// mcpURL is the MCP endpoint of the API at baseURL (a host root or .../v1).
func mcpURL(baseURL string) string {
	host := strings.TrimSuffix(client.NormalizeBaseURL(baseURL), "/"+client.APIVersion)
	return host + "/mcp"
}

// mcpClientConfig is the "mcpServers" document of one Streamable HTTP server whose key is read from
// keyEnv by the client.
func mcpClientConfig(name, url, keyEnv, project string) map[string]any {
	headers := map[string]string{"Authorization": "Bearer ${" + keyEnv + "}"}
	if project != "" {
		headers["X-Svc-Project"] = project
	}
	return map[string]any{"mcpServers": map[string]any{
		name: map[string]any{"type": "http", "url": url, "headers": headers},
	}}
}
