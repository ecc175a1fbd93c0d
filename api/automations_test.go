package api_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/outbox"
)

// echoAutomation is a create request of an automation of the built-in echo operation.
func echoAutomation(name string) client.CreateAutomationRequest {
	return client.CreateAutomationRequest{Name: name, Cron: "@hourly",
		Action: client.AutomationAction{ServiceID: "managed-workflows", OperationID: "echo", Input: map[string]any{"n": 1}}}
}

// automationRuns lists the runs an automation started.
func automationRuns(t *testing.T, c *client.Client, id string) []client.Run {
	t.Helper()
	r := c.ListRuns(context.Background(), client.ListRunsParams{AutomationID: id})
	require.True(t, r.OK, "%v", r.Error)
	return r.Body.Runs
}

// countEvents counts the account's events of type typ.
func countEvents(t *testing.T, env *apptest.Env, accountID, typ string) int {
	t.Helper()
	events, err := outbox.List(context.Background(), env.DB, accountID)
	require.NoError(t, err)
	n := 0
	for _, e := range events {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// TestAutomationFiresPausesResumes: an automation's schedule (here firing every second) starts runs
// that succeed, each carrying automationId and an id derived from its fire; pause stops the fires and
// resume restarts them; trigger fires once now; cancel stops it for good; delete removes it.
func TestAutomationFiresPausesResumes(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{AutomationInterval: time.Second})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()

	created := c.CreateAutomation(ctx, echoAutomation("every second"))
	require.True(t, created.OK, "%v", created.Error)
	require.Equal(t, http.StatusCreated, created.StatusCode)
	a := created.Body.Automation
	require.Equal(t, client.AutomationActive, a.Status)
	require.Equal(t, "automation/"+a.ID, a.ScheduleID)
	require.Equal(t, "UTC", a.Timezone)
	require.Equal(t, client.OverlapSkip, a.Overlap)
	require.Len(t, a.NextFireTimes, 5, "the next five fire times, from the schedule")
	require.EqualValues(t, 100, a.Limits.Executions)

	var runs []client.Run
	require.Eventually(t, func() bool {
		runs = automationRuns(t, c, a.ID)
		return len(runs) >= 2 && runs[len(runs)-1].Status == client.RunSucceeded
	}, 30*time.Second, 50*time.Millisecond)
	for _, r := range runs {
		require.Equal(t, a.ID, *r.AutomationID)
		require.Equal(t, map[string]any{"n": float64(1)}, r.Input)
	}

	paused := c.PauseAutomation(ctx, a.ID, "maintenance")
	require.True(t, paused.OK, "%v", paused.Error)
	require.Equal(t, client.AutomationPaused, paused.Body.Automation.Status)
	require.Equal(t, "maintenance", paused.Body.Automation.Note)
	require.Empty(t, paused.Body.Automation.NextFireTimes)
	settled := len(automationRuns(t, c, a.ID))
	require.Never(t, func() bool { return len(automationRuns(t, c, a.ID)) > settled+1 }, 3*time.Second, 200*time.Millisecond,
		"a paused automation fires no more (one fire may have been on its way)")
	require.Equal(t, 1, countEvents(t, env, tenant.id, outbox.AutomationPaused))
	trig := c.TriggerAutomation(ctx, a.ID)
	require.Equal(t, http.StatusConflict, trig.StatusCode, "a paused automation is resumed before it is triggered")

	resumed := c.ResumeAutomation(ctx, a.ID, "")
	require.True(t, resumed.OK, "%v", resumed.Error)
	require.Equal(t, client.AutomationActive, resumed.Body.Automation.Status)
	before := len(automationRuns(t, c, a.ID))
	require.Eventually(t, func() bool { return len(automationRuns(t, c, a.ID)) > before }, 30*time.Second, 50*time.Millisecond)

	got := c.GetAutomation(ctx, a.ID)
	require.True(t, got.OK, "%v", got.Error)
	require.Positive(t, got.Body.Automation.Counts.RunsStarted)
	require.NotEmpty(t, got.Body.Automation.RecentRuns)
	require.NotNil(t, got.Body.Automation.LastFireAt)
	recent := got.Body.Automation.RecentRuns[0]
	require.Equal(t, automation.RunID(a.ID, recent.ScheduledAt), recent.RunID, "a run's id derives from its fire")

	cancelled := c.CancelAutomation(ctx, a.ID)
	require.True(t, cancelled.OK, "%v", cancelled.Error)
	require.Equal(t, client.AutomationCancelled, cancelled.Body.Automation.Status)
	settled = len(automationRuns(t, c, a.ID))
	require.Never(t, func() bool { return len(automationRuns(t, c, a.ID)) > settled+1 }, 3*time.Second, 200*time.Millisecond)
	require.Equal(t, http.StatusConflict, c.ResumeAutomation(ctx, a.ID, "").StatusCode)

	require.True(t, c.DeleteAutomation(ctx, a.ID).OK)
	require.Equal(t, http.StatusNotFound, c.GetAutomation(ctx, a.ID).StatusCode)
	list := c.ListAutomations(ctx, client.ListAutomationsParams{})
	require.True(t, list.OK)
	require.Empty(t, list.Body.Automations)
	require.Equal(t, http.StatusNotFound, c.GetAutomation(ctx, "auto_nope").StatusCode)
}

// TestAutomationBadInput: a bad cron, a day-of-month with a day-of-week, a bad timezone and an unknown
// service each get 400 naming the field; a key without access to the service gets 403.
func TestAutomationBadInput(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	for _, tc := range []struct {
		mutate func(*client.CreateAutomationRequest)
		param  string
	}{
		{func(r *client.CreateAutomationRequest) { r.Cron = "61 * * * *" }, "cron"},
		{func(r *client.CreateAutomationRequest) { r.Cron = "* * * *" }, "cron"},
		{func(r *client.CreateAutomationRequest) { r.Cron = "0 0 1 * MON" }, "cron"},
		{func(r *client.CreateAutomationRequest) { r.Cron = "@every 5m" }, "cron"},
		{func(r *client.CreateAutomationRequest) { r.Cron = "*/5 * * * * *" }, "cron"},
		{func(r *client.CreateAutomationRequest) { r.Timezone = "Mars/Olympus" }, "timezone"},
		{func(r *client.CreateAutomationRequest) { r.Action.ServiceID = "nope" }, "action.serviceId"},
		{func(r *client.CreateAutomationRequest) { r.Action.OperationID = "nope" }, "action.operationId"},
	} {
		req := echoAutomation("bad")
		tc.mutate(&req)
		r := c.CreateAutomation(ctx, req)
		require.Equal(t, http.StatusBadRequest, r.StatusCode, "%s", r.Raw)
		require.Equal(t, tc.param, r.Error.Param, "%s", r.Raw)
	}
	good := echoAutomation("tz")
	good.Timezone, good.Cron = "Europe/Paris", "30 9 * * 1-5"
	r := c.CreateAutomation(ctx, good)
	require.True(t, r.OK, "%v", r.Error)
	for _, at := range r.Body.Automation.NextFireTimes {
		paris, err := time.LoadLocation("Europe/Paris")
		require.NoError(t, err)
		local := at.In(paris)
		require.Equal(t, 9, local.Hour())
		require.Equal(t, 30, local.Minute())
		require.NotContains(t, []time.Weekday{time.Saturday, time.Sunday}, local.Weekday())
	}
	// The create's times come from the spec by the scheduler's code; a GET reads the schedule itself
	// (Describe): they are the same times.
	require.Len(t, r.Body.Automation.NextFireTimes, 5)
	read := c.GetAutomation(ctx, r.Body.Automation.ID)
	require.True(t, read.OK, "%v", read.Error)
	require.Equal(t, r.Body.Automation.NextFireTimes, read.Body.Automation.NextFireTimes)

	limited := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: tenant.key,
		Body: map[string]any{"services": []string{"svc-database"}}, Headers: map[string]string{"Idempotency-Key": "narrow"}})
	require.Equal(t, http.StatusCreated, limited.Status, "%s", limited.Raw)
	narrow := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(limited.Body["apiKey"].(map[string]any)["secret"].(string)))
	denied := narrow.CreateAutomation(ctx, echoAutomation("denied"))
	require.Equal(t, http.StatusForbidden, denied.StatusCode, "%s", denied.Raw)
}

// TestAutomationTierLimit: 20 concurrent creates on the standard tier make exactly 5 automations; the
// others get 429 naming the limit; Club allows 20.
func TestAutomationTierLimit(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	statuses := make(chan client.Response[client.AutomationEnvelope], 20)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- c.CreateAutomation(ctx, echoAutomation("many"))
		}()
	}
	wg.Wait()
	close(statuses)
	created, limited := 0, 0
	for r := range statuses {
		switch r.StatusCode {
		case http.StatusCreated:
			created++
		case http.StatusTooManyRequests:
			limited++
			require.Equal(t, client.CodeLimitExceeded, r.Error.Code)
			require.Contains(t, r.Error.Message, "5 active automations")
		default:
			t.Fatalf("unexpected %d: %s", r.StatusCode, r.Raw)
		}
	}
	require.Equal(t, 5, created)
	require.Equal(t, 15, limited)

	_, err := env.DB.ExecContext(ctx, "UPDATE accounts SET tier = 'club' WHERE id = ?", tenant.id)
	require.NoError(t, err)
	r := c.CreateAutomation(ctx, echoAutomation("club"))
	require.True(t, r.OK, "%v", r.Error)
	require.EqualValues(t, 1000, r.Body.Automation.Limits.Executions)
	require.EqualValues(t, 100, r.Body.Automation.Limits.RunsPerDay)
}

// TestAutomationFireLimits: a fire past the day's runs starts no run and records
// automation.limit_reached; the fire that uses the last lifetime execution starts its run and pauses
// the automation (and its schedule).
func TestAutomationFireLimits(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	created := c.CreateAutomation(ctx, echoAutomation("limited"))
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Automation.ID

	_, err := env.DB.ExecContext(ctx, "UPDATE automations SET day = (now() AT TIME ZONE 'UTC')::date, day_runs = 24 WHERE id = ?", id)
	require.NoError(t, err)
	require.True(t, c.TriggerAutomation(ctx, id).OK)
	firstTrigger := time.Now().Unix() // the fire's second is at most this one
	require.Eventually(t, func() bool { return countEvents(t, env, tenant.id, outbox.AutomationLimitReached) == 1 },
		30*time.Second, 50*time.Millisecond)
	require.Empty(t, automationRuns(t, c, id), "the day's runs were used up")
	got := c.GetAutomation(ctx, id).Body.Automation
	require.EqualValues(t, 1, got.Counts.RunsSkipped)
	require.Equal(t, client.AutomationActive, got.Status)

	_, err = env.DB.ExecContext(ctx, "UPDATE automations SET day_runs = 0, executions = 99 WHERE id = ?", id)
	require.NoError(t, err)
	// Temporal names a fire by its second: a trigger in the first one's second would be the same fire.
	// Waiting for the clock to pass it is the point here.
	require.Eventually(t, func() bool { return time.Now().Unix() > firstTrigger }, 2*time.Second, 10*time.Millisecond)
	require.True(t, c.TriggerAutomation(ctx, id).OK)
	require.Eventually(t, func() bool {
		runs := automationRuns(t, c, id)
		return len(runs) == 1 && runs[0].Status == client.RunSucceeded
	}, 30*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		return c.GetAutomation(ctx, id).Body.Automation.Status == client.AutomationPaused
	}, 30*time.Second, 50*time.Millisecond)
	got = c.GetAutomation(ctx, id).Body.Automation
	require.EqualValues(t, 100, got.Counts.RunsStarted)
	require.Contains(t, got.Note, "100 runs")
	require.Equal(t, 2, countEvents(t, env, tenant.id, outbox.AutomationLimitReached))
	require.Equal(t, 1, countEvents(t, env, tenant.id, outbox.AutomationRunStarted))
	require.Equal(t, 1, countEvents(t, env, tenant.id, outbox.AutomationPaused))
}

// TestAutomationListsAndSeed002Paths: list entries carry next fire times and counts; seed 002's
// /user/automation paths (with X-API-Key) list active and paused automations, pause, resume, cancel and
// delete them.
func TestAutomationListsAndSeed002Paths(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	a := c.CreateAutomation(ctx, echoAutomation("listed")).Body.Automation
	b := c.CreateAutomation(ctx, echoAutomation("cancelled")).Body.Automation
	require.True(t, c.CancelAutomation(ctx, b.ID).OK)

	list := c.ListAutomations(ctx, client.ListAutomationsParams{})
	require.True(t, list.OK, "%v", list.Error)
	require.Len(t, list.Body.Automations, 2)
	require.Equal(t, b.ID, list.Body.Automations[0].ID)
	require.Empty(t, list.Body.Automations[0].NextFireTimes)
	require.Len(t, list.Body.Automations[1].NextFireTimes, 5)
	only := c.ListAutomations(ctx, client.ListAutomationsParams{Status: client.AutomationCancelled})
	require.Len(t, only.Body.Automations, 1)

	user := func(method, path string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: method, Path: path, Headers: map[string]string{"X-API-Key": tenant.key,
			"Idempotency-Key": client.NewIdempotencyKey()}})
	}
	live := user(http.MethodGet, "/user/automation")
	require.Equal(t, http.StatusOK, live.Status, "%s", live.Raw)
	require.Len(t, live.Body["automations"], 1, "only active and paused ones")
	require.Equal(t, "paused", user(http.MethodPost, "/user/automation/"+a.ID+"/pause").Body["automation"].(map[string]any)["status"])
	require.Equal(t, "active", user(http.MethodPost, "/user/automation/"+a.ID+"/resume").Body["automation"].(map[string]any)["status"])
	require.Equal(t, "cancelled", user(http.MethodPost, "/user/automation/"+a.ID+"/cancel").Body["automation"].(map[string]any)["status"])
	require.Equal(t, http.StatusOK, user(http.MethodDelete, "/user/automation/"+a.ID).Status)
	require.Equal(t, http.StatusNotFound, user(http.MethodPost, "/user/automation/"+a.ID+"/pause").Status)
	require.Empty(t, user(http.MethodGet, "/user/automation").Body["automations"])
}

// TestAutomationFiresObeyTheKeysLimits: the runs.create limit of the key that created an automation
// applies to its fires: a key allowed one run a minute starts one, and the other fires are skipped
// with automation.limit_reached.
func TestAutomationFiresObeyTheKeysLimits(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{AutomationInterval: time.Second})
	tenant := newDatabaseAccount(t, env)
	child := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: tenant.key,
		Body:    map[string]any{"limits": []map[string]any{{"operation": "runs.create", "requestsPerMinute": 1}}},
		Headers: map[string]string{"Idempotency-Key": "limited"}})
	require.Equal(t, http.StatusCreated, child.Status, "%s", child.Raw)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(child.Body["apiKey"].(map[string]any)["secret"].(string)))
	ctx := context.Background()
	created := c.CreateAutomation(ctx, echoAutomation("limited by its key"))
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Automation.ID
	require.Eventually(t, func() bool {
		return c.GetAutomation(ctx, id).Body.Automation.Counts.RunsSkipped >= 2
	}, 30*time.Second, 100*time.Millisecond, "later fires are refused by the key's limit")
	require.True(t, c.CancelAutomation(ctx, id).OK)
	got := c.GetAutomation(ctx, id).Body.Automation
	require.EqualValues(t, 1, got.Counts.RunsStarted, "one run in the minute")
	require.Len(t, automationRuns(t, c, id), 1)
	require.GreaterOrEqual(t, countEvents(t, env, tenant.id, outbox.AutomationLimitReached), 2)
}
