package apikey_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/catalog"
)

func ptr(b bool) *bool { return &b }

// TestGrantsForFlags: seed 002's CLI defaults, and each flag adding exactly its scopes and services
// (CONTRACT.md's mapping).
func TestGrantsForFlags(t *testing.T) {
	t.Parallel()
	cat := catalog.Builtin()
	def := apikey.GrantsForFlags(cat, client.KeyFlags{})
	require.True(t, def.ReadOnly)
	require.True(t, def.HasScope(client.ScopeWalletsTransact))
	require.True(t, def.HasScope(client.ScopeWalletsSign))
	require.False(t, def.HasScope(client.ScopeRunsWrite))
	require.False(t, def.HasScope(client.ScopeServicesInvoke))
	require.True(t, def.HasScope(client.ScopeWalletsRead))
	require.True(t, def.HasScope(client.ScopeAPIKeysManage))
	require.True(t, def.HasService(client.ServiceManagedWallets))
	require.False(t, def.HasService(client.ServiceManagedAgents))
	require.True(t, def.HasService(client.ServiceManagedWorkflows))
	require.NotContains(t, def.Services, apikey.AllServices)
	require.NotNil(t, def.Limits)

	none := apikey.GrantsForFlags(cat, client.KeyFlags{WalletAPI: ptr(false), TokenLaunchAPI: ptr(false), ReadOnly: ptr(false)})
	require.False(t, none.ReadOnly)
	require.False(t, none.HasScope(client.ScopeWalletsTransact))
	require.False(t, none.HasScope(client.ScopeWalletsSign))
	require.False(t, none.HasService(client.ServiceManagedWallets))
	require.Len(t, none.Scopes, len(client.AllScopes)-4)

	launchOnly := apikey.GrantsForFlags(cat, client.KeyFlags{WalletAPI: ptr(false)})
	require.True(t, launchOnly.HasScope(client.ScopeWalletsTransact))
	require.False(t, launchOnly.HasScope(client.ScopeWalletsSign))
	require.True(t, launchOnly.HasService(client.ServiceManagedWallets))

	agent := apikey.GrantsForFlags(cat, client.KeyFlags{AgentAPI: ptr(true)})
	require.True(t, agent.HasScope(client.ScopeRunsWrite))
	require.False(t, agent.HasScope(client.ScopeServicesInvoke))
	require.True(t, agent.HasService(client.ServiceManagedAgents))

	llm := apikey.GrantsForFlags(cat, client.KeyFlags{LLMGateway: ptr(true)})
	require.True(t, llm.HasScope(client.ScopeServicesInvoke))
	require.False(t, llm.HasScope(client.ScopeRunsWrite))
	require.True(t, llm.HasService(client.ServiceManagedAgents))

	all := apikey.GrantsForFlags(cat, client.KeyFlags{AgentAPI: ptr(true), LLMGateway: ptr(true)})
	require.ElementsMatch(t, client.AllScopes, all.Scopes)
}
