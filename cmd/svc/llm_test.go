package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// TestCLIKeysLeaveTheLLMGatewayOff: seed 002's new CLI key defaults. "svc keys create" without
// --service gives the parent's services without managed-agents; --llm and --agent-api add it; an
// explicit --service list is kept; "svc login siwe" makes a key without it unless --llm; "svc llm
// credits" shows the balance.
func TestCLIKeysLeaveTheLLMGatewayOff(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{NoDatabases: true, NoWorker: true})
	owner := env.FirstKey(t)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_NOT_INTERACTIVE": "1", "SVC_API_KEY": owner}
	services := func(args ...string) []string {
		t.Helper()
		r := cli(t, vars, "", append([]string{"--json", "keys", "create"}, args...)...)
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		var k client.APIKeyEnvelope
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &k), r.stdout)
		return k.APIKey.Services
	}
	plain := services("--name", "plain")
	require.NotContains(t, plain, client.ServiceManagedAgents)
	require.Contains(t, plain, client.ServiceManagedWallets)
	require.Contains(t, services("--name", "llm", "--llm"), client.ServiceManagedAgents)
	require.Contains(t, services("--name", "agent", "--agent-api"), client.ServiceManagedAgents)
	require.Equal(t, []string{client.ServiceManagedWallets}, services("--name", "wallets", "--service", client.ServiceManagedWallets))
	require.ElementsMatch(t, []string{client.ServiceManagedWallets, client.ServiceManagedAgents},
		services("--name", "wallets-llm", "--service", client.ServiceManagedWallets, "--llm"))

	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	linkAddress(t, env, owner, key)
	user := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL, "SVC_NOT_INTERACTIVE": "1"}
	for _, tc := range []struct {
		flag   string
		agents bool
	}{{"", false}, {"--llm", true}} {
		args := []string{"--json", "login", "siwe", "--private-key", hexutil.Encode(crypto.FromECDSA(key))}
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		r := cli(t, user, "", args...)
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		r = cli(t, user, "", "--json", "keys", "list")
		require.Equal(t, exitOK, r.code, r.stderr)
		var list client.APIKeyList
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &list), r.stdout)
		i := slices.IndexFunc(list.APIKeys, func(k client.APIKey) bool { return k.Current })
		require.GreaterOrEqual(t, i, 0, r.stdout)
		require.Equal(t, tc.agents, slices.Contains(list.APIKeys[i].Services, client.ServiceManagedAgents), "login siwe %s: %v", tc.flag, list.APIKeys[i].Services)
		require.NotEmpty(t, list.APIKeys[i].Services)
	}

	r := cli(t, vars, "", "llm", "credits")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `(?m)^Available:\s+\S+ credits$`, r.stdout)
	r = cli(t, vars, "", "llm", "credits", "add", "25")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "SVC_PRIVATE_KEY")
}
