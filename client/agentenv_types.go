package client

import "time"

// Operation ids of the agent's environment variables, MCP servers, Club and auto top-up (issue 25).
const (
	OpAgentEnvSet            = "agent.env.set"
	OpAgentEnvList           = "agent.env.list"
	OpAgentEnvDelete         = "agent.env.delete"
	OpAgentMCPServersCreate  = "agent.mcpServers.create"
	OpAgentMCPServersList    = "agent.mcpServers.list"
	OpAgentMCPServersRead    = "agent.mcpServers.read"
	OpAgentMCPServersDelete  = "agent.mcpServers.delete"
	OpClubSubscribe          = "club.subscribe"
	OpClubCancel             = "club.cancel"
	OpClubRead               = "club.read"
	OpCreditsAutoTopUpRead   = "credits.autoTopUp.read"
	OpCreditsAutoTopUpUpdate = "credits.autoTopUp.update"
)

// SetEnvRequest is the body of POST /agent/env: create or replace one variable.
type SetEnvRequest struct {
	Key   string `json:"key" doc:"The name: ^[A-Z_][A-Z0-9_]*$ without a reserved prefix (SVC_, AWS_, GOOGLE_, GCP_, AZURE_, ...), or BROWSER_CREDENTIAL_<SITE>_<FIELD> (see docs/API.md)."`
	Value string `json:"value" doc:"The value (at most 16384 bytes); stored encrypted, never shown again."`
}

// EnvVar is a variable as the API shows it: never its value.
type EnvVar struct {
	ID        string    `json:"id" doc:"Variable id (env_...)."`
	Key       string    `json:"key"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// EnvVarEnvelope answers POST /agent/env and DELETE /agent/env/{key}.
type EnvVarEnvelope struct {
	OK  bool   `json:"ok"`
	Env EnvVar `json:"env"`
}

// EnvVarList answers GET /agent/env: names and times only.
type EnvVarList struct {
	OK  bool     `json:"ok"`
	Env []EnvVar `json:"env"`
}

// CreateMCPServerRequest is the body of POST /v1/agent/mcp-servers.
type CreateMCPServerRequest struct {
	Name      string            `json:"name" minLength:"1" maxLength:"48" doc:"Unique in the account: lower-case letters, digits, hyphens, underscores; the agent offers the server's tools as <name>__<tool>."`
	URL       string            `json:"url" minLength:"1" maxLength:"2048" doc:"The server's https URL; it must resolve to public addresses."`
	Transport string            `json:"transport" enum:"http,sse" doc:"http: the streamable HTTP transport; sse: the older HTTP+SSE transport."`
	Headers   map[string]string `json:"headers,omitempty" doc:"Headers sent on every request (an Authorization, say); stored encrypted, never shown again."`
}

// MCPServer is a user MCP server as the API shows it: header names only.
type MCPServer struct {
	ID          string    `json:"id" doc:"MCP server id (mcps_...)."`
	Name        string    `json:"name"`
	URL         string    `json:"url"`
	Transport   string    `json:"transport" enum:"http,sse"`
	HeaderNames []string  `json:"headerNames"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// MCPServerEnvelope answers one MCP server.
type MCPServerEnvelope struct {
	OK        bool      `json:"ok"`
	MCPServer MCPServer `json:"mcpServer"`
}

// MCPServerList answers GET /v1/agent/mcp-servers.
type MCPServerList struct {
	OK         bool        `json:"ok"`
	MCPServers []MCPServer `json:"mcpServers"`
}
