package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConnectionsList(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "connections", "list", "--limit", "1")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3, r.stdout)
	require.Regexp(t, `^ID\s+NAME\s+AUTH\s+STATUS\s+CREATED\s+ROTATED$`, lines[0])
	require.Regexp(t, `^conn_2\s+weather\s+header \(X-Api-Key\)\s+active\s+2025-01-01T00:00:00Z\s+-$`, lines[1])
	require.Equal(t, "More connections: svc connections list --limit 1 --cursor cc2", lines[2])
	require.Equal(t, []string{"limit=1"}, f.queriesTo("GET", "/v1/connections"))

	r = cli(t, env, "", "connections", "list", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "conn_2")
	require.Regexp(t, `conn_1\s+github\s+bearer\s+disabled\s+2025-01-01T00:00:00Z\s+2025-01-02T00:00:00Z\n`, r.stdout)
	require.NotContains(t, r.stdout, "More connections")

	// --json prints the page's envelope as received; with --all, one envelope of every page.
	r = cli(t, env, "", "connections", "list", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var page map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.Equal(t, true, page["ok"])
	require.Len(t, page["connections"], 1)
	require.Equal(t, "cc2", page["nextCursor"])

	r = cli(t, env, "", "--json", "connections", "list", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	page = nil
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.Len(t, page["connections"], 2)
	require.Nil(t, page["nextCursor"])
}

func TestConnectionsCreate(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	// --secret-stdin: the trailing line break is dropped; nothing warns.
	r := cli(t, env, upstreamSecret+"\n", "connections", "create", "--name", "weather", "--auth-type", "header",
		"--header-name", "X-Api-Key", "--secret-stdin", "--idempotency-key", "idem-c")
	require.Equal(t, exitOK, r.code, r.stderr)
	requireNoSecret(t, r, "create --secret-stdin")
	require.Empty(t, r.stderr)
	require.Contains(t, r.stdout, "Created connection conn_new (weather)\n")
	require.Regexp(t, `Auth:\s+header \(X-Api-Key\)\n`, r.stdout)
	require.Regexp(t, `Status:\s+active\n`, r.stdout)
	require.Regexp(t, `Rotated:\s+never\n`, r.stdout)
	require.Contains(t, r.stdout, "never shown again")
	body, hdr := f.last()
	require.Equal(t, map[string]any{"name": "weather", "authType": "header", "headerName": "X-Api-Key", "secret": upstreamSecret}, body)
	require.Equal(t, "idem-c", hdr.Get("Idempotency-Key"))

	// --secret works but warns about shell history.
	r = cli(t, env, "", "connections", "create", "--name", "gh", "--auth-type", "basic", "--username", "bot",
		"--secret", upstreamSecret)
	require.Equal(t, exitOK, r.code, r.stderr)
	requireNoSecret(t, r, "create --secret")
	require.Contains(t, r.stderr, "warning: a secret given with --secret may be kept in your shell history")
	require.Contains(t, r.stdout, "Created connection conn_new (gh)")
	body, _ = f.last()
	require.Equal(t, map[string]any{"name": "gh", "authType": "basic", "username": "bot", "secret": upstreamSecret}, body)

	// --json prints the envelope as received.
	r = cli(t, env, upstreamSecret, "connections", "create", "--name", "tok", "--auth-type", "bearer", "--secret-stdin", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	requireNoSecret(t, r, "create --json")
	var created map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &created), r.stdout)
	require.Equal(t, true, created["ok"])
	require.Equal(t, "conn_new", created["connection"].(map[string]any)["id"])
	require.Equal(t, "bearer", created["connection"].(map[string]any)["authType"])
	body, _ = f.last()
	require.Equal(t, upstreamSecret, body["secret"])
}

func TestConnectionsGetRotateDisableEnableRenameDelete(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "connections", "get", "conn_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `^ID:\s+conn_1\nName:\s+github\nAuth:\s+basic\nStatus:\s+active\nCreated:\s+2025-01-01T00:00:00Z\n`, r.stdout)
	require.Regexp(t, `Rotated:\s+never\n$`, r.stdout)
	r = cli(t, env, "", "connections", "get", "conn_1", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "conn_1", got["connection"].(map[string]any)["id"])

	// rotate sends the new secret (and username) only.
	r = cli(t, env, upstreamSecret+"\r\n", "connections", "rotate", "conn_1", "--secret-stdin", "--username", "bot2",
		"--idempotency-key", "idem-r")
	require.Equal(t, exitOK, r.code, r.stderr)
	requireNoSecret(t, r, "rotate")
	require.Contains(t, r.stdout, "Rotated connection conn_1 (github)\n")
	require.Regexp(t, `Rotated:\s+2025-01-02T00:00:00Z\n`, r.stdout)
	body, hdr := f.last()
	require.Equal(t, map[string]any{"secret": upstreamSecret, "username": "bot2"}, body)
	require.Equal(t, "idem-r", hdr.Get("Idempotency-Key"))
	require.Contains(t, f.requests, "PATCH /v1/connections/conn_1")

	r = cli(t, env, "", "connections", "rotate", "conn_1", "--secret", upstreamSecret, "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	requireNoSecret(t, r, "rotate --json")
	require.Contains(t, r.stderr, "warning: a secret given with --secret")
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "2025-01-02T00:00:00Z", got["connection"].(map[string]any)["rotatedAt"])
	body, _ = f.last()
	require.Equal(t, map[string]any{"secret": upstreamSecret}, body, "no --username: the username is kept")

	r = cli(t, env, "", "connections", "disable", "conn_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Disabled connection conn_1 (github)\n")
	require.Regexp(t, `Status:\s+disabled\n`, r.stdout)
	body, hdr = f.last()
	require.Equal(t, map[string]any{"disabled": true}, body)
	require.NotEmpty(t, hdr.Get("Idempotency-Key"))

	r = cli(t, env, "", "connections", "enable", "conn_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Enabled connection conn_1 (github)\n")
	require.Regexp(t, `Status:\s+active\n`, r.stdout)
	body, _ = f.last()
	require.Equal(t, map[string]any{"disabled": false}, body, "enable sends disabled: false explicitly")

	r = cli(t, env, "", "connections", "disable", "conn_1", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "disabled", got["connection"].(map[string]any)["status"])
	r = cli(t, env, "", "--json", "connections", "enable", "conn_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "active", got["connection"].(map[string]any)["status"])

	r = cli(t, env, "", "connections", "rename", "--name", "github-bot", "conn_1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Renamed connection conn_1 (github-bot)\n")
	body, _ = f.last()
	require.Equal(t, map[string]any{"name": "github-bot"}, body)
	r = cli(t, env, "", "connections", "rename", "conn_1", "--name", "x", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, "x", got["connection"].(map[string]any)["name"])

	r = cli(t, env, "", "connections", "delete", "conn_1", "--idempotency-key", "idem-d")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "Deleted connection conn_1 (github).\n", r.stdout)
	require.Contains(t, f.requests, "DELETE /v1/connections/conn_1")
	_, hdr = f.last()
	require.Equal(t, "idem-d", hdr.Get("Idempotency-Key"))
	r = cli(t, env, "", "connections", "delete", "conn_1", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, true, got["ok"])
}

func TestConnectionsAPIErrorsExitOne(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = servicesKey // lacks the connections scopes
	for cmd, scope := range map[string]string{
		"connections list": "connections:read", "connections list --all": "connections:read",
		"connections create --name n --auth-type bearer --secret-stdin": "connections:write",
		"connections get conn_1": "connections:read", "connections rotate conn_1 --secret-stdin": "connections:write",
		"connections disable conn_1": "connections:write", "connections enable conn_1": "connections:write",
		"connections rename conn_1 --name n": "connections:write", "connections delete conn_1": "connections:write",
	} {
		r := cli(t, env, upstreamSecret, strings.Fields(cmd)...)
		require.Equal(t, exitAPI, r.code, cmd)
		require.Equal(t, "error: scope_missing: this key lacks scope "+scope+" [req_fake]\n", r.stderr, cmd)
		require.Empty(t, r.stdout, cmd)

		r = cli(t, env, upstreamSecret, append(strings.Fields(cmd), "--json")...)
		require.Equal(t, exitAPI, r.code, cmd)
		requireNoSecret(t, r, cmd)
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), "%s: %s", cmd, r.stdout)
		require.Equal(t, false, e["ok"], cmd)
		require.Equal(t, "scope_missing", e["error"].(map[string]any)["code"], cmd)
	}

	env["SVC_API_KEY"] = goodKey
	for _, cmd := range []string{"connections get conn_missing", "connections rotate conn_missing --secret-stdin",
		"connections disable conn_missing", "connections enable conn_missing", "connections rename conn_missing --name n",
		"connections delete conn_missing"} {
		r := cli(t, env, upstreamSecret, strings.Fields(cmd)...)
		require.Equal(t, exitAPI, r.code, cmd)
		require.Equal(t, `error: not_found: no connection with id "conn_missing" [req_fake]`+"\n", r.stderr, cmd)
	}
	r := cli(t, env, upstreamSecret, "connections", "create", "--name", "taken", "--auth-type", "bearer", "--secret-stdin")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, `error: conflict: a connection named "taken" exists (name) [req_fake]`+"\n", r.stderr)
	require.Empty(t, r.stdout)

	// No API key: nothing is read or sent.
	r = cli(t, testEnv(t, f), upstreamSecret, "connections", "create", "--name", "n", "--auth-type", "bearer", "--secret-stdin")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: unauthenticated: no API key")
}

func TestConnectionsUsageErrorsNameTheFlag(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	create := func(extra ...string) []string {
		return append([]string{"connections", "create"}, extra...)
	}
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"connections"}, "", "Usage: svc connections"},
		{[]string{"connections", "bogus"}, "", `unknown command "connections bogus"`},
		{[]string{"connections", "list", "--limit", "0x"}, "", "-limit"},
		{[]string{"connections", "list", "--limit", "500"}, "", "--limit must be between 1 and 200"},
		{[]string{"connections", "list", "extra"}, "", `unexpected argument "extra"`},
		{create("--auth-type", "bearer", "--secret-stdin"), "s", "--name is required"},
		{create("--name", " ", "--auth-type", "bearer", "--secret-stdin"), "s", "--name must not be empty"},
		{create("--name", strings.Repeat("n", 101), "--auth-type", "bearer", "--secret-stdin"), "s", "--name has 101 characters"},
		{create("--name", "a\tb", "--auth-type", "bearer", "--secret-stdin"), "s", "--name must be valid text"},
		{create("--name", "n", "--secret-stdin"), "s", "--auth-type is required"},
		{create("--name", "n", "--auth-type", "oauth", "--secret-stdin"), "s", `--auth-type must be header, bearer or basic, not "oauth"`},
		{create("--name", "n", "--auth-type", "header", "--secret-stdin"), "s", "--header-name is required with --auth-type header"},
		{create("--name", "n", "--auth-type", "header", "--header-name", "X Key", "--secret-stdin"), "s", "--header-name must be an HTTP header name"},
		{create("--name", "n", "--auth-type", "bearer", "--header-name", "X-Key", "--secret-stdin"), "s", "--header-name applies only to --auth-type header"},
		{create("--name", "n", "--auth-type", "basic", "--secret-stdin"), "s", "--username is required with --auth-type basic"},
		{create("--name", "n", "--auth-type", "basic", "--username", "a:b", "--secret-stdin"), "s", "--username must not contain a colon"},
		{create("--name", "n", "--auth-type", "header", "--header-name", "X-Key", "--username", "u", "--secret-stdin"), "s", "--username applies only to --auth-type basic"},
		{create("--name", "n", "--auth-type", "bearer"), "s", "give the secret with --secret-stdin (or --secret) when svc cannot prompt"},
		{create("--name", "n", "--auth-type", "bearer", "--not-interactive"), "s", "--secret-stdin"},
		{create("--name", "n", "--auth-type", "bearer", "--secret", ""), "", "--secret is empty"},
		{create("--name", "n", "--auth-type", "bearer", "--secret", "x", "--secret-stdin"), "s", "use --secret or --secret-stdin, not both"},
		{create("--name", "n", "--auth-type", "bearer", "--secret-stdin"), "\n", "--secret-stdin: stdin holds no secret"},
		{create("--name", "n", "--auth-type", "bearer", "--secret-stdin"), "two\nlines", "the secret must be one line"},
		{create("--name", "n", "--auth-type", "bearer", "--secret-stdin"), strings.Repeat("s", 8193), "the secret is longer than 8192 bytes"},
		{create("--name", "n", "--auth-type", "bearer", "--bogus"), "", "-bogus"},
		{[]string{"connections", "get"}, "", "exactly one connection id"},
		{[]string{"connections", "get", "a", "b"}, "", "exactly one connection id"},
		{[]string{"connections", "rotate", "--secret-stdin"}, "s", "exactly one connection id"},
		{[]string{"connections", "rotate", "conn_1"}, "s", "give the secret with --secret-stdin"},
		{[]string{"connections", "rotate", "conn_1", "--secret-stdin", "--username", ""}, "s", "--username must not be empty"},
		{[]string{"connections", "rotate", "conn_1", "--secret-stdin", "--username", "a:b"}, "s", "--username must not contain a colon"},
		{[]string{"connections", "disable"}, "", "connections disable takes exactly one connection id"},
		{[]string{"connections", "enable", "a", "b"}, "", "connections enable takes exactly one connection id"},
		{[]string{"connections", "rename", "conn_1"}, "", "--name is required"},
		{[]string{"connections", "rename", "--name", "n"}, "", "exactly one connection id"},
		{[]string{"connections", "rename", "conn_1", "--name", ""}, "", "--name must not be empty"},
		{[]string{"connections", "delete"}, "", "exactly one connection id"},
	} {
		r := cli(t, env, tc.stdin, tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
		require.Empty(t, r.stdout, tc.args)
	}
	require.Empty(t, f.requests, "usage errors are found before any request")
}

func TestConnectionsSecretNeverPrinted(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
	}{
		{[]string{"connections", "create", "--name", "n", "--auth-type", "bearer", "--secret-stdin"}, upstreamSecret, exitOK},
		{[]string{"connections", "create", "--name", "n", "--auth-type", "bearer", "--secret", upstreamSecret}, "", exitOK},
		{[]string{"connections", "create", "--name", "taken", "--auth-type", "bearer", "--secret-stdin"}, upstreamSecret, exitAPI},
		{[]string{"connections", "create", "--name", "n", "--auth-type", "oauth", "--secret", upstreamSecret}, "", exitUsage},
		{[]string{"connections", "rotate", "conn_1", "--secret-stdin"}, upstreamSecret + "\n", exitOK},
		{[]string{"connections", "rotate", "conn_1", "--secret", upstreamSecret}, "", exitOK},
		{[]string{"connections", "rotate", "conn_missing", "--secret-stdin"}, upstreamSecret, exitAPI},
		// A secret typed as an argument (without --secret) is refused without being echoed.
		{[]string{"connections", "create", "--name", "n", "--auth-type", "bearer", upstreamSecret}, "", exitUsage},
		{[]string{"connections", "rotate", "conn_1", upstreamSecret}, "", exitUsage},
		// So is an invalid one.
		{[]string{"connections", "rotate", "conn_1", "--secret-stdin"}, upstreamSecret + "\x00", exitUsage},
		{[]string{"connections", "rotate", "conn_1", "--secret", upstreamSecret + "\n"}, "", exitUsage},
	} {
		for _, mode := range [][]string{nil, {"--json"}} {
			args := append(append([]string{}, tc.args...), mode...)
			r := cli(t, env, tc.stdin, args...)
			require.Equal(t, tc.code, r.code, "%v: %s", args, r.stderr)
			requireNoSecret(t, r, args)
		}
	}
}
