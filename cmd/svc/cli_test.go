package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// result is the outcome of one CLI invocation.
type result struct {
	code           int
	stdout, stderr string
}

// cli runs the CLI with env as its whole environment.
func cli(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut, func(k string) string { return env[k] })
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

func testEnv(t *testing.T, f *fakeAPI) map[string]string {
	t.Helper()
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir()}
	if f != nil {
		env["SVC_BASE_URL"] = f.srv.URL
	}
	return env
}

func readConfig(t *testing.T, env map[string]string) (config, os.FileInfo) {
	t.Helper()
	path := filepath.Join(env["XDG_CONFIG_HOME"], "svc", "config.json")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var c config
	require.NoError(t, json.Unmarshal(b, &c))
	return c, fi
}
