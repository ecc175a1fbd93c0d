package api_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// TestAgentEnvSDK: the SDK's methods for the environment, MCP server, Club and auto top-up routes, and
// their refusals as Response errors (never a panic or a Go error).
func TestAgentEnvSDK(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(env.FirstKey(t)))

	set := c.SetEnv(ctx, client.SetEnvRequest{Key: "MY_TOKEN", Value: "sdk-secret"})
	require.True(t, set.OK, "%v", set.Error)
	require.Equal(t, "MY_TOKEN", set.Body.Env.Key)
	bad := c.SetEnv(ctx, client.SetEnvRequest{Key: "SVC_X", Value: "v"})
	require.False(t, bad.OK)
	require.Equal(t, "key", bad.Error.Param)
	list := c.ListEnv(ctx)
	require.True(t, list.OK, "%v", list.Error)
	require.Len(t, list.Body.Env, 1)
	require.NotContains(t, string(list.Raw), "sdk-secret")
	del := c.DeleteEnv(ctx, "MY_TOKEN")
	require.True(t, del.OK, "%v", del.Error)
	require.False(t, c.DeleteEnv(ctx, "MY_TOKEN").OK)
	require.False(t, c.DeleteEnv(ctx, "").OK)

	url, _ := testMCPServer(t, false)
	m := c.CreateMCPServer(ctx, client.CreateMCPServerRequest{Name: "tools", URL: url, Transport: "http", Headers: map[string]string{"X-Token": "t"}})
	require.True(t, m.OK, "%v", m.Error)
	require.Equal(t, []string{"X-Token"}, m.Body.MCPServer.HeaderNames)
	require.True(t, c.GetMCPServer(ctx, m.Body.MCPServer.ID).OK)
	ms := c.ListMCPServers(ctx)
	require.True(t, ms.OK, "%v", ms.Error)
	require.Len(t, ms.Body.MCPServers, 1)
	require.True(t, c.DeleteMCPServer(ctx, m.Body.MCPServer.ID).OK)
	require.False(t, c.GetMCPServer(ctx, m.Body.MCPServer.ID).OK)

	cl := c.GetClub(ctx)
	require.True(t, cl.OK, "%v", cl.Error)
	require.Equal(t, "none", cl.Body.Club.Status)
	require.False(t, c.SubscribeClub(ctx, client.SubscribeClubRequest{Period: "month"}).OK, "no managed wallet")
	require.False(t, c.CancelClub(ctx).OK, "nothing to cancel")

	below, target := int64(5), int64(50)
	at := c.SetAutoTopUp(ctx, client.AutoTopUpRequest{Enabled: true, Below: &below, Target: &target})
	require.True(t, at.OK, "%v", at.Error)
	require.True(t, at.Body.AutoTopUp.Enabled)
	got := c.GetAutoTopUp(ctx)
	require.True(t, got.OK, "%v", got.Error)
	require.Equal(t, int64(50), *got.Body.AutoTopUp.Target)
}
