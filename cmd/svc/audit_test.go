package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAuditCommand(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "audit", "--operation", "runs.read", "--key", "key_self", "--status", "200",
		"--from", "2025-01-01T00:00:00+01:00", "--to", "2025-01-03")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3, r.stdout)
	require.Regexp(t, `^TIME\s+STATUS\s+METHOD\s+PATH\s+OPERATION\s+KEY\s+REQUEST_ID$`, lines[0])
	require.Regexp(t, `^2025-01-02T03:04:05Z\s+200\s+GET\s+/v1/runs/run_1\s+runs\.read\s+key_self\s+req_aud_2$`, lines[1])
	require.Equal(t, "More events: svc audit --operation runs.read --key key_self --from 2025-01-01T00:00:00+01:00 "+
		"--to 2025-01-03 --status 200 --cursor ac2", lines[2])
	require.Equal(t, []string{"from=2024-12-31T23%3A00%3A00Z&keyId=key_self&operation=runs.read&status=200&to=2025-01-03T00%3A00%3A00Z"},
		f.queriesTo("GET", "/v1/audit-events"))

	r = cli(t, env, "", "audit", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "req_aud_2")
	require.Regexp(t, `201\s+GET\s+/v1/api-keys\s+runs\.read\s+-\s+req_aud_1`, r.stdout, "a credit-token request has no key")
	require.NotContains(t, r.stdout, "More events")

	r = cli(t, env, "", "audit", "--json", "--limit", "1")
	require.Equal(t, exitOK, r.code, r.stderr)
	var page map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.Equal(t, "ac2", page["nextCursor"])
	require.Len(t, page["auditEvents"], 1)

	r = cli(t, env, "", "audit", "--json", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	page = nil
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), r.stdout)
	require.Len(t, page["auditEvents"], 2)
	require.Nil(t, page["nextCursor"])
}
