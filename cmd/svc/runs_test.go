package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// watchedWriter is a buffer safe for concurrent use that closes seen once its content contains want.
type watchedWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func newWatchedWriter(want string) *watchedWriter {
	return &watchedWriter{want: want, seen: make(chan struct{})}
}

// Write implements io.Writer.
func (w *watchedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

func (w *watchedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestCLIRunsListCancelWatch drives runs list, runs watch and runs cancel against the real server: a
// listing with filters and pages, a watch that shows a long run being cancelled as it happens and exits
// 1, a watch of a succeeded run that exits 0, and the refusals of cancelling a finished or unknown run.
func TestCLIRunsListCancelWatch(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	svc := func(args ...string) result { return cli(t, vars, "", args...) }
	runID := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, r.stderr)
		var v struct {
			Run struct {
				ID string `json:"id"`
			} `json:"run"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
		require.NotEmpty(t, v.Run.ID)
		return v.Run.ID
	}

	echo := runID(svc("--json", "runs", "create", "--service", "managed-workflows", "--operation", "echo",
		"--input", `{"hello":"list"}`, "--wait", "--interval", "20ms"))
	sleep := runID(svc("--json", "runs", "create", "--service", "managed-workflows", "--operation", "sleep",
		"--input", `{"seconds":600}`))
	require.Eventually(t, func() bool {
		r := svc("runs", "get", sleep)
		require.Equal(t, exitOK, r.code, r.stderr)
		return regexp.MustCompile(`Status:\s+running`).MatchString(r.stdout)
	}, 20*time.Second, 20*time.Millisecond)

	// runs list: a table, newest first, with filters and pages.
	r := svc("runs", "list")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `(?m)^ID\s+STATUS\s+SERVICE\s+OPERATION\s+CREATED\s+CREDITS$`, r.stdout)
	require.Regexp(t, `(?s)`+sleep+`\s+running\s+managed-workflows\s+sleep\s+.*`+echo+`\s+succeeded\s+managed-workflows\s+echo\s+`, r.stdout)
	require.NotContains(t, r.stdout, "More runs")
	r = svc("runs", "list", "--status", "succeeded")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, echo)
	require.NotContains(t, r.stdout, sleep)
	r = svc("runs", "list", "--operation", "sleep", "--service", "managed-workflows")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, sleep)
	require.NotContains(t, r.stdout, echo)
	r = svc("runs", "list", "--to", "2020-01-01")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "No runs.\n", r.stdout)
	r = svc("runs", "list", "--from", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "--service", "managed-workflows")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, echo)

	r = svc("runs", "list", "--limit", "1", "--status", "running")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, sleep)
	require.NotContains(t, r.stdout, "More runs", "one running run fills one page exactly")
	r = svc("runs", "list", "--limit", "1")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, sleep)
	require.NotContains(t, r.stdout, echo)
	more := regexp.MustCompile(`More runs: svc runs list --limit 1 --cursor (\S+)`).FindStringSubmatch(r.stdout)
	require.NotNil(t, more, r.stdout)
	r = svc("runs", "list", "--limit", "1", "--cursor", strings.Trim(more[1], "'"))
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, echo)
	require.NotContains(t, r.stdout, sleep)
	r = svc("--json", "runs", "list", "--limit", "1", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	var all struct {
		OK   bool `json:"ok"`
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
		NextCursor *string `json:"nextCursor"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &all), r.stdout)
	require.True(t, all.OK)
	require.Len(t, all.Runs, 2)
	require.Equal(t, []string{sleep, echo}, []string{all.Runs[0].ID, all.Runs[1].ID})
	require.Nil(t, all.NextCursor)

	// runs watch follows the sleep run while runs cancel stops it: a line for the change, the final run,
	// exit 1.
	out, errOut := newWatchedWriter(sleep+"  managed-workflows.sleep  running"), newWatchedWriter("")
	watched := make(chan int, 1)
	go func() {
		watched <- run([]string{"runs", "watch", sleep, "--interval", "20ms"}, strings.NewReader(""), out, errOut,
			func(k string) string { return vars[k] })
	}()
	select {
	case <-out.seen:
	case code := <-watched:
		t.Fatalf("watch ended (%d) before showing the running run: %s %s", code, out, errOut)
	case <-time.After(20 * time.Second):
		t.Fatalf("watch never showed the running run: %s", out)
	}
	r = svc("runs", "cancel", sleep)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Cancellation requested for run "+sleep)
	require.Regexp(t, `Run:\s+`+sleep, r.stdout)
	select {
	case code := <-watched:
		require.Equal(t, exitAPI, code, "a cancelled run exits 1: %s %s", out, errOut)
	case <-time.After(20 * time.Second):
		t.Fatalf("watch never ended: %s", out)
	}
	require.Regexp(t, `(?m)^`+sleep+`  cancelled  \(`, out.String(), "one line for the change")
	require.Len(t, regexp.MustCompile(`(?m)^`+sleep+`  `).FindAllString(out.String(), -1), 2, "one line per status: %s", out)
	require.Regexp(t, `Status:\s+cancelled`, out.String())
	require.NotContains(t, out.String(), "Error:", "the status says why")
	require.Equal(t, "error: run "+sleep+" cancelled\n", errOut.String())

	// A finished run: watch shows it and exits 0; cancelling it is a conflict.
	r = svc("runs", "watch", echo)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `Status:\s+succeeded`, r.stdout)
	r = svc("--json", "runs", "watch", sleep)
	require.Equal(t, exitAPI, r.code)
	var final map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &final), "--json prints only the final envelope: %s", r.stdout)
	require.Equal(t, "cancelled", final["run"].(map[string]any)["status"])
	require.Contains(t, r.stderr, sleep+"  managed-workflows.sleep  cancelled")

	r = svc("runs", "cancel", echo)
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Contains(t, r.stderr, "error: conflict: ")
	r = svc("--json", "runs", "cancel", sleep)
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stdout, `"code": "conflict"`)
	r = svc("runs", "cancel", "run_missing")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "not_found")
	r = svc("runs", "watch", "run_missing")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "not_found")

	r = svc("runs", "list", "--status", "cancelled")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, sleep+`\s+cancelled\s+`, r.stdout)
	require.NotContains(t, r.stdout, echo)
}

// TestRunsCommandsUsageErrors: bad flags of runs list, cancel and watch exit 2 naming the problem, before
// any request.
func TestRunsCommandsUsageErrors(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"runs", "list", "--status", "done"}, "--status must be one of queued, running"},
		{[]string{"runs", "list", "--from", "yesterday"}, "--from"},
		{[]string{"runs", "list", "--to", "2026-01-02T03:04:05.5Z"}, "--to"},
		{[]string{"runs", "list", "--from", "2026-01-02", "--to", "2026-01-01"}, "--from must be before --to"},
		{[]string{"runs", "list", "--limit", "500"}, "--limit"},
		{[]string{"runs", "list", "extra"}, `unexpected argument "extra"`},
		{[]string{"runs", "cancel"}, "runs cancel takes exactly one run id"},
		{[]string{"runs", "cancel", "a", "b"}, "runs cancel takes exactly one run id"},
		{[]string{"runs", "watch"}, "runs watch takes exactly one run id"},
		{[]string{"runs", "watch", "run_1", "--interval", "0s"}, "--interval must be positive"},
		{[]string{"runs", "bogus"}, `unknown command "runs bogus"`},
	} {
		r := cli(t, env, "", c.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.want, c.args)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Empty(t, f.requests, "usage errors send nothing")
}

// TestRunsCommandsAgainstFake checks what runs list, cancel and watch send: the filters under their query
// names, the cancel with an Idempotency-Key, and the watch polling until the run finishes.
func TestRunsCommandsAgainstFake(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "runs", "watch", "run_1", "--interval", "5ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "run_1  managed-workflows.echo  running\nrun_1  succeeded", strings.SplitN(r.stdout, "  (", 2)[0])
	f.mu.Lock()
	polls := f.runPolls
	f.mu.Unlock()
	require.Equal(t, 3, polls, "polled until succeeded")

	r = cli(t, env, "", "runs", "cancel", "run_1", "--idempotency-key", "cancel-me")
	require.Equal(t, exitAPI, r.code, "the fake has no cancel route")
	_, hdr := f.last()
	require.Equal(t, "cancel-me", hdr.Get("Idempotency-Key"))
	require.Equal(t, []string{""}, f.queriesTo("POST", "/v1/runs/run_1/cancel"))

	_ = cli(t, env, "", "runs", "list", "--status", "failed", "--service", "managed-workflows", "--operation", "sleep",
		"--from", "2026-01-02", "--to", "2026-01-03T04:05:06Z", "--limit", "5", "--cursor", "c1")
	require.Equal(t, []string{"cursor=c1&from=2026-01-02T00%3A00%3A00Z&limit=5&operationId=sleep&serviceId=managed-workflows&status=failed&to=2026-01-03T04%3A05%3A06Z"},
		f.queriesTo("GET", "/v1/runs"))
}

// TestRunsHelp: the new runs commands have help of their own and appear in the overviews.
func TestRunsHelp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"runs", "list", "--help"}, "Usage: svc runs list"},
		{[]string{"help", "runs", "list"}, "--operation ID"},
		{[]string{"runs", "cancel", "-h"}, "Usage: svc runs cancel ID"},
		{[]string{"help", "runs", "cancel"}, "conflict, exit 1"},
		{[]string{"runs", "watch", "--help"}, "Usage: svc runs watch ID"},
		{[]string{"help", "runs", "watch"}, "1 when it failed or was cancelled"},
		{[]string{"runs", "--help"}, "runs watch"},
		{[]string{"help"}, "runs cancel"},
	} {
		r := cli(t, testEnv(t, nil), "", c.args...)
		require.Equal(t, exitOK, r.code, c.args)
		require.Contains(t, r.stdout, "Usage:", c.args)
		require.Contains(t, r.stdout, c.want, c.args)
	}
}

func TestRunsCreateWaitPollsUntilSucceeded(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "runs", "create", "--service", "managed-workflows", "--operation", "echo",
		"--input", `{"message":"hi","n":12345678901234567890}`, "--wait", "--interval", "5ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "queued")
	require.Contains(t, r.stdout, "running")
	require.Contains(t, r.stdout, "succeeded")
	require.Contains(t, r.stdout, `{"message":"hi"}`)
	f.mu.Lock()
	polls := f.runPolls
	f.mu.Unlock()
	require.Equal(t, 3, polls, "polled until succeeded")

	// The input was sent as given, big numbers intact, in one create.
	f.mu.Lock()
	defer f.mu.Unlock()
	require.JSONEq(t, `{"serviceId":"managed-workflows","operationId":"echo","input":{"message":"hi","n":12345678901234567890}}`, f.runBody)
	require.Contains(t, f.runBody, "12345678901234567890")
	var creates int
	for _, req := range f.requests {
		if req == "POST /v1/runs" {
			creates++
		}
	}
	require.Equal(t, 1, creates)
}

func TestRunsWaitFailedRunExitsOne(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.runStates = []string{"running", "failed"}
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	r := cli(t, env, "", "runs", "get", "run_1", "--wait", "--interval", "5ms", "--json")
	require.Equal(t, exitAPI, r.code)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
	require.Equal(t, "failed", v["run"].(map[string]any)["status"])
	require.Contains(t, r.stderr, "error: run run_1 failed")
}

func TestRunsCreateInputFileFromStdin(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	r := cli(t, env, `{"n": 12345678901234567890}`, "runs", "create", "--service", "managed-workflows", "--operation", "echo", "--input-file", "-")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "run_1")
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Contains(t, f.runBody, `"input":{"n":12345678901234567890}`)
}
