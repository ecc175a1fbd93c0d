package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// mcpSession runs "svc mcp-tools" with args and env in-process on pipes and connects the Go SDK's
// client to it; stderr collects the server's logs.
func mcpSession(t *testing.T, env map[string]string, args ...string) (*mcp.ClientSession, *strings.Builder) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		done <- runContext(ctx, append([]string{"mcp-tools"}, args...), inR, outW, &syncWriter{b: &stderr}, func(k string) string { return env[k] })
		_ = outW.Close()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = s.Close()
		_ = inW.Close()
		cancel()
		require.Equal(t, exitOK, <-done)
	})
	return s, &stderr
}

// syncWriter is a strings.Builder the server's logger may write to from its goroutine.
type syncWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// TestMCPToolsListsToolsAndReportsAPIErrors: the server lists the eight tools with input schemas that
// require what the API requires; an API failure is a tool error (isError) carrying the API's message,
// and the key is sent as the bearer.
func TestMCPToolsListsToolsAndReportsAPIErrors(t *testing.T) {
	t.Parallel()
	var auth string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		require.Equal(t, "/api/handoff", r.URL.Path)
		reply(w, http.StatusConflict, map[string]any{"ok": false, "error": map[string]any{"code": "conflict",
			"message": "target studio matches several machines: studio-mac, studio-pc", "requestId": "req_1"}})
	}))
	t.Cleanup(api.Close)
	s, _ := mcpSession(t, map[string]string{envBaseURL: api.URL, envAPIKey: goodKey, "HOME": t.TempDir()})
	ctx := context.Background()

	tools, err := s.ListTools(ctx, nil)
	require.NoError(t, err)
	required := map[string][]string{}
	for _, tool := range tools.Tools {
		require.NotEmpty(t, tool.Description, tool.Name)
		schema := tool.InputSchema.(map[string]any)
		req, _ := schema["required"].([]any)
		for _, r := range req {
			required[tool.Name] = append(required[tool.Name], r.(string))
		}
		if tool.Name == "handoff_file" {
			props := schema["properties"].(map[string]any)
			require.Contains(t, props, "note", "the embedded fields are flattened")
			require.Contains(t, props["files"].(map[string]any)["description"], "Absolute paths")
		}
	}
	require.Len(t, tools.Tools, 8)
	require.ElementsMatch(t, []string{"target", "files"}, required["handoff_file"])
	require.ElementsMatch(t, []string{"target", "files", "task"}, required["handoff_file_task"])
	require.ElementsMatch(t, []string{"target", "task"}, required["handoff_task"])
	require.ElementsMatch(t, []string{"amountUsd"}, required["prepare_crypto_action"])
	require.Empty(t, required["list_svc_machines"])

	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "plan_handoff", Arguments: map[string]any{"target": "studio"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	text := res.Content[0].(*mcp.TextContent).Text
	require.Contains(t, text, "HTTP 409 conflict: target studio matches several machines: studio-mac, studio-pc")
	require.Equal(t, "Bearer "+goodKey, auth)

	missing, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "handoff_task", Arguments: map[string]any{"target": "studio"}})
	require.NoError(t, err)
	require.True(t, missing.IsError, "the schema requires task")
}

// TestMCPToolsWithoutKeySaysSo: without a key every tool answers how to get one, and nothing but the
// protocol reaches standard output (the log line goes to standard error).
func TestMCPToolsWithoutKeySaysSo(t *testing.T) {
	t.Parallel()
	s, stderr := mcpSession(t, map[string]string{envBaseURL: "http://127.0.0.1:1", "HOME": t.TempDir()})
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "crypto_capabilities", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, res.Content[0].(*mcp.TextContent).Text, "svc login")
	require.Contains(t, stderr.String(), "serving MCP on stdio")
}

// TestToolServerBaseURL: flag, environment, config, then the running svcd dev's record (a record of a
// process that is gone is ignored), then the default.
func TestToolServerBaseURL(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	rec := filepath.Join(home, ".config", "svc", "dev.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(rec), 0o700))
	env := map[string]string{"HOME": home}
	a := &app{getenv: func(k string) string { return env[k] }}
	base := func() (string, string) {
		s, err := a.settings()
		require.NoError(t, err)
		return a.toolServerBaseURL(s)
	}
	u, from := base()
	require.Equal(t, client.DefaultBaseURL, u)
	require.Equal(t, "the default", from)

	write := func(pid int) {
		b, err := json.Marshal(map[string]any{"pid": pid, "apiUrl": "http://127.0.0.1:18080"})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(rec, b, 0o600))
	}
	write(1 << 30)
	u, _ = base()
	require.Equal(t, client.DefaultBaseURL, u, "the recorded process is gone")
	write(os.Getpid())
	u, from = base()
	require.Equal(t, "http://127.0.0.1:18080/v1", u)
	require.Equal(t, rec, from)

	require.NoError(t, saveConfig(filepath.Join(home, ".config", "svc", "config.json"), config{BaseURL: "http://cfg.example"}))
	u, _ = base()
	require.Equal(t, "http://cfg.example/v1", u)
	env[envBaseURL] = "http://env.example/v1"
	u, from = base()
	require.Equal(t, "http://env.example/v1", u)
	require.Equal(t, envBaseURL, from)
	a.g.baseURL = "http://flag.example"
	u, _ = base()
	require.Equal(t, "http://flag.example/v1", u)
}
