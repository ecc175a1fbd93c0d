package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// TestCLIAgainstTheServer follows the README: log in with a key, create an echo run and wait for it,
// read it back, create and list child keys, then create, list, update and archive a project, read the
// credit balance, usage and audit events, all against the real server.
func TestCLIAgainstTheServer(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	secret := env.FirstKey(t)
	svc := loggedIn(t, env, secret)
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

	// Projects: create, see it listed, archive it.
	code, out, stderr = svc("--json", "projects", "create", "--name", "CLI project", "--description", "made by the CLI")
	require.Equal(t, 0, code, stderr)
	var project struct {
		Project struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"project"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &project), out)
	projectID := project.Project.ID
	require.True(t, strings.HasPrefix(projectID, "proj_"), projectID)
	require.Equal(t, "active", project.Project.Status)

	code, out, stderr = svc("projects", "list")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, projectID+`\s+CLI project\s+active\s+`, out)
	code, out, stderr = svc("projects", "list", "--status", "archived")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, projectID)

	code, out, stderr = svc("projects", "update", projectID, "--description", "renamed by the CLI")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "renamed by the CLI")

	code, out, stderr = svc("projects", "archive", projectID)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Archived project "+projectID)
	require.Regexp(t, `Status:\s+archived`, out)
	code, out, stderr = svc("projects", "list", "--status", "archived")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, projectID+`\s+CLI project\s+archived\s+`, out)
	code, out, stderr = svc("projects", "update", projectID, "--name", "too late")
	require.Equal(t, 1, code, out)
	require.Contains(t, stderr, "conflict")
	code, _, stderr = svc("projects", "get", "proj_missing")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "not_found")

	// The account was created without credits.
	code, out, stderr = svc("credits", "balance")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `Available:\s+0 credits\n`, out)
	require.Regexp(t, `Held:\s+0 credits\n`, out)

	// Usage and audit events of everything above. Audit events are written in batches, so they may lag.
	code, out, stderr = svc("usage")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "TOTAL")
	require.Eventually(t, func() bool {
		code, out, stderr = svc("audit", "--operation", "projects.create")
		require.Equal(t, 0, code, stderr)
		return strings.Contains(out, "/v1/projects")
	}, 10*time.Second, 50*time.Millisecond)
	require.Regexp(t, `(?m)^TIME\s+STATUS\s+METHOD\s+PATH\s+OPERATION\s+KEY\s+REQUEST_ID$`, out)
	require.Regexp(t, `201\s+POST\s+/v1/projects\s+projects\.create\s+key_`, out)
	code, out, stderr = svc("audit", "--limit", "2")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "More events: svc audit --limit 2 --cursor ")
	code, out, stderr = svc("usage", "--from", "2020-01-01", "--to", "2020-01-31")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "No usage from 2020-01-01 to 2020-01-31")
	code, out, stderr = svc("usage")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^TOTAL\s+\d+\s+\S+$`, out)
	require.Regexp(t, `\s+-\s+runs\.create\s+\d+\s+`, out)
}
