package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// TestSDKAgainstTheServer drives the real server through the Go SDK: the SDK and the server share the
// wire types, and ordinary failures come back as envelopes, never as errors or panics.
func TestSDKAgainstTheServer(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	_, token := env.NewAccount(t, "sdk")

	boot := client.New(client.WithBaseURL(env.URL), client.WithCreditToken(token))
	created := boot.CreateAPIKey(ctx, client.CreateAPIKeyRequest{Name: "root"}, client.WithIdempotencyKey("sdk-root"))
	require.True(t, created.OK, "%+v", created.Error)
	require.Equal(t, http.StatusCreated, created.StatusCode)
	replayed := boot.CreateAPIKey(ctx, client.CreateAPIKeyRequest{Name: "root"}, client.WithIdempotencyKey("sdk-root"))
	require.True(t, replayed.Replayed)
	require.Equal(t, created.Body.APIKey.ID, replayed.Body.APIKey.ID)

	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(created.Body.APIKey.Secret))
	health := c.Health(ctx)
	require.True(t, health.OK)
	require.Equal(t, client.APIVersion, health.Body.APIVersion)

	pricing := c.Pricing(ctx, client.ServiceManagedWorkflows)
	require.True(t, pricing.OK)
	for _, p := range pricing.Body.Prices {
		require.Equal(t, client.ServiceManagedWorkflows, p.ServiceID)
	}

	svc := c.GetCapabilities(ctx, client.ServiceManagedWorkflows)
	require.True(t, svc.OK)
	require.Len(t, svc.Body.Service.Operations, 2)
	missing := c.GetCapabilities(ctx, "no-such-service")
	require.False(t, missing.OK)
	require.Equal(t, "not_found", missing.Error.Code)
	require.NotEmpty(t, missing.Error.RequestID)

	run := c.CreateRun(ctx, client.CreateRunRequest{ServiceID: client.ServiceManagedWorkflows, OperationID: client.OperationEcho,
		Input: map[string]any{"n": 42}})
	require.True(t, run.OK, "%+v", run.Error)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	done := c.WaitRun(wctx, run.Body.Run.ID, 20*time.Millisecond)
	require.True(t, done.OK)
	require.Equal(t, client.RunSucceeded, done.Body.Run.Status)
	require.Equal(t, map[string]any{"n": float64(42)}, done.Body.Run.Output)

	keys := c.ListAPIKeys(ctx, client.ListParams{})
	require.True(t, keys.OK)
	require.Len(t, keys.Body.APIKeys, 1)
	require.True(t, keys.Body.APIKeys[0].Current)
	require.Empty(t, keys.Body.APIKeys[0].Secret, "a listing never shows a secret")

	revoked := c.RevokeAPIKey(ctx, created.Body.APIKey.ID)
	require.True(t, revoked.OK)
	after := c.GetRun(ctx, run.Body.Run.ID)
	require.False(t, after.OK)
	require.Equal(t, http.StatusUnauthorized, after.StatusCode)

	env.HTTP.Close()
	down := c.Health(ctx)
	require.False(t, down.OK)
	require.Equal(t, "transport_error", down.Error.Code)
}

// TestSDKProjectsUsageAuditCredits drives projects, usage, audit events and the balance through the SDK.
func TestSDKProjectsUsageAuditCredits(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(env.FirstKey(t)))

	p := c.CreateProject(ctx, client.CreateProjectRequest{Name: "sdk"})
	require.True(t, p.OK, "%+v", p.Error)
	name := "sdk 2"
	u := c.UpdateProject(ctx, p.Body.Project.ID, client.UpdateProjectRequest{Name: &name})
	require.True(t, u.OK, "%+v", u.Error)
	require.Equal(t, name, c.GetProject(ctx, p.Body.Project.ID).Body.Project.Name)
	require.Len(t, c.ListProjects(ctx, client.ProjectListParams{Status: client.ProjectActive}).Body.Projects, 1)
	a := c.ArchiveProject(ctx, p.Body.Project.ID)
	require.Equal(t, client.ProjectArchived, a.Body.Project.Status)
	require.Empty(t, c.ListProjects(ctx, client.ProjectListParams{Status: client.ProjectActive}).Body.Projects)

	b := c.Balance(ctx)
	require.True(t, b.OK)
	require.Zero(t, b.Body.Balance.Credits)

	require.Eventually(t, func() bool {
		ev := c.ListAuditEvents(ctx, client.AuditEventParams{Operation: client.OpProjectsCreate})
		return ev.OK && len(ev.Body.AuditEvents) == 1
	}, 5*time.Second, 20*time.Millisecond)
	// Usage is summed from the audit trail, which is written in batches: poll until it shows.
	require.Eventually(t, func() bool {
		usage := c.Usage(ctx, client.UsageParams{Operation: client.OpProjectsUpdate})
		require.True(t, usage.OK, "%+v", usage.Error)
		return len(usage.Body.Usage) == 1 && usage.Body.Usage[0].Requests == 1
	}, 5*time.Second, 20*time.Millisecond)

	bad := c.Usage(ctx, client.UsageParams{From: time.Now(), To: time.Now().AddDate(0, 0, -3)})
	require.False(t, bad.OK)
	require.Equal(t, "from", bad.Error.Param)
}
