package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// loggedIn is the svc command line against env's server, with a configuration folder of its own and no
// prompts, after "svc login --api-key secret": each call answers the exit code, stdout and stderr.
func loggedIn(t *testing.T, env *apptest.Env, secret string) func(args ...string) (int, string, string) {
	t.Helper()
	cfgDir := t.TempDir()
	getenv := func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": cfgDir, "SVC_BASE_URL": env.URL, "SVC_NOT_INTERACTIVE": "1"}[k]
	}
	svc := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errOut, getenv)
		return code, out.String(), errOut.String()
	}
	code, _, stderr := svc("login", "--api-key", secret)
	require.Equal(t, 0, code, stderr)
	return svc
}
