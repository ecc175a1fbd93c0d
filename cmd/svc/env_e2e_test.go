package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// TestEnvAndClubCommandsAgainstTheServer: svc env set (--value-stdin and VALUE), list, delete; a name
// the API refuses names its rule; the value is never printed; svc club status and svc llm credits auto.
func TestEnvAndClubCommandsAgainstTheServer(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
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
	svc := func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(args, strings.NewReader(stdin), &out, &errOut, getenv)
		return code, out.String(), errOut.String()
	}
	code, _, stderr := svc("", "login", "--api-key", secret)
	require.Equal(t, 0, code, stderr)

	const value = "cli-value-never-printed-42"
	code, out, stderr := svc(value+"\n", "env", "set", "OPENAI_API_KEY", "--value-stdin")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Set OPENAI_API_KEY")
	require.NotContains(t, out+stderr, value)
	code, out, stderr = svc("", "env", "set", "OTHER_KEY", value)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "shell history")
	require.NotContains(t, out+stderr, value)
	code, _, stderr = svc("", "env", "set", "AWS_SECRET_ACCESS_KEY", "x")
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "reserved_prefix")
	code, _, stderr = svc("", "env", "set", "ONLY_KEY")
	require.NotEqual(t, 0, code, "no value and no prompt")
	require.Contains(t, stderr, "--value-stdin")

	code, out, stderr = svc("", "env", "list")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^OPENAI_API_KEY\s+env_`, out)
	require.Contains(t, out, "OTHER_KEY")
	require.NotContains(t, out, value)
	code, out, stderr = svc("", "--json", "env", "list")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, value)

	code, out, stderr = svc("", "env", "delete", "OTHER_KEY")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Deleted OTHER_KEY")
	code, _, stderr = svc("", "env", "delete", "OTHER_KEY")
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "OTHER_KEY")

	code, out, stderr = svc("", "club", "status")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Club: none (tier standard)")
	code, _, stderr = svc("", "club", "subscribe")
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "embedded wallet")

	code, out, stderr = svc("", "llm", "credits", "auto", "--enable", "--below", "10", "--target", "100")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Auto top-up is on: under 10 credits")
	code, out, stderr = svc("", "llm", "credits", "auto")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Auto top-up is on")
	code, out, stderr = svc("", "llm", "credits", "auto", "--disable")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Auto top-up is off")
	code, _, stderr = svc("", "llm", "credits", "auto", "--enable", "--below", "10")
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "--target")
}
