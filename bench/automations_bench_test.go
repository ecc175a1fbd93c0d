package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

const (
	// autoAccounts × autoPerAccount automations are created through the API: the club tier allows 20
	// active automations per account.
	autoAccounts   = 50
	autoPerAccount = 20
	autoTotal      = autoAccounts * autoPerAccount
	// autoClients create concurrently, on both sides.
	autoClients = 32
	// autoRounds alternate the API and the SDK, autoTotal/autoRounds schedules per side each.
	autoRounds = 5
	// autoWarmUp schedules per side are created (and deleted) before the clock starts.
	autoWarmUp = 16
	// autoReaders read GET /v1/automations/{id}, each one request per autoReadEvery.
	autoReaders   = 4
	autoReadEvery = 20 * time.Millisecond
	// autoQuiet is how long the readers are measured before the first fire.
	autoQuiet = 10 * time.Second
	// autoCron is every automation's schedule: every minute.
	autoCron = "* * * * *"
)

// autoTries is how many times a create (the API's, answered 503) or a Describe (the SDK side's, each
// bounded by the SDK's 10-second RPC timeout) is tried.
const autoTries = 3

// errRetry marks an answer the API asks to retry (503).
var errRetry = errors.New("retry")

// benchAccount is one account of the benchmark and its key.
type benchAccount struct {
	id, key string
}

// benchAutomation is an automation made through the API, with its account's key.
type benchAutomation struct {
	id, key string
}

// BenchmarkAutomationsVersusSchedules creates 1,000 automations (cron "* * * * *", an echo run per fire)
// through POST /v1/automations, 20 in each of 50 club-tier accounts, from 32 concurrent clients, and
// the same schedules (spec, action, memo, search attributes, policies) with the Temporal Go SDK's
// ScheduleClient.Create at the same concurrency, in alternating rounds; a third side, for reference,
// creates them with the SDK and describes each at once, as the API's answer (the schedule's next fire
// times) requires. It then lists them all through GET /v1/automations (pages of 10), and reads
// GET /v1/automations/{id} from four paced clients (and GET /v1/runs/{id} of a finished run, which asks
// Temporal nothing, from two), first quiet, then for a minute from the first fire of all 1,000
// schedules. Every schedule starts at the same minute boundary some minutes ahead, so no fire runs
// during the creation rounds; all are deleted at the end.
//
// SVC_BENCH_AUTOMATION_LEAD (default 150s) sets how far ahead of the start the first fire at least is
// (rounded up to a minute boundary); SVC_BENCH_AUTOMATION_WINDOW (default 60s) how long the reads are
// measured while the schedules fire.
func BenchmarkAutomationsVersusSchedules(b *testing.B) {
	app.TuneGC(os.Getenv)
	lead := envDuration(b, "SVC_BENCH_AUTOMATION_LEAD", 150*time.Second)
	window := envDuration(b, "SVC_BENCH_AUTOMATION_WINDOW", time.Minute)
	env := apptest.New(b)
	ctx := context.Background()
	accounts := clubAccounts(b, env, autoAccounts+1) // the last one only for the warm-up
	warm, accounts := accounts[autoAccounts], accounts[:autoAccounts]
	runURL := env.URL + "/v1/runs/" + finishedRun(b, env, warm.key)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: autoClients, MaxConnsPerHost: autoClients}, Timeout: time.Minute}
	sched := env.Temporal.ScheduleClient()

	for b.Loop() {
		// The first fire of every schedule, both sides: a minute boundary at least lead ahead. The spec
		// starts 30 s before it, so the boundary itself is the first fire.
		firstFire := time.Now().UTC().Add(lead + time.Minute - time.Nanosecond).Truncate(time.Minute)
		startAt := firstFire.Add(-30 * time.Second)

		var apiMade []benchAutomation
		var mu sync.Mutex
		var apiRetries, descRetries, descFailed atomic.Int64
		apiCreate := func(i int, acc benchAccount) error {
			id, err := createAutomation(ctx, hc, env.URL, acc.key, fmt.Sprintf("a-%d", i), startAt)
			// A 503 is retried with the same Idempotency-Key, as the API asks.
			for try := 1; errors.Is(err, errRetry) && try < autoTries; try++ {
				apiRetries.Add(1)
				id, err = createAutomation(ctx, hc, env.URL, acc.key, fmt.Sprintf("a-%d", i), startAt)
			}
			if err == nil {
				mu.Lock()
				apiMade = append(apiMade, benchAutomation{id: id, key: acc.key})
				mu.Unlock()
			}
			return err
		}
		sdkCreate := func(i int, acc benchAccount) error {
			return createSchedule(ctx, sched, fmt.Sprintf("auto_sdk%d", i), acc.id, startAt)
		}
		// The SDK's create followed by a Describe, as the API's answer (next fire times) needs.
		sdkDescribe := func(i int, acc benchAccount) error {
			id := fmt.Sprintf("auto_sdkd%d", i)
			if err := createSchedule(ctx, sched, id, acc.id, startAt); err != nil {
				return err
			}
			for try := range autoTries {
				if try > 0 {
					descRetries.Add(1)
				}
				if _, err := sched.GetHandle(ctx, workflows.AutomationScheduleID(id)).Describe(ctx); err == nil {
					return nil
				}
			}
			descFailed.Add(1) // the reference side goes on: its rate then counts the time it waited
			return nil
		}

		// Warm-up: connections, caches and the server's first schedules, on both sides.
		require.NoError(b, createMany(autoWarmUp, 0, func(i int) error { return apiCreate(-1-i, warm) }))
		require.NoError(b, createMany(autoWarmUp, 0, func(i int) error { return sdkCreate(1_000_000+i, warm) }))
		deleteSchedules(b, sched, scheduleIDs(apiMade))
		deleteSchedules(b, sched, sdkIDs(1_000_000, autoWarmUp))
		apiMade = nil

		var apiTime, sdkTime, descTime time.Duration
		var rounds []string // api/sdk/sdk+describe seconds of each round
		per := autoTotal / autoRounds
		for r := range autoRounds {
			a := timed(b, per, r*per, func(i int) error { return apiCreate(i, accounts[i%autoAccounts]) })
			s := timed(b, per, r*per, func(i int) error { return sdkCreate(i, accounts[i%autoAccounts]) })
			deleteSchedules(b, sched, sdkIDs(r*per, per)) // outside the clock: only the API's keep firing
			d := timed(b, per, r*per, func(i int) error { return sdkDescribe(i, accounts[i%autoAccounts]) })
			deleteSchedules(b, sched, prefixed("auto_sdkd", r*per, per))
			apiTime, sdkTime, descTime = apiTime+a, sdkTime+s, descTime+d
			rounds = append(rounds, fmt.Sprintf("%.1f/%.1f/%.1f s", a.Seconds(), s.Seconds(), d.Seconds()))
		}
		created := time.Now()
		b.Logf("rounds of %d (api/sdk/sdk+describe): %s", per, strings.Join(rounds, ", "))
		require.Len(b, apiMade, autoTotal)
		apiRate, sdkRate, descRate := autoTotal/apiTime.Seconds(), autoTotal/sdkTime.Seconds(), autoTotal/descTime.Seconds()
		b.ReportMetric(apiRate, "api-creates/s")
		b.ReportMetric(sdkRate, "sdk-creates/s")
		b.ReportMetric(apiRate/sdkRate, "create-ratio")
		b.ReportMetric(descRate, "sdk-create-describes/s")
		b.ReportMetric(apiRate/descRate, "create-describe-ratio")
		b.ReportMetric(float64(apiRetries.Load()), "api-retries")
		b.ReportMetric(float64(descRetries.Load()), "describe-retries")
		b.ReportMetric(float64(descFailed.Load()), "describe-failures")
		b.Logf("create: api %.1f/s (%v), sdk %.1f/s (%v), ratio %.2f; sdk create+describe %.1f/s (%v), api/that %.2f; retries: api %d, describe %d (%d never answered)",
			apiRate, apiTime.Round(time.Millisecond), sdkRate, sdkTime.Round(time.Millisecond), apiRate/sdkRate,
			descRate, descTime.Round(time.Millisecond), apiRate/descRate, apiRetries.Load(), descRetries.Load(), descFailed.Load())

		listTime, listed, pages, listRetries := listAll(b, hc, env.URL, accounts)
		require.Equal(b, autoTotal, listed)
		b.ReportMetric(float64(listTime.Microseconds())/1000, "list-all-ms")
		b.ReportMetric(float64(listRetries), "list-retries")
		b.Logf("list: %d automations in %d pages (limit 10, 8 accounts at a time) in %v, %d pages retried after a 503",
			listed, pages, listTime.Round(time.Millisecond), listRetries)

		if until := time.Until(firstFire); until > autoQuiet+time.Second {
			time.Sleep(until - autoQuiet - time.Second) // waiting for the first fire, not synchronisation
			quietAuto, quietRun := readBoth(ctx, hc, env.URL, apiMade, runURL, warm.key, autoQuiet)
			require.Zero(b, quietAuto.Errors+quietRun.Errors, "reads failed: %v %v", quietAuto.FirstErr, quietRun.FirstErr)
			reportReads(b, "quiet-get", quietAuto)
			reportReads(b, "quiet-run", quietRun)
		} else {
			b.Logf("creating and listing ended %v before the first fire: no quiet reads (raise SVC_BENCH_AUTOMATION_LEAD)", until.Round(time.Second))
		}
		b.Logf("created and listed %v before the first fire (%s)", firstFire.Sub(created).Round(time.Second), firstFire.Format(time.RFC3339))
		time.Sleep(time.Until(firstFire)) // the first fire is a clock time
		firingAuto, firingRun := readBoth(ctx, hc, env.URL, apiMade, runURL, warm.key, window)
		reportReads(b, "get", firingAuto)
		reportReads(b, "run", firingRun)
		reportFires(b, env.DB, firstFire)

		deleteSchedules(b, sched, scheduleIDs(apiMade))
	}
}

// clubAccounts makes n accounts on the club tier, each with a first key of every scope.
func clubAccounts(b *testing.B, env *apptest.Env, n int) []benchAccount {
	out := make([]benchAccount, n)
	ids := make([]string, n)
	for i := range out {
		id, token := env.NewAccount(b, fmt.Sprintf("auto-%d", i))
		resp := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
			Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first-key"}})
		require.Equal(b, http.StatusCreated, resp.Status, "%s", resp.Raw)
		out[i] = benchAccount{id: id, key: resp.Body["apiKey"].(map[string]any)["secret"].(string)}
		ids[i] = id
	}
	_, err := env.DB.NewUpdate().Model((*schema.Account)(nil)).Set("tier = ?", schema.TierClub).Where("id IN (?)", bun.List(ids)).
		Exec(context.Background())
	require.NoError(b, err)
	return out
}

// createMany calls create(first..first+n-1) from autoClients goroutines and answers the first error.
func createMany(n, first int, create func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, autoClients)
	for range autoClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := create(first + i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// createAutomation is POST /v1/automations of an echo automation firing every minute from startAt.
func createAutomation(ctx context.Context, hc *http.Client, base, key, name string, startAt time.Time) (string, error) {
	body, _ := json.Marshal(map[string]any{"name": name, "cron": autoCron, "startAt": startAt,
		"action": map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"n": 1}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/automations", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("build the create of %s: %w", name, err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "create-"+name)
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", name, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusServiceUnavailable {
		return "", fmt.Errorf("create %s: %w: %s", name, errRetry, raw)
	}
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("create %s: %d %s", name, resp.StatusCode, raw)
	}
	var out struct {
		Automation struct {
			ID string `json:"id"`
		} `json:"automation"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("decode the automation %s: %w", name, err)
	}
	return out.Automation.ID, nil
}

// createSchedule creates, with the Temporal Go SDK, the schedule the API makes for an automation id of
// accountID (the same spec, action, memo, search attributes and policies).
func createSchedule(ctx context.Context, sc sdkclient.ScheduleClient, id, accountID string, startAt time.Time) error {
	name := "sdk-" + id
	_, err := sc.Create(ctx, sdkclient.ScheduleOptions{
		ID:   workflows.AutomationScheduleID(id),
		Spec: sdkclient.ScheduleSpec{CronExpressions: []string{autoCron}, TimeZoneName: "UTC", StartAt: startAt},
		Action: &sdkclient.ScheduleWorkflowAction{
			ID: workflows.AutomationFireWorkflowID(id), Workflow: workflows.AutomationFireWorkflowName,
			Args: []any{workflows.AutomationFireParams{AutomationID: id}}, TaskQueue: workflows.TaskQueue,
			TypedSearchAttributes: workflows.ResourceAttributes(accountID, nil, "managed-workflows", "echo"),
			Memo:                  map[string]any{"automationId": id, "name": name},
		},
		Overlap:       enums.SCHEDULE_OVERLAP_POLICY_SKIP,
		CatchupWindow: time.Minute,
		Note:          fmt.Sprintf("automation %s (%s) of %s", id, name, accountID),
		Memo:          map[string]any{"automationId": id, "name": name},
	})
	if err != nil {
		return fmt.Errorf("create schedule %s: %w", id, err)
	}
	return nil
}

func scheduleIDs(made []benchAutomation) []string {
	out := make([]string, len(made))
	for i, a := range made {
		out[i] = a.id
	}
	return out
}

func sdkIDs(first, n int) []string { return prefixed("auto_sdk", first, n) }

// prefixed are the ids prefix<first>..prefix<first+n-1>.
func prefixed(prefix string, first, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, first+i)
	}
	return out
}

// deleteSchedules deletes the schedules of the automations ids, concurrently.
func deleteSchedules(b *testing.B, sc sdkclient.ScheduleClient, ids []string) {
	ctx := context.Background()
	err := createMany(len(ids), 0, func(i int) error {
		if err := sc.GetHandle(ctx, workflows.AutomationScheduleID(ids[i])).Delete(ctx); err != nil {
			return fmt.Errorf("delete schedule of %s: %w", ids[i], err)
		}
		return nil
	})
	require.NoError(b, err)
}

// listAll lists every account's automations through GET /v1/automations in pages of 10, eight accounts
// at a time (a page answered 503 is asked again), and answers the time, the automations, the pages and
// the retries.
func listAll(b *testing.B, hc *http.Client, base string, accounts []benchAccount) (time.Duration, int, int, int) {
	var listed, pages, retries atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	t0 := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(accounts); i = int(next.Add(1)) - 1 {
				cursor := ""
				for {
					n, c, err := listPage(hc, base, accounts[i].key, cursor)
					// A 503 is retried, as the API asks.
					for try := 1; errors.Is(err, errRetry) && try < autoTries; try++ {
						retries.Add(1)
						n, c, err = listPage(hc, base, accounts[i].key, cursor)
					}
					if err != nil {
						failed.Store(err)
						return
					}
					listed.Add(int64(n))
					pages.Add(1)
					if c == "" {
						break
					}
					cursor = c
				}
			}
		}()
	}
	wg.Wait()
	d := time.Since(t0)
	if err, ok := failed.Load().(error); ok {
		require.NoError(b, err)
	}
	return d, int(listed.Load()), int(pages.Load()), int(retries.Load())
}

// listPage reads one page of an account's automations.
func listPage(hc *http.Client, base, key, cursor string) (int, string, error) {
	u := base + "/v1/automations?limit=10"
	if cursor != "" {
		u += "&cursor=" + url.QueryEscape(cursor)
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, "", fmt.Errorf("build the list: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("list automations: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		Automations []json.RawMessage `json:"automations"`
		NextCursor  *string           `json:"nextCursor"`
	}
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusServiceUnavailable {
			return 0, "", fmt.Errorf("list automations: %w: %s", errRetry, raw)
		}
		return 0, "", fmt.Errorf("list automations: %d %s", resp.StatusCode, raw)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return 0, "", fmt.Errorf("decode the list: %w", err)
	}
	if out.NextCursor == nil {
		return len(out.Automations), "", nil
	}
	return len(out.Automations), *out.NextCursor, nil
}

// readBoth reads, for d, GET /v1/automations/{id} of random automations of made from autoReaders clients
// and GET runURL (a finished run's, no Temporal call) from two more, each client sending one request per
// autoReadEvery (or at once after a slower answer).
func readBoth(ctx context.Context, hc *http.Client, base string, made []benchAutomation, runURL, runKey string, d time.Duration) (LoadResult, LoadResult) {
	var autos, runs LoadResult
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		autos = readPaced(ctx, hc, autoReaders, d, func() (string, string) {
			a := made[rand.IntN(len(made))]
			return base + "/v1/automations/" + a.id, a.key
		})
	}()
	go func() {
		defer wg.Done()
		runs = readPaced(ctx, hc, 2, d, func() (string, string) { return runURL, runKey })
	}()
	wg.Wait()
	return autos, runs
}

// readPaced sends GET requests to the URLs target answers (with their keys) from clients goroutines for d,
// each one request per autoReadEvery, and measures the latency of every answer, failures (not 200)
// included, which it also counts.
func readPaced(ctx context.Context, hc *http.Client, clients int, d time.Duration, target func() (url, key string)) LoadResult {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var total, errs atomic.Int64
	var firstErr atomic.Value
	fail := func(msg string) {
		errs.Add(1)
		firstErr.CompareAndSwap(nil, errors.New(msg))
	}
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(autoReadEvery)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				u, key := target()
				// A request started in the window is waited for, however long it takes.
				req, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, u, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					fail(err.Error())
					continue
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				lat[c] = append(lat[c], time.Since(t0))
				total.Add(1)
				if resp.StatusCode != http.StatusOK {
					fail(fmt.Sprintf("%d %s", resp.StatusCode, raw))
				}
			}
		}()
	}
	wg.Wait()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	out := LoadResult{Requests: total.Load(), Errors: errs.Load(), Duration: time.Since(start), latencies: all}.withPercentiles()
	if err, ok := firstErr.Load().(error); ok {
		out.FirstErr = err
	}
	return out
}

// reportReads reports a read measurement's p50, p99 and failures as name-….
func reportReads(b *testing.B, name string, r LoadResult) {
	b.ReportMetric(ms(r.P50), name+"-p50-ms")
	b.ReportMetric(ms(r.P99), name+"-p99-ms")
	b.ReportMetric(float64(r.Errors), name+"-errors")
	b.Logf("%s: %d reads, p50 %v, p99 %v, max %v, %d not 200 (first: %v)", name, r.Requests, r.P50, r.P99, r.max(), r.Errors, r.FirstErr)
}

// timed creates n (from first) as createMany does and answers how long it took.
func timed(b *testing.B, n, first int, create func(i int) error) time.Duration {
	t0 := time.Now()
	require.NoError(b, createMany(n, first, create))
	return time.Since(t0)
}

// finishedRun makes an echo run with key and waits until it has succeeded.
func finishedRun(b *testing.B, env *apptest.Env, key string) string {
	resp := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
		Body:    map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"n": 1}},
		Headers: map[string]string{"Idempotency-Key": "bench-run"}})
	require.Equal(b, http.StatusCreated, resp.Status, "%s", resp.Raw)
	id := resp.Body["run"].(map[string]any)["id"].(string)
	waitSucceeded(b, env, key, id)
	return id
}

// reportFires reports the runs the first fire started (and how many succeeded) and how long after it
// the last of them was recorded and the last succeeded.
func reportFires(b *testing.B, db *bun.DB, firstFire time.Time) {
	var rows []struct {
		Status    string     `bun:"status"`
		CreatedAt time.Time  `bun:"created_at"`
		Completed *time.Time `bun:"completed_at"`
	}
	err := db.NewSelect().Table("runs").Column("status", "created_at", "completed_at").
		Where("automation_id IS NOT NULL AND scheduled_at >= ? AND scheduled_at < ?", firstFire, firstFire.Add(time.Minute)).
		Scan(context.Background(), &rows)
	require.NoError(b, err)
	var created, done []time.Duration
	for _, r := range rows {
		created = append(created, r.CreatedAt.Sub(firstFire))
		if r.Status == "succeeded" && r.Completed != nil {
			done = append(done, r.Completed.Sub(firstFire))
		}
	}
	last := func(d []time.Duration) time.Duration {
		if len(d) == 0 {
			return 0
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)-1]
	}
	b.ReportMetric(float64(len(rows)), "fire-runs")
	b.ReportMetric(float64(len(done)), "fire-runs-succeeded")
	b.ReportMetric(last(created).Seconds(), "fire-last-recorded-s")
	b.Logf("first fire: %d runs recorded (the last %v after the fire), %d succeeded (the last %v after)",
		len(rows), last(created).Round(time.Millisecond), len(done), last(done).Round(time.Millisecond))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// envDuration reads a duration from the environment variable name, or answers def.
func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	require.NoError(b, err, "%s", name)
	return d
}
