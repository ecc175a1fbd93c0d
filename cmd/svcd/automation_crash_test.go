package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// TestWorkerKilledMidFireStartsTheRunOnce triggers an automation whose run sleeps for a few seconds,
// kills the svcd worker (SIGKILL) once the fire has recorded its run and the run is going (the fire
// workflow waiting for its child), starts another, and checks that the fire started its run once: one
// run, with the id derived from the fire, that succeeds; one run.created and one automation.run_started
// event for it; one execution counted; and the fire workflow completes.
func TestWorkerKilledMidFireStartsTheRunOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true, NoDatabases: true})
	accountID, key := accountKey(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))

	first := startAutomationWorker(t, svcd, env)
	// The cron fires once a year: the only fire of this test is the trigger's.
	created := c.CreateAutomation(ctx, client.CreateAutomationRequest{Name: "slow", Cron: "0 0 1 1 *",
		Action: client.AutomationAction{ServiceID: "managed-workflows", OperationID: "sleep", Input: map[string]any{"seconds": 4}}})
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Automation.ID
	trig := c.TriggerAutomation(ctx, id)
	require.True(t, trig.OK, "%v", trig.Error)

	require.Eventually(t, func() bool {
		runs := automationRunRows(t, env, id)
		return len(runs) == 1 && runs[0].Status == client.RunRunning
	}, 30*time.Second, 10*time.Millisecond, "the fire never started its run; worker log:\n%s", first.log.String())
	first.kill(t)
	killed := automationRunRows(t, env, id)
	require.Len(t, killed, 1)
	require.Equal(t, client.RunRunning, killed[0].Status, "killed while the run was going")
	runID := killed[0].ID
	require.NotNil(t, killed[0].ScheduledAt)
	require.Equal(t, automation.RunID(id, *killed[0].ScheduledAt), runID, "the run's id derives from its fire")

	second := startAutomationWorker(t, svcd, env)
	require.Eventually(t, func() bool {
		r := c.GetRun(ctx, runID)
		require.True(t, r.OK, "%v", r.Error)
		return r.Body.Run.Finished()
	}, 45*time.Second, 50*time.Millisecond, "the run never finished; second worker log:\n%s", second.log.String())
	run := c.GetRun(ctx, runID).Body.Run
	require.Equal(t, client.RunSucceeded, run.Status, "%+v", run.Error)
	require.Equal(t, map[string]any{"sleptSeconds": float64(4)}, run.Output)

	runs := automationRunRows(t, env, id)
	require.Len(t, runs, 1, "one run for the fire")
	require.Equal(t, runID, runs[0].ID)
	require.Equal(t, 1, runEvents(t, env, accountID, outbox.RunCreated)[runID], "one run.created")
	require.Equal(t, 1, runEvents(t, env, accountID, outbox.AutomationRunStarted)[runID], "one automation.run_started")
	require.Len(t, runEvents(t, env, accountID, outbox.AutomationRunStarted), 1, "no automation.run_started of another run")
	got := c.GetAutomation(ctx, id)
	require.True(t, got.OK, "%v", got.Error)
	require.EqualValues(t, 1, got.Body.Automation.Counts.RunsStarted, "one execution counted")
	require.EqualValues(t, 0, got.Body.Automation.Counts.RunsSkipped)

	// The fire workflow itself completes on the second worker, without starting anything more.
	d, err := env.Temporal.ScheduleClient().GetHandle(ctx, workflows.AutomationScheduleID(id)).Describe(ctx)
	require.NoError(t, err)
	require.Len(t, d.Info.RecentActions, 1, "one fire")
	fire := d.Info.RecentActions[0].StartWorkflowResult
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, env.Temporal.GetWorkflow(wctx, fire.WorkflowID, fire.FirstExecutionRunID).Get(wctx, nil),
		"the fire workflow completes; second worker log:\n%s", second.log.String())
	require.Len(t, automationRunRows(t, env, id), 1, "still one run")
}

// startAutomationWorker starts `svcd worker` with only what automations' fires and their runs need.
func startAutomationWorker(t *testing.T, svcd string, env *apptest.Env) *svcdProcess {
	t.Helper()
	return startWorker(t, svcd, env, "", t.TempDir())
}

// automationRunRows reads the runs an automation started, in the order of their fires.
func automationRunRows(t *testing.T, env *apptest.Env, automationID string) []schema.Run {
	t.Helper()
	var runs []schema.Run
	require.NoError(t, env.DB.NewSelect().Model(&runs).Where("automation_id = ?", automationID).
		OrderExpr("scheduled_at, id").Scan(context.Background()))
	return runs
}

// runEvents counts the account's events of type typ by the run they carry (run.created carries the run,
// automation.run_started carries it as "run").
func runEvents(t *testing.T, env *apptest.Env, accountID, typ string) map[string]int {
	t.Helper()
	events, err := outbox.List(context.Background(), env.DB, accountID)
	require.NoError(t, err)
	out := map[string]int{}
	for _, e := range events {
		if e.Type != typ {
			continue
		}
		var data struct {
			ID  string `json:"id"`
			Run struct {
				ID string `json:"id"`
			} `json:"run"`
		}
		require.NoError(t, json.Unmarshal(e.Data, &data))
		if data.Run.ID != "" {
			data.ID = data.Run.ID
		}
		require.NotEmpty(t, data.ID, "%s", e.Data)
		out[data.ID]++
	}
	return out
}

// TestRestartKeepsSchedulesAndNeverDoublesAFire runs an automation firing every second through worker
// processes: a first worker fires it a few times and is killed (SIGKILL); while no worker runs, the
// schedule keeps coming due (the fire it started waits, the next ones are skipped under the skip
// policy); a second worker takes the waiting fire and the next ones; then a third runs beside the
// second. Every run belongs to one fire: its id derives from its scheduled time, no two runs share a
// scheduled time, each was recorded and announced once, and each succeeded; the schedule survived.
func TestRestartKeepsSchedulesAndNeverDoublesAFire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true, NoDatabases: true, AutomationInterval: time.Second})
	accountID, key := accountKey(t, env)
	// Club's 100 runs a day leave room for every fire of the test (standard allows 24).
	_, err := env.DB.ExecContext(ctx, "UPDATE accounts SET tier = ? WHERE id = ?", schema.TierClub, accountID)
	require.NoError(t, err)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))

	first := startAutomationWorker(t, svcd, env)
	created := c.CreateAutomation(ctx, client.CreateAutomationRequest{Name: "every second", Cron: "@hourly",
		Action: client.AutomationAction{ServiceID: "managed-workflows", OperationID: "echo", Input: map[string]any{"n": 1}}})
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Automation.ID
	schedule := env.Temporal.ScheduleClient().GetHandle(ctx, workflows.AutomationScheduleID(id))

	waitSucceededRuns(t, env, id, 3, first)
	// Kill between fires: every fire so far has finished, and the next one is at least 300 ms away.
	// (Workers killed inside a fire are the tests above; here the restart is the point. A fire the
	// schedule starts late, in the instant before the kill, is handled below like any other.)
	require.Eventually(t, func() bool {
		now := time.Now()
		return now.Sub(now.Truncate(time.Second)) < 700*time.Millisecond && firesClosed(t, env, schedule, nil)
	}, 30*time.Second, 20*time.Millisecond, "a fire was always in flight; worker log:\n%s", first.log.String())
	first.kill(t)
	before := automationRunRows(t, env, id)
	d, err := schedule.Describe(ctx)
	require.NoError(t, err)
	skipped := d.Info.NumActionsSkippedOverlap

	// No worker: the schedule still comes due. Waiting for time to pass is the point here: the fire that
	// comes due first waits for a worker, and the two after it are skipped for overlapping it.
	var waiting time.Time // the scheduled time of the fire that waits for a worker
	require.Eventually(t, func() bool {
		d, err := schedule.Describe(ctx)
		require.NoError(t, err)
		if d.Info.NumActionsSkippedOverlap < skipped+2 {
			return false
		}
		var open []time.Time
		for _, a := range d.Info.RecentActions {
			if fireRunning(t, env, a) {
				open = append(open, a.ScheduleTime)
			}
		}
		if len(open) != 1 {
			return false
		}
		waiting = open[0]
		return true
	}, 15*time.Second, 50*time.Millisecond, "while no worker ran, the schedule did not leave one fire waiting and skip the next")
	require.Len(t, automationRunRows(t, env, id), len(before), "no run starts while no worker runs")

	second := startAutomationWorker(t, svcd, env)
	afterRestart := waitSucceededRuns(t, env, id, len(before)+3, second)
	waited := 0
	for _, r := range afterRestart {
		if r.ScheduledAt.Equal(waiting) {
			waited++
			require.Equal(t, automation.RunID(id, waiting), r.ID)
		}
	}
	require.Equal(t, 1, waited, "the fire that came due while no worker ran started its run once the next worker came")
	d, err = schedule.Describe(ctx)
	require.NoError(t, err, "the schedule survived the restart")
	require.False(t, d.Schedule.State.Paused)
	require.NotEmpty(t, d.Info.NextActionTimes)

	// Two workers at once share the fires without doubling any.
	third := startAutomationWorker(t, svcd, env)
	waitSucceededRuns(t, env, id, len(afterRestart)+4, third)

	paused := c.PauseAutomation(ctx, id, "end of test")
	require.True(t, paused.OK, "%v", paused.Error)
	var runs []schema.Run
	require.Eventually(t, func() bool {
		if !firesClosed(t, env, schedule, nil) {
			return false
		}
		runs = automationRunRows(t, env, id)
		for _, r := range runs {
			if r.Status != client.RunSucceeded {
				return false
			}
		}
		return true
	}, 30*time.Second, 50*time.Millisecond, "the last fires never finished (or one failed: %+v); worker logs:\n%s\n%s",
		runs, second.log.String(), third.log.String())

	created1 := runEvents(t, env, accountID, outbox.RunCreated)
	started := runEvents(t, env, accountID, outbox.AutomationRunStarted)
	seen := map[time.Time]string{}
	for _, r := range runs {
		require.NotNil(t, r.ScheduledAt, r.ID)
		at := r.ScheduledAt.UTC()
		require.Equal(t, automation.RunID(id, at), r.ID, "run %s derives from its fire", r.ID)
		require.Equal(t, at.Truncate(time.Second), at, "run %s belongs to a fire of the schedule (every whole second)", r.ID)
		require.NotContains(t, seen, at, "runs %s and %s share a fire", seen[at], r.ID)
		seen[at] = r.ID
		require.Equal(t, 1, created1[r.ID], "one run.created for %s", r.ID)
		require.Equal(t, 1, started[r.ID], "one automation.run_started for %s", r.ID)
	}
	require.Len(t, created1, len(runs), "no run.created for a run not recorded")
	require.Len(t, started, len(runs), "no automation.run_started for a run not recorded")
	got := c.GetAutomation(ctx, id)
	require.True(t, got.OK, "%v", got.Error)
	require.EqualValues(t, len(runs), got.Body.Automation.Counts.RunsStarted, "one execution counted per run")
	require.EqualValues(t, 0, got.Body.Automation.Counts.RunsSkipped)
	d, err = schedule.Describe(ctx)
	require.NoError(t, err, "the schedule is still there")
	require.True(t, d.Schedule.State.Paused)
	require.Equal(t, []sdkclient.ScheduleIntervalSpec{{Every: time.Second}}, d.Schedule.Spec.Intervals)
}

// firesClosed says whether the schedule's recent fires (of time at, when not nil) have ended: their
// workflows are closed. (The schedule's own list of running fires lags behind.)
func firesClosed(t *testing.T, env *apptest.Env, schedule sdkclient.ScheduleHandle, at *time.Time) bool {
	t.Helper()
	d, err := schedule.Describe(context.Background())
	require.NoError(t, err)
	found := false
	for _, a := range d.Info.RecentActions {
		if at != nil && !a.ScheduleTime.Equal(*at) {
			continue
		}
		found = true
		if fireRunning(t, env, a) {
			return false
		}
	}
	return found
}

// fireRunning says whether a fire's workflow is still running.
func fireRunning(t *testing.T, env *apptest.Env, a sdkclient.ScheduleActionResult) bool {
	t.Helper()
	w, err := env.Temporal.DescribeWorkflowExecution(context.Background(), a.StartWorkflowResult.WorkflowID,
		a.StartWorkflowResult.FirstExecutionRunID)
	require.NoError(t, err)
	return w.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// waitSucceededRuns waits until the automation has started at least n runs that all succeeded, and
// answers them.
func waitSucceededRuns(t *testing.T, env *apptest.Env, automationID string, n int, w *svcdProcess) []schema.Run {
	t.Helper()
	var runs []schema.Run
	require.Eventually(t, func() bool {
		runs = automationRunRows(t, env, automationID)
		done := 0
		for _, r := range runs {
			if r.Status == client.RunSucceeded {
				done++
			}
		}
		return done >= n && done == len(runs)
	}, 30*time.Second, 50*time.Millisecond, "fewer than %d runs succeeded (%+v); worker log:\n%s", n, runs, w.log.String())
	return runs
}

// TestWorkerKilledMidPrepareStartsTheRunOnce kills the svcd worker (SIGKILL) while it decides a fire:
// the test holds the automation's row lock, so the worker's PrepareAutomationFire waits inside its
// transaction, and is killed there. Nothing of the fire is recorded; another worker retries the fire
// promptly (the killed attempt times out in seconds, not after the next fires were skipped) and starts
// its run once.
func TestWorkerKilledMidPrepareStartsTheRunOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true, NoDatabases: true})
	accountID, key := accountKey(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))

	first := startAutomationWorker(t, svcd, env)
	// The cron fires once a year: the only fire of this test is the trigger's.
	created := c.CreateAutomation(ctx, client.CreateAutomationRequest{Name: "locked", Cron: "0 0 1 1 *",
		Action: client.AutomationAction{ServiceID: "managed-workflows", OperationID: "echo", Input: map[string]any{"n": 1}}})
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Automation.ID

	lock, err := env.DB.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = lock.Rollback() }()
	_, err = lock.ExecContext(ctx, "SELECT 1 FROM automations WHERE id = ? FOR UPDATE", id)
	require.NoError(t, err)
	trig := c.TriggerAutomation(ctx, id)
	require.True(t, trig.OK, "%v", trig.Error)
	waiting := func() int {
		var n int
		require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?",
			"%automations%"+id+"%FOR UPDATE%").Scan(ctx, &n))
		return n
	}
	require.Eventually(t, func() bool { return waiting() == 1 }, 30*time.Second, 10*time.Millisecond,
		"the fire never waited for the automation's lock; worker log:\n%s", first.log.String())
	first.kill(t)
	require.NoError(t, lock.Rollback())
	// The killed worker's transaction dies with its connection once it gets the lock.
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state <> 'idle' AND query LIKE ?",
			"%automations%"+id+"%FOR UPDATE%").Scan(ctx, &n))
		return n == 0
	}, 30*time.Second, 10*time.Millisecond, "the killed worker's transaction never ended")
	require.Empty(t, automationRunRows(t, env, id), "killed before the fire was recorded")

	restartedAt := time.Now()
	second := startAutomationWorker(t, svcd, env)
	runs := waitSucceededRuns(t, env, id, 1, second)
	require.Less(t, time.Since(restartedAt), 20*time.Second, "the killed attempt was retried promptly")
	require.Len(t, runs, 1, "one run for the fire")
	runID := runs[0].ID
	require.Equal(t, automation.RunID(id, *runs[0].ScheduledAt), runID, "the run's id derives from its fire")
	require.Equal(t, map[string]int{runID: 1}, runEvents(t, env, accountID, outbox.RunCreated), "one run.created")
	require.Equal(t, map[string]int{runID: 1}, runEvents(t, env, accountID, outbox.AutomationRunStarted), "one automation.run_started")
	got := c.GetAutomation(ctx, id)
	require.True(t, got.OK, "%v", got.Error)
	require.EqualValues(t, 1, got.Body.Automation.Counts.RunsStarted, "one execution counted")
	require.EqualValues(t, 0, got.Body.Automation.Counts.RunsSkipped)
}

// TestFireRetriedAfterItsRunWasRecordedStartsItOnce is the fire of a worker killed after
// PrepareAutomationFire committed but before Temporal heard of it: the test records that fire's run
// itself (as the killed attempt did) while no worker runs, then starts a worker, whose attempt at the
// same fire answers the run recorded and starts it. The fire has one run, recorded and announced once,
// counted once, and it succeeds.
func TestFireRetriedAfterItsRunWasRecordedStartsItOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true, NoDatabases: true, AutomationInterval: time.Second})
	accountID, key := accountKey(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	created := c.CreateAutomation(ctx, client.CreateAutomationRequest{Name: "recorded", Cron: "@hourly",
		Action: client.AutomationAction{ServiceID: "managed-workflows", OperationID: "echo", Input: map[string]any{"n": 1}}})
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Automation.ID
	schedule := env.Temporal.ScheduleClient().GetHandle(ctx, workflows.AutomationScheduleID(id))

	// No worker runs: the first fire waits for one (the next are skipped for overlapping it).
	var at time.Time
	require.Eventually(t, func() bool {
		d, err := schedule.Describe(ctx)
		require.NoError(t, err)
		if len(d.Info.RecentActions) == 0 {
			return false
		}
		at = d.Info.RecentActions[0].ScheduleTime
		return true
	}, 30*time.Second, 20*time.Millisecond, "the schedule never fired")
	firer := &automation.Firer{Store: automation.NewStore(env.DB), Catalog: catalog.Builtin(), Keys: apikey.NewStore(env.DB)}
	recorded, err := firer.Prepare(ctx, workflows.AutomationFireInput{AutomationID: id, ScheduledAt: at})
	require.NoError(t, err)
	require.Empty(t, recorded.Skipped)
	require.Equal(t, automation.RunID(id, at), recorded.RunID)

	w := startAutomationWorker(t, svcd, env)
	var run client.Run
	require.Eventually(t, func() bool {
		r := c.GetRun(ctx, recorded.RunID)
		require.True(t, r.OK, "%v", r.Error)
		run = r.Body.Run
		return run.Finished()
	}, 30*time.Second, 50*time.Millisecond, "the recorded run never finished; worker log:\n%s", w.log.String())
	require.Equal(t, client.RunSucceeded, run.Status, "%+v", run.Error)
	paused := c.PauseAutomation(ctx, id, "end of test")
	require.True(t, paused.OK, "%v", paused.Error)
	var runs []schema.Run
	require.Eventually(t, func() bool {
		runs = automationRunRows(t, env, id)
		return firesClosed(t, env, schedule, nil)
	}, 30*time.Second, 50*time.Millisecond, "the last fire never finished")

	require.Equal(t, recorded.RunID, runs[0].ID, "the fire's run is the one recorded")
	require.True(t, runs[0].ScheduledAt.Equal(at))
	created1 := runEvents(t, env, accountID, outbox.RunCreated)
	started := runEvents(t, env, accountID, outbox.AutomationRunStarted)
	seen := map[time.Time]bool{}
	for _, r := range runs {
		require.False(t, seen[r.ScheduledAt.UTC()], "two runs for the fire of %s", r.ScheduledAt)
		seen[r.ScheduledAt.UTC()] = true
		require.Equal(t, 1, created1[r.ID], "one run.created for %s", r.ID)
		require.Equal(t, 1, started[r.ID], "one automation.run_started for %s", r.ID)
	}
	require.Len(t, created1, len(runs))
	require.Len(t, started, len(runs))
	got := c.GetAutomation(ctx, id)
	require.True(t, got.OK, "%v", got.Error)
	require.EqualValues(t, len(runs), got.Body.Automation.Counts.RunsStarted, "one execution counted per run")
}

// TestFiresOfOneSecondRecordEachLimit: Temporal gives a schedule's fires their scheduled time to the
// second, so two fires in one second (two triggers, or a trigger and the cron's fire) are prepared for
// the same time; here the first is refused for the day's runs and the second, once the day's count was
// reset, starts the run that uses the last execution. Each limit it met is announced: two
// automation.limit_reached events, not one that stands for both.
func TestFiresOfOneSecondRecordEachLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := apptest.NewWith(t, apptest.Options{NoWorker: true, NoDatabases: true})
	accountID, key := accountKey(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	created := c.CreateAutomation(ctx, client.CreateAutomationRequest{Name: "one second", Cron: "0 0 1 1 *",
		Action: client.AutomationAction{ServiceID: "managed-workflows", OperationID: "echo", Input: map[string]any{"n": 1}}})
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Automation.ID
	firer := &automation.Firer{Store: automation.NewStore(env.DB), Catalog: catalog.Builtin(), Keys: apikey.NewStore(env.DB)}
	at := time.Now().UTC().Truncate(time.Second)

	_, err := env.DB.ExecContext(ctx, "UPDATE automations SET day = ?, day_runs = 24 WHERE id = ?", at.Truncate(24*time.Hour), id)
	require.NoError(t, err)
	refused, err := firer.Prepare(ctx, workflows.AutomationFireInput{AutomationID: id, ScheduledAt: at})
	require.NoError(t, err)
	require.Equal(t, automation.SkipPerDay, refused.Skipped)

	_, err = env.DB.ExecContext(ctx, "UPDATE automations SET day_runs = 0, executions = 99 WHERE id = ?", id)
	require.NoError(t, err)
	last, err := firer.Prepare(ctx, workflows.AutomationFireInput{AutomationID: id, ScheduledAt: at})
	require.NoError(t, err)
	require.Equal(t, automation.RunID(id, at), last.RunID)
	require.True(t, last.Pause)

	events, err := outbox.List(ctx, env.DB, accountID)
	require.NoError(t, err)
	var limits []string
	for _, e := range events {
		if e.Type == outbox.AutomationLimitReached {
			var data struct {
				Limit string `json:"limit"`
			}
			require.NoError(t, json.Unmarshal(e.Data, &data))
			limits = append(limits, data.Limit)
		}
	}
	require.Equal(t, []string{automation.SkipPerDay, automation.SkipExecutions}, limits)
}
