package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/testenv"
)

// TestCLIAgainstTheServer follows the README: log in with a key, create an echo run and wait for it,
// read it back, create and list child keys, all against the real server.
func TestCLIAgainstTheServer(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	secret := env.FirstKey(t)
	cfgDir := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "XDG_CONFIG_HOME":
			return cfgDir
		case "SVC_BASE_URL":
			return env.URL
		case "SVC_NOT_INTERACTIVE":
			return "1"
		}
		return ""
	}
	svc := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errOut, getenv)
		return code, out.String(), errOut.String()
	}

	code, _, stderr := svc("login", "--api-key", secret)
	require.Equal(t, 0, code, stderr)
	code, out, stderr := svc("whoami")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, secret[:13])
	require.NotContains(t, out, secret, "whoami never prints the whole secret")

	code, out, stderr = svc("--json", "runs", "create", "--service", "managed-workflows", "--operation", "echo",
		"--input", `{"hello":"cli"}`, "--wait", "--interval", "20ms")
	require.Equal(t, 0, code, stderr)
	var created struct {
		Run struct {
			ID     string         `json:"id"`
			Status string         `json:"status"`
			Output map[string]any `json:"output"`
		} `json:"run"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &created), out)
	require.Equal(t, "succeeded", created.Run.Status)
	require.Equal(t, "cli", created.Run.Output["hello"])

	code, out, stderr = svc("runs", "get", created.Run.ID)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "succeeded")

	code, out, stderr = svc("keys", "create", "--name", "child", "--scope", "runs:read")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "svc_sk_")
	code, out, stderr = svc("keys", "create", "--scope", "runs:fly")
	require.Equal(t, 1, code, out)
	require.Contains(t, stderr, "invalid_request")

	code, out, stderr = svc("keys", "list")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "child")

	code, _, stderr = svc("runs", "get", "run_missing")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "not_found")
}
