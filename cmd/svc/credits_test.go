package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCreditsBalance(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "credits", "balance")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `^Available:\s+1234567\.5 credits\nHeld:\s+0\.25 credits\nUpdated:\s+2025-01-02T00:00:00Z\n$`, r.stdout)

	r = cli(t, env, "", "credits", "balance", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, `"credits": 1234567.5`, "numbers are printed as received")
	var b map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &b), r.stdout)
	require.Equal(t, true, b["ok"])
}
