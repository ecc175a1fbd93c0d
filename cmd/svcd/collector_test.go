package main

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/vault"
)

func TestCollectorFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	host := func() (string, error) { return "box", nil }
	env := func(k string) string {
		return map[string]string{envVault: dir, envMachineID: "m-env", envCollectorToken: "token-from-the-environment"}[k]
	}
	cfg, err := parseCollectorArgs([]string{"--agent", "codex/a1=code,review", "--runtime", "claude", "--agent", "codex/a2"}, env, host)
	require.NoError(t, err)
	require.Equal(t, "m-env", cfg.MachineID)
	require.Equal(t, "box", cfg.Host)
	require.Equal(t, "127.0.0.1:8790", cfg.Listen)
	require.Equal(t, "token-from-the-environment", cfg.Token)
	require.Equal(t, []string{"claude", "codex"}, cfg.Runtimes)
	require.Equal(t, []vault.AgentCard{{ID: "a1", Runtime: "codex", WorkerClasses: []string{"code", "review"}},
		{ID: "a2", Runtime: "codex", WorkerClasses: []string{}}}, cfg.Agents)

	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no vault":     {[]string{"--machine-id", "m"}, "--vault"},
		"no machine":   {[]string{"--vault", dir}, "--machine-id"},
		"bad agent":    {[]string{"--vault", dir, "--machine-id", "m", "--agent", "a1"}, "--agent"},
		"unknown flag": {[]string{"--vault", dir, "--machine-id", "m", "--port", "1"}, "-port"},
		"stray":        {[]string{"--vault", dir, "--machine-id", "m", "extra"}, "extra"},
	} {
		_, err := parseCollectorArgs(tc.args, func(string) string { return "" }, host)
		var ue usageError
		require.True(t, errors.As(err, &ue), "%s: want a usage error, got %v", name, err)
		require.ErrorContains(t, err, tc.want, name)
	}
}
