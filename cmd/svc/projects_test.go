package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestProjectsList(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	// One page: a table, and how to get the next page.
	r := cli(t, env, "", "projects", "list", "--limit", "1")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3, r.stdout)
	require.Regexp(t, `^ID\s+NAME\s+STATUS\s+CREATED\s+DESCRIPTION$`, lines[0])
	require.Regexp(t, `^proj_2\s+Second\s+active\s+2025-01-01T00:00:00Z\s+the second project$`, lines[1], "line breaks and tabs do not break the table")
	require.Equal(t, "More projects: svc projects list --limit 1 --cursor pc2", lines[2])
	require.Equal(t, []string{"limit=1"}, f.queriesTo("GET", "/v1/projects"))

	// --all follows nextCursor.
	r = cli(t, env, "", "projects", "list", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "proj_2")
	require.Regexp(t, `proj_1\s+First\s+archived\s+\S+\s+-\n`, r.stdout)
	require.NotContains(t, r.stdout, "More projects")

	// --status is sent; an empty answer says so.
	f2 := newFakeAPI(t)
	env2 := testEnv(t, f2)
	env2["SVC_API_KEY"] = goodKey
	r = cli(t, env2, "", "projects", "list", "--status", "archived")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "No projects.")
	require.Equal(t, []string{"status=archived"}, f2.queriesTo("GET", "/v1/projects"))

	// --json prints the page's envelope as received.
	r = cli(t, env, "", "projects", "list", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var page struct {
		OK         bool             `json:"ok"`
		Projects   []map[string]any `json:"projects"`
		NextCursor *string          `json:"nextCursor"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.True(t, page.OK)
	require.Len(t, page.Projects, 1)
	require.Equal(t, "pc2", *page.NextCursor)

	// --json --all gathers every page into one envelope.
	r = cli(t, env, "", "projects", "list", "--json", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	page.NextCursor = nil
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.Len(t, page.Projects, 2)
	require.Nil(t, page.NextCursor)
}

func TestProjectsCreateGetUpdateArchive(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	lastReq := func() (map[string]any, http.Header) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.lastBody, f.lastHdr
	}

	r := cli(t, env, "", "projects", "create", "--name", "  Demo ", "--description", "a demo", "--idempotency-key", "idem-p")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Created project proj_new (Demo)")
	require.Regexp(t, `ID:\s+proj_new\n`, r.stdout)
	require.Regexp(t, `Description:\s+a demo\n`, r.stdout)
	require.Regexp(t, `Status:\s+active\n`, r.stdout)
	body, hdr := lastReq()
	require.Equal(t, map[string]any{"name": "Demo", "description": "a demo"}, body)
	require.Equal(t, "idem-p", hdr.Get("Idempotency-Key"))

	r = cli(t, env, "", "projects", "create", "--name", "Demo", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var created map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &created), r.stdout)
	require.Equal(t, "proj_new", created["project"].(map[string]any)["id"])
	body, _ = lastReq()
	require.Equal(t, map[string]any{"name": "Demo"}, body, "no description: the field is left out")

	r = cli(t, env, "", "projects", "get", "proj_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `^ID:\s+proj_1\nName:\s+First\nDescription:\s+the first\nStatus:\s+active\n`, r.stdout)
	require.NotContains(t, r.stdout, "Archived:")

	// Only the given fields are sent; --description "" clears the description.
	r = cli(t, env, "", "projects", "update", "proj_1", "--description", "")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Updated project proj_1 (First)")
	require.Regexp(t, `Description:\s+-\n`, r.stdout)
	require.Regexp(t, `Updated:\s+2025-01-02T00:00:00Z`, r.stdout)
	body, hdr = lastReq()
	require.Equal(t, map[string]any{"description": ""}, body)
	require.NotEmpty(t, hdr.Get("Idempotency-Key"))
	require.Contains(t, f.requests, "PATCH /v1/projects/proj_1")

	r = cli(t, env, "", "projects", "update", "--name", "Renamed", "proj_1", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var updated map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &updated), r.stdout)
	require.Equal(t, "Renamed", updated["project"].(map[string]any)["name"])
	require.Equal(t, "the first", updated["project"].(map[string]any)["description"])

	r = cli(t, env, "", "projects", "archive", "proj_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Archived project proj_1 (First)")
	require.Regexp(t, `Status:\s+archived\n`, r.stdout)
	require.Regexp(t, `Archived:\s+2025-01-03T00:00:00Z`, r.stdout)
	require.Contains(t, f.requests, "DELETE /v1/projects/proj_1")

	r = cli(t, env, "", "--json", "projects", "archive", "proj_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, `"archivedAt": "2025-01-03T00:00:00Z"`)
}

func TestProjectsUsageAuditCreditsAPIErrorsExitOne(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = servicesKey // lacks every scope these commands need
	for cmd, scope := range map[string]string{
		"projects list": "projects:read", "projects create --name x": "projects:write", "projects get proj_1": "projects:read",
		"projects update proj_1 --name x": "projects:write", "projects archive proj_1": "projects:write",
		"usage": "usage:read", "audit": "audit:read", "audit --all": "audit:read", "credits balance": "credits:read",
	} {
		r := cli(t, env, "", strings.Fields(cmd)...)
		require.Equal(t, exitAPI, r.code, cmd)
		require.Equal(t, "error: scope_missing: this key lacks scope "+scope+" [req_fake]\n", r.stderr, cmd)
		require.Empty(t, r.stdout, cmd)

		// In --json mode the error envelope goes to stdout as well.
		r = cli(t, env, "", append(strings.Fields(cmd), "--json")...)
		require.Equal(t, exitAPI, r.code, cmd)
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), "%s: %s", cmd, r.stdout)
		require.Equal(t, false, e["ok"], cmd)
		require.Equal(t, "scope_missing", e["error"].(map[string]any)["code"], cmd)
	}

	env["SVC_API_KEY"] = goodKey
	for _, cmd := range []string{"projects get proj_missing", "projects update proj_missing --name x", "projects archive proj_missing"} {
		r := cli(t, env, "", strings.Fields(cmd)...)
		require.Equal(t, exitAPI, r.code, cmd)
		require.Equal(t, `error: not_found: no project "proj_missing" [req_fake]`+"\n", r.stderr, cmd)
	}
	r := cli(t, env, "", "audit", "--cursor", "bogus")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: invalid_request: bad cursor [req_fake]")

	env["SVC_BASE_URL"] = "http://127.0.0.1:1"
	r = cli(t, env, "", "credits", "balance")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: transport_error: ")
}

func TestProjectsUsageAuditCreditsUsageErrorsNameTheFlag(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	long := strings.Repeat("é", 201)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"projects"}, "Usage: svc projects"},
		{[]string{"projects", "bogus"}, `unknown command "projects bogus"`},
		{[]string{"projects", "list", "--status", "deleted"}, "--status"},
		{[]string{"projects", "list", "--limit", "201"}, "--limit"},
		{[]string{"projects", "list", "--limit", "ten"}, "-limit"},
		{[]string{"projects", "list", "extra"}, `unexpected argument "extra"`},
		{[]string{"projects", "create"}, "--name is required"},
		{[]string{"projects", "create", "--name", "   "}, "--name is required"},
		{[]string{"projects", "create", "--name", long}, "--name has 201 characters"},
		{[]string{"projects", "create", "--name", "x", "--description", strings.Repeat("d", 2001)}, "--description"},
		{[]string{"projects", "create", "--name", "x", "extra"}, `unexpected argument "extra"`},
		{[]string{"projects", "get"}, "exactly one project id"},
		{[]string{"projects", "get", "a", "b"}, "exactly one project id"},
		{[]string{"projects", "update", "proj_1"}, "give --name, --description or both"},
		{[]string{"projects", "update", "--name", "x"}, "exactly one project id"},
		{[]string{"projects", "update", "proj_1", "--name", ""}, "--name must not be empty"},
		{[]string{"projects", "archive"}, "exactly one project id"},
		{[]string{"usage", "--from", "2025-1-1"}, `--from "2025-1-1" is not a day`},
		{[]string{"usage", "--to", "2025-01-01T00:00:00Z"}, `--to "2025-01-01T00:00:00Z" is not a day`},
		{[]string{"usage", "--from", "2025-02-01", "--to", "2025-01-01"}, "--from 2025-02-01 is after --to 2025-01-01"},
		{[]string{"usage", "--from", "2024-01-01", "--to", "2025-01-01"}, "covers 367 days"},
		{[]string{"usage", "extra"}, `unexpected argument "extra"`},
		{[]string{"audit", "--from", "yesterday"}, `--from "yesterday" is not an RFC 3339 time`},
		{[]string{"audit", "--to", "2025-01-01 10:00"}, `--to "2025-01-01 10:00"`},
		{[]string{"audit", "--to", "2025-01-01T10:00:00.5Z"}, "--to \"2025-01-01T10:00:00.5Z\": give whole seconds"},
		{[]string{"audit", "--from", "2025-01-02", "--to", "2025-01-01"}, "--from must be before --to"},
		{[]string{"audit", "--status", "42"}, "--status must be an HTTP status"},
		{[]string{"audit", "--status", "0"}, "--status must be an HTTP status"},
		{[]string{"audit", "--status", "ok"}, "-status"},
		{[]string{"audit", "--limit", "-1"}, "--limit"},
		{[]string{"credits"}, "Usage: svc credits"},
		{[]string{"credits", "spend"}, `unknown command "credits spend"`},
		{[]string{"credits", "balance", "now"}, `unexpected argument "now"`},
	} {
		r := cli(t, env, "", tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
		require.Empty(t, r.stdout, tc.args)
	}
	require.Empty(t, f.requests, "usage errors are found before any request")

	// A 366-day range is allowed.
	r := cli(t, env, "", "usage", "--from", "2024-01-01", "--to", "2024-12-31")
	require.Equal(t, exitOK, r.code, r.stderr)
}
