package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUsageCommand(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "usage", "--from", "2025-01-01", "--to", "2025-01-02", "--operation", "runs.create")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 5, r.stdout)
	require.Equal(t, "Usage from 2025-01-01 to 2025-01-02 (UTC days)", lines[0])
	require.Regexp(t, `^DATE\s+PROJECT\s+OPERATION\s+REQUESTS\s+CREDITS$`, lines[1])
	require.Regexp(t, `^2025-01-01\s+-\s+runs\.create\s+3\s+0\.1$`, lines[2])
	require.Regexp(t, `^2025-01-02\s+proj_1\s+runs\.read\s+2\s+0\.2$`, lines[3])
	require.Regexp(t, `^TOTAL\s+5\s+0\.3$`, lines[4], "totals are summed exactly")
	require.Equal(t, []string{"from=2025-01-01&operation=runs.create&to=2025-01-02"}, f.queriesTo("GET", "/v1/usage"))

	r = cli(t, env, "", "usage", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var u map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &u), r.stdout)
	require.Equal(t, true, u["ok"])
	require.Len(t, u["usage"], 2)
	require.Equal(t, "2025-01-30", u["to"])
}
