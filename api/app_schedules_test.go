package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/workflows"
)

// scheduledApp is an app folder whose script writes appKV tick, with the schedule entry given.
func scheduledApp(slug, schedule string) map[string]string {
	return map[string]string{
		"manifest.json":   scheduledManifest(slug, schedule),
		"index.html":      "<!doctype html><p>tick</p>",
		"scripts/main.ts": `await appKV.set("tick", {by: "schedule"}); return "ticked";`,
	}
}

func scheduledManifest(slug, schedule string) string {
	return `{"slug":"` + slug + `","permissions":["read:appdata","write:appdata"],"scripts":["main"],"schedule":[` + schedule + `]}`
}

// appAutomations lists the caller's automations owned by the app slug.
func appAutomations(t *testing.T, c *client.Client, slug string) []client.Automation {
	t.Helper()
	list := c.ListAutomations(context.Background(), client.ListAutomationsParams{})
	require.True(t, list.OK, "%v", list.Error)
	out := []client.Automation{}
	for _, a := range list.Body.Automations {
		if a.App == slug {
			out = append(out, a)
		}
	}
	return out
}

// putManifest rewrites the app's manifest.json.
func putManifest(t *testing.T, c *client.Client, slug, schedule string) {
	t.Helper()
	r := c.PutAppFile(context.Background(), slug, "manifest.json", []byte(scheduledManifest(slug, schedule)))
	require.True(t, r.OK, "%v", r.Error)
}

// TestAppScheduleAutomations: an app's enabled schedule entry becomes an automation owned by the app;
// syncing the same manifest again changes nothing; a trigger fires a run with trigger schedule that
// succeeds as the owner (its appKV write is the owner's) and counts against the automation; disabling
// the entry pauses it, enabling it with a new cron resumes and re-specs it; removing the entry deletes
// it; deleting the app deletes them; another account sees none; POST /v1/automations cannot make one.
func TestAppScheduleAutomations(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(owner.secret))
	ctx := context.Background()
	const slug = "ticker"
	entry := `{"script":"main","cron":"0 * * * *","enabled":true}`
	created := createJSONApp(t, env, owner.secret, "create-ticker", scheduledApp(slug, entry))
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)

	autos := appAutomations(t, c, slug)
	require.Len(t, autos, 1)
	a := autos[0]
	require.Equal(t, "app:ticker:main:0", a.Name)
	require.Equal(t, client.AutomationActive, a.Status)
	require.Equal(t, "0 * * * *", a.Cron)
	require.Equal(t, client.ServiceManagedAgents, a.Action.ServiceID)
	require.Equal(t, map[string]any{"app": slug, "script": "main"}, a.Action.Input)

	putManifest(t, c, slug, entry)
	again := appAutomations(t, c, slug)
	require.Len(t, again, 1, "a second sync of the same manifest changes nothing")
	require.Equal(t, a.ID, again[0].ID)
	require.Equal(t, a.UpdatedAt, again[0].UpdatedAt)

	trig := c.TriggerAutomation(ctx, a.ID)
	require.True(t, trig.OK, "%v", trig.Error)
	var runs []client.AppScriptRun
	require.Eventually(t, func() bool {
		r := c.ListAppScriptRuns(ctx, slug, client.ListParams{})
		require.True(t, r.OK, "%v", r.Error)
		runs = r.Body.Runs
		return len(runs) == 1 && runs[0].Status == client.AppRunSucceeded
	}, 30*time.Second, 50*time.Millisecond)
	require.Equal(t, "schedule", runs[0].Trigger)
	require.JSONEq(t, `"ticked"`, string(runs[0].Result))
	tick := c.GetAppKV(ctx, slug, "tick")
	require.True(t, tick.OK, "%v", tick.Error)
	require.JSONEq(t, `{"by":"schedule"}`, string(tick.Body.Value), "the scheduled run wrote the owner's appKV")
	got := c.GetAutomation(ctx, a.ID)
	require.True(t, got.OK, "%v", got.Error)
	require.EqualValues(t, 1, got.Body.Automation.Counts.RunsStarted, "the run counts against the automation's tier limits")
	require.Equal(t, slug, got.Body.Automation.App)

	other := newArtifactAccount(t, env)
	oc := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(other.secret))
	require.Empty(t, appAutomations(t, oc, slug))
	require.Equal(t, http.StatusNotFound, oc.GetAutomation(ctx, a.ID).StatusCode)
	require.Equal(t, http.StatusNotFound, oc.TriggerAutomation(ctx, a.ID).StatusCode)

	putManifest(t, c, slug, `{"script":"main","cron":"0 * * * *","enabled":false}`)
	paused := appAutomations(t, c, slug)
	require.Len(t, paused, 1)
	require.Equal(t, a.ID, paused[0].ID)
	require.Equal(t, client.AutomationPaused, paused[0].Status, "a disabled entry pauses its schedule")
	putManifest(t, c, slug, `{"script":"main","cron":"30 2 * * *","enabled":true}`)
	resumed := appAutomations(t, c, slug)
	require.Len(t, resumed, 1)
	require.Equal(t, client.AutomationActive, resumed[0].Status)
	require.Equal(t, "30 2 * * *", resumed[0].Cron)

	putManifest(t, c, slug, "")
	require.Empty(t, appAutomations(t, c, slug), "a removed entry's automation is deleted")
	require.Equal(t, http.StatusNotFound, c.GetAutomation(ctx, a.ID).StatusCode)

	putManifest(t, c, slug, entry+`,{"script":"main","cron":"0 0 * * *","enabled":false}`)
	require.Len(t, appAutomations(t, c, slug), 2)
	require.True(t, c.DeleteApp(ctx, slug).OK)
	require.Empty(t, appAutomations(t, c, slug), "deleting the app deletes its automations")

	direct := c.CreateAutomation(ctx, client.CreateAutomationRequest{Name: "x", Cron: "@hourly", Action: client.AutomationAction{
		ServiceID: client.ServiceManagedAgents, OperationID: client.OpAppsScriptsRun, Input: map[string]any{"app": slug, "script": "main"}}})
	require.Equal(t, http.StatusBadRequest, direct.StatusCode, "only a manifest makes app script automations")
}

// TestAppScheduleTierLimit: an app whose schedule needs more automations than the tier keeps active
// (standard: 5) is refused 429 naming automations.active, and nothing is kept: no app, no automation.
func TestAppScheduleTierLimit(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(owner.secret))
	entries := `{"script":"main","cron":"0 * * * *","enabled":true}`
	for range 5 {
		entries += `,{"script":"main","cron":"0 * * * *","enabled":false}`
	}
	resp := createJSONApp(t, env, owner.secret, "too-many", scheduledApp("crowded", entries))
	require.Equal(t, http.StatusTooManyRequests, resp.Status, "%s", resp.Raw)
	require.Contains(t, string(resp.Raw), "automations.active")
	require.Equal(t, http.StatusNotFound, c.GetApp(context.Background(), "crowded").StatusCode)
	require.Empty(t, appAutomations(t, c, "crowded"))
}

// TestAppScheduleFiresObeyTheKeysLimits: the requestsPerMinute limit on apps.scripts.run of the key
// that wrote an app's manifest applies to its scheduled fires (here every second): one run starts in
// the minute, the other fires are skipped with automation.limit_reached naming key_limit, and the
// automation stays active.
func TestAppScheduleFiresObeyTheKeysLimits(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{AutomationInterval: time.Second})
	owner := newArtifactAccount(t, env)
	child := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: owner.secret,
		Body:    map[string]any{"limits": []map[string]any{{"operation": client.OpAppsScriptsRun, "requestsPerMinute": 1}}},
		Headers: map[string]string{"Idempotency-Key": "limited-app-key"}})
	require.Equal(t, http.StatusCreated, child.Status, "%s", child.Raw)
	secret := child.Body["apiKey"].(map[string]any)["secret"].(string)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(secret))
	ctx := context.Background()
	const slug = "limited-ticker"
	created := createJSONApp(t, env, secret, "create-limited", scheduledApp(slug, `{"script":"main","cron":"0 * * * *","enabled":true}`))
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	autos := appAutomations(t, c, slug)
	require.Len(t, autos, 1)
	id := autos[0].ID

	require.Eventually(t, func() bool {
		return c.GetAutomation(ctx, id).Body.Automation.Counts.RunsSkipped >= 2
	}, 30*time.Second, 100*time.Millisecond, "later fires are refused by the key's limit")
	require.Equal(t, client.AutomationActive, c.GetAutomation(ctx, id).Body.Automation.Status, "a spent key limit never pauses")
	require.Zero(t, countEvents(t, env, owner.accountID, outbox.AutomationPaused))
	putManifest(t, c, slug, `{"script":"main","cron":"0 * * * *","enabled":false}`)
	got := c.GetAutomation(ctx, id).Body.Automation
	require.EqualValues(t, 1, got.Counts.RunsStarted, "one run in the minute")
	runs := c.ListAppScriptRuns(ctx, slug, client.ListParams{})
	require.True(t, runs.OK, "%v", runs.Error)
	require.Len(t, runs.Body.Runs, 1)
	require.Equal(t, "schedule", runs.Body.Runs[0].Trigger)

	events, err := outbox.List(ctx, env.DB, owner.accountID)
	require.NoError(t, err)
	limited := 0
	for _, e := range events {
		if e.Type == outbox.AutomationLimitReached {
			var data struct{ Limit, Message string }
			require.NoError(t, json.Unmarshal(e.Data, &data))
			require.Equal(t, "key_limit", data.Limit)
			require.Contains(t, data.Message, client.OpAppsScriptsRun)
			limited++
		}
	}
	require.GreaterOrEqual(t, limited, 2)
}

// blockingServer is a local HTTP server whose requests each announce themselves on arrived and answer
// "released" only once release is closed (closed at cleanup too).
func blockingServer(t *testing.T) (url string, arrived <-chan struct{}, release func()) {
	t.Helper()
	in := make(chan struct{}, 8)
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in <- struct{}{}
		select {
		case <-gate:
			_, _ = w.Write([]byte("released"))
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(release)
	return srv.URL, in, release
}

// fireSchedule fires the automation's schedule once now under the schedule's own overlap policy.
func fireSchedule(t *testing.T, env *apptest.Env, automationID string) {
	t.Helper()
	h := env.Temporal.ScheduleClient().GetHandle(context.Background(), workflows.AutomationScheduleID(automationID))
	require.NoError(t, h.Trigger(context.Background(), sdkclient.ScheduleTriggerOptions{}))
}

// scheduleInfo describes the automation's schedule.
func scheduleInfo(t *testing.T, env *apptest.Env, automationID string) sdkclient.ScheduleInfo {
	t.Helper()
	d, err := env.Temporal.ScheduleClient().GetHandle(context.Background(), workflows.AutomationScheduleID(automationID)).Describe(context.Background())
	require.NoError(t, err)
	return d.Info
}

// TestAppScheduleOverlapSeesTheScript: an app's scheduled fire lasts as long as its script run (here
// awaiting a slow http.fetch that a local server holds until released), so the automation's overlap
// policy (skip) skips a fire that comes while the script is going, and no second run is recorded; once
// the script ends, the fire ends and the next fire starts a run.
func TestAppScheduleOverlapSeesTheScript(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(owner.secret))
	ctx := context.Background()
	url, arrived, release := blockingServer(t)
	const slug = "slow-ticker"
	files := map[string]string{
		"manifest.json":   `{"slug":"` + slug + `","permissions":["fetch:http"],"scripts":["main"],"schedule":[{"script":"main","cron":"0 * * * *","enabled":true}]}`,
		"index.html":      "<!doctype html><p>slow</p>",
		"scripts/main.ts": `const r = await http.fetch("` + url + `/slow"); return r.body;`,
	}
	created := createJSONApp(t, env, owner.secret, "create-slow", files)
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	autos := appAutomations(t, c, slug)
	require.Len(t, autos, 1)
	id := autos[0].ID
	require.Equal(t, client.OverlapSkip, autos[0].Overlap)

	fireSchedule(t, env, id)
	firstFire := time.Now().Unix()
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the scheduled script never fetched")
	}
	info := scheduleInfo(t, env, id)
	require.Len(t, info.RecentActions, 1)
	fireWorkflow := info.RecentActions[0].StartWorkflowResult.WorkflowID
	require.False(t, workflowClosed(env, fireWorkflow), "the fire lasts while its script runs")

	fireSchedule(t, env, id)
	require.Eventually(t, func() bool { return scheduleInfo(t, env, id).NumActionsSkippedOverlap == 1 },
		30*time.Second, 50*time.Millisecond, "the second fire is skipped by the overlap policy")
	runs := c.ListAppScriptRuns(ctx, slug, client.ListParams{})
	require.True(t, runs.OK, "%v", runs.Error)
	require.Len(t, runs.Body.Runs, 1, "the skipped fire recorded no run")
	require.Equal(t, client.AppRunRunning, runs.Body.Runs[0].Status)

	release()
	require.Eventually(t, func() bool { return workflowClosed(env, fireWorkflow) }, 30*time.Second, 50*time.Millisecond)
	first := c.GetAppScriptRun(ctx, slug, runs.Body.Runs[0].ID)
	require.True(t, first.OK, "%v", first.Error)
	require.Equal(t, client.AppRunSucceeded, first.Body.Run.Status, "the fire ended with its script")
	require.JSONEq(t, `"released"`, string(first.Body.Run.Result))

	// Temporal names a fire by its second: the next fire must come in a later second than the first.
	require.Eventually(t, func() bool { return time.Now().Unix() > firstFire }, 2*time.Second, 10*time.Millisecond)
	fireSchedule(t, env, id)
	require.Eventually(t, func() bool {
		r := c.ListAppScriptRuns(ctx, slug, client.ListParams{})
		require.True(t, r.OK, "%v", r.Error)
		return len(r.Body.Runs) == 2 && r.Body.Runs[0].Status == client.AppRunSucceeded
	}, 30*time.Second, 50*time.Millisecond, "a fire after the script ended starts a run")
	got := c.GetAutomation(ctx, id).Body.Automation
	require.EqualValues(t, 2, got.Counts.RunsStarted)
}
