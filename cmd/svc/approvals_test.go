package main

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// approvalHintRE finds the approval id in the hint runs create prints for a run awaiting approval.
var approvalHintRE = regexp.MustCompile(`awaits approval (apr_\S+); a key holding approvals:write approves it with: svc approvals approve (apr_\S+)`)

// jsonField decodes a --json envelope and returns the object under name.
func jsonField(t *testing.T, r result, name string) map[string]any {
	t.Helper()
	var env map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &env), "stdout holds only the envelope: %s", r.stdout)
	obj, ok := env[name].(map[string]any)
	require.True(t, ok, "no %q in %s", name, r.stdout)
	return obj
}

// TestCLIApprovals follows the README against the real server: a run created with --require-approval
// waits and says how to approve it; a second key holding approvals:write lists, approves (recorded as the
// decider) and the run succeeds; a second decision is a conflict (exit 1); a rejected run fails with
// approval_rejected; runs create --wait follows a run through its approval; an approved service action
// runs as a run; unknown approvals and keys without approvals:write are refused.
func TestCLIApprovals(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	as := func(vars map[string]string) func(args ...string) result {
		return func(args ...string) result { return cli(t, vars, "", args...) }
	}
	svc := as(root)
	ok := func(r result) result {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r
	}

	// The ids of the root key and of a second key, the approver.
	var rootID string
	var keys struct {
		APIKeys []struct {
			ID      string `json:"id"`
			Current bool   `json:"current"`
		} `json:"apiKeys"`
	}
	require.NoError(t, json.Unmarshal([]byte(ok(svc("--json", "keys", "list")).stdout), &keys))
	for _, k := range keys.APIKeys {
		if k.Current {
			rootID = k.ID
		}
	}
	require.NotEmpty(t, rootID)
	newKey := func(name string, scopes ...string) (map[string]string, string) {
		k := jsonField(t, ok(svc("--json", "keys", "create", "--name", name, "--scope", strings.Join(scopes, ","))), "apiKey")
		vars := maps.Clone(root)
		vars["SVC_API_KEY"] = k["secret"].(string)
		return vars, k["id"].(string)
	}
	approverVars, approverID := newKey("approver", "approvals:read", "approvals:write", "runs:read")
	approver := as(approverVars)
	readerVars, _ := newKey("reader", "approvals:read")
	reader := as(readerVars)

	// A gated run: it waits, and svc says how to approve it.
	r := ok(svc("runs", "create", "--service", "managed-workflows", "--operation", "echo", "--input", `{"x":1}`,
		"--require-approval"))
	require.Regexp(t, `Status:\s+awaiting_approval`, r.stdout)
	m := approvalHintRE.FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	aprID := m[1]
	require.Equal(t, aprID, m[2])
	require.Regexp(t, `Approval:\s+`+aprID, r.stdout)
	runID := regexp.MustCompile(`Run:\s+(run_\S+)`).FindStringSubmatch(r.stdout)[1]
	require.Regexp(t, `Status:\s+awaiting_approval`, ok(svc("runs", "get", runID)).stdout)

	// With --json the envelope stays alone on stdout and the hint goes to stderr.
	r = ok(svc("--json", "runs", "create", "--service", "managed-workflows", "--operation", "echo", "--input", `{"x":2}`,
		"--require-approval", "--approval-expires-in", "1h"))
	run2 := jsonField(t, r, "run")
	run2ID, apr2ID := run2["id"].(string), run2["approvalId"].(string)
	require.Equal(t, "awaiting_approval", run2["status"])
	require.Contains(t, r.stderr, "svc approvals approve "+apr2ID)

	// The approver sees both pending, the newest first.
	r = ok(approver("approvals", "list", "--status", "pending"))
	require.Regexp(t, `(?m)^ID\s+STATUS\s+KIND\s+ACTION\s+RUN\s+REQUESTED_BY\s+EXPIRES$`, r.stdout)
	require.Regexp(t, `(?s)`+apr2ID+`\s+pending\s+run\s+managed-workflows\.echo\s+`+run2ID+`\s+`+rootID+`\s+\d{4}-.*`+
		aprID+`\s+pending\s+run\s+managed-workflows\.echo\s+`+runID+`\s+`+rootID+`\s+`, r.stdout)
	r = ok(approver("approvals", "list", "--run", runID))
	require.Contains(t, r.stdout, aprID)
	require.NotContains(t, r.stdout, apr2ID)
	r = ok(approver("approvals", "list", "--limit", "1", "--service", "managed-workflows"))
	require.Contains(t, r.stdout, apr2ID)
	require.NotContains(t, r.stdout, aprID)
	more := regexp.MustCompile(`More approvals: svc approvals list --service managed-workflows --limit 1 --cursor (\S+)`).FindStringSubmatch(r.stdout)
	require.NotNil(t, more, r.stdout)
	r = ok(approver("approvals", "list", "--limit", "1", "--service", "managed-workflows", "--cursor", strings.Trim(more[1], "'")))
	require.Contains(t, r.stdout, aprID)
	require.NotContains(t, r.stdout, apr2ID)
	var listed struct {
		Approvals []struct {
			ID, Status, ExpiresAt, CreatedAt string
		} `json:"approvals"`
		NextCursor *string `json:"nextCursor"`
	}
	require.NoError(t, json.Unmarshal([]byte(ok(approver("--json", "approvals", "list", "--limit", "1", "--all")).stdout), &listed))
	require.Len(t, listed.Approvals, 2)
	require.Nil(t, listed.NextCursor)
	expires, err := time.Parse(time.RFC3339, listed.Approvals[0].ExpiresAt)
	require.NoError(t, err)
	created, err := time.Parse(time.RFC3339, listed.Approvals[0].CreatedAt)
	require.NoError(t, err)
	require.InDelta(t, time.Hour.Seconds(), expires.Sub(created).Seconds(), 5, "--approval-expires-in 1h")
	require.Equal(t, "No approvals.\n", ok(approver("approvals", "list", "--status", "expired")).stdout)

	// A key without approvals:write may list but not decide.
	r = reader("approvals", "approve", aprID)
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: scope_missing: ")

	// Approve: the decider is recorded, the run continues and succeeds.
	r = ok(approver("approvals", "approve", aprID, "--comment", "looks fine", "--idempotency-key", "approve-1"))
	require.Contains(t, r.stdout, "Approved "+aprID+"\n")
	require.Regexp(t, `Status:\s+approved`, r.stdout)
	require.Regexp(t, `Decided by:\s+`+approverID, r.stdout)
	require.Regexp(t, `Requested by:\s+`+rootID, r.stdout)
	require.Regexp(t, `Comment:\s+looks fine`, r.stdout)
	require.Contains(t, r.stdout, "Run "+runID+" continues; follow it with: svc runs watch "+runID)
	r = ok(svc("runs", "watch", runID, "--interval", "20ms"))
	require.Regexp(t, `Status:\s+succeeded`, r.stdout)
	require.Regexp(t, `Output:\s+\{"x":1\}`, r.stdout)

	// The same request again is the same answer; another decision is a conflict, exit 1.
	r = ok(approver("approvals", "approve", aprID, "--comment", "looks fine", "--idempotency-key", "approve-1"))
	require.Contains(t, r.stdout, "Approved "+aprID+" [replayed answer]")
	r = approver("approvals", "reject", aprID)
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Empty(t, r.stdout)
	require.Regexp(t, `error: conflict: .*already approved.* \[req_`, r.stderr)
	r = approver("--json", "approvals", "approve", aprID)
	require.Equal(t, exitAPI, r.code)
	e := jsonField(t, r, "error")
	require.Equal(t, "conflict", e["code"])
	require.Equal(t, "approved", e["details"].(map[string]any)["status"])

	// Reject: the run fails with approval_rejected (watch exits 1 and says why).
	r = ok(approver("approvals", "reject", apr2ID, "--comment", "not today"))
	require.Contains(t, r.stdout, "Rejected "+apr2ID+"\n")
	require.Contains(t, r.stdout, "Run "+run2ID+" fails with approval_rejected.")
	r = svc("runs", "watch", run2ID, "--interval", "20ms")
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Regexp(t, `Error:\s+approval_rejected: `, r.stdout)
	require.Contains(t, r.stderr, "error: run "+run2ID+" failed: approval_rejected: ")
	r = approver("approvals", "approve", apr2ID)
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "already rejected")
	r = ok(approver("approvals", "list", "--status", "rejected"))
	require.Regexp(t, apr2ID+`\s+rejected\s+run\s+`, r.stdout)
	require.NotContains(t, r.stdout, aprID)

	// runs create --wait shows the hint, then follows the run through its approval to the end.
	out := newWatchedWriter("svc approvals approve apr_")
	errOut := newWatchedWriter("")
	waited := make(chan int, 1)
	go func() {
		waited <- run([]string{"runs", "create", "--service", "managed-workflows", "--operation", "echo", "--input", `{"x":3}`,
			"--require-approval", "--wait", "--interval", "20ms"}, strings.NewReader(""), out, errOut, func(k string) string { return root[k] })
	}()
	select {
	case <-out.seen:
	case code := <-waited:
		t.Fatalf("runs create --wait ended (%d) before showing the approval: %s %s", code, out, errOut)
	case <-time.After(20 * time.Second):
		t.Fatalf("runs create --wait never showed the approval: %s", out)
	}
	m = approvalHintRE.FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	ok(approver("approvals", "approve", m[1]))
	select {
	case code := <-waited:
		require.Equal(t, exitOK, code, "%s %s", out, errOut)
	case <-time.After(20 * time.Second):
		t.Fatalf("runs create --wait never ended: %s", out)
	}
	require.Regexp(t, `(?m)  awaiting_approval$`, out.String())
	require.Regexp(t, `  succeeded  \(`, out.String())
	require.Regexp(t, `Status:\s+succeeded`, out.String())

	// A service action: requested, approved, then run as a run whose id the approval carries.
	r = ok(svc("approvals", "request", "--service", "managed-workflows", "--operation", "echo", "--input", `{"y":2}`,
		"--reason", "nightly", "--expires-in", "10m", "--idempotency-key", "sa-1"))
	saID := regexp.MustCompile(`Requested approval (apr_\S+)`).FindStringSubmatch(r.stdout)[1]
	require.Regexp(t, `Kind:\s+service_action`, r.stdout)
	require.Regexp(t, `Reason:\s+nightly`, r.stdout)
	require.Regexp(t, `Expires:\s+\S+  \(in (9m5\d|10m0)`, r.stdout)
	require.Contains(t, r.stdout, "decides with: svc approvals approve "+saID)
	require.NotRegexp(t, `(?m)^Run:`, r.stdout, "no run until it is approved")
	r = ok(approver("approvals", "approve", saID))
	require.Contains(t, r.stdout, "The action starts as a run shortly")
	var saRun string
	require.Eventually(t, func() bool {
		r := ok(approver("--json", "approvals", "list", "--status", "approved"))
		var l struct {
			Approvals []struct {
				ID    string  `json:"id"`
				RunID *string `json:"runId"`
			} `json:"approvals"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &l))
		for _, a := range l.Approvals {
			if a.ID == saID && a.RunID != nil {
				saRun = *a.RunID
			}
		}
		return saRun != ""
	}, 20*time.Second, 20*time.Millisecond)
	r = ok(svc("runs", "watch", saRun, "--interval", "20ms"))
	require.Regexp(t, `Output:\s+\{"y":2\}`, r.stdout)

	// The server's refusals: an expiry over 7 days, an unknown approval.
	r = svc("approvals", "request", "--service", "managed-workflows", "--operation", "echo", "--expires-in", "169h")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: invalid_request: ")
	require.Contains(t, r.stderr, "expiresInSeconds must be between")
	r = svc("runs", "create", "--service", "managed-workflows", "--operation", "echo", "--approval-expires-in", "1h")
	require.Equal(t, exitAPI, r.code, "an expiry without an approval is refused")
	require.Contains(t, r.stderr, "approvalExpiresInSeconds applies only")
	r = approver("approvals", "approve", "apr_missing")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: not_found: ")
}

// TestApprovalsCommandsUsageErrors: a missing id, bad flags and bad values exit 2 naming the problem,
// before any request.
func TestApprovalsCommandsUsageErrors(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	request := []string{"approvals", "request", "--service", "managed-workflows", "--operation", "echo"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"approvals", "approve"}, "approvals approve takes exactly one approval id"},
		{[]string{"approvals", "reject"}, "approvals reject takes exactly one approval id"},
		{[]string{"approvals", "approve", "apr_1", "apr_2"}, "approvals approve takes exactly one approval id"},
		{[]string{"approvals", "reject", "  "}, "approvals reject takes exactly one approval id"},
		{[]string{"approvals", "approve", "apr_1", "--bogus"}, "unknown flag --bogus"},
		{[]string{"approvals", "reject", "apr_1", "--comment"}, "flag needs an argument: -comment"},
		{[]string{"approvals", "list", "--status", "done"}, "--status must be one of pending, approved, rejected, expired, cancelled"},
		{[]string{"approvals", "list", "--run", " "}, "--run must not be empty"},
		{[]string{"approvals", "list", "--service", ""}, "--service must not be empty"},
		{[]string{"approvals", "list", "--limit", "201"}, "--limit"},
		{[]string{"approvals", "list", "apr_1"}, `unexpected argument "apr_1"`},
		{[]string{"approvals", "request", "--operation", "echo"}, "--service is required"},
		{[]string{"approvals", "request", "--service", "managed-workflows"}, "--operation is required"},
		{append(request, "--input", "{}", "--input-file", "x.json"), msgInputBoth},
		{append(request, "--input", "[1]"), "input: must be a JSON object"},
		{append(request, "--expires-in", "0"), "--expires-in must be a positive number of seconds"},
		{append(request, "--expires-in", "1.5s"), "--expires-in must be a positive whole number of seconds"},
		{append(request, "--expires-in", "soon"), `--expires-in "soon" is neither a duration`},
		{append(request, "extra"), `unexpected argument "extra"`},
		{[]string{"runs", "create", "--service", "s", "--operation", "o", "--approval-expires-in", "-5"}, "--approval-expires-in must be a positive number"},
		{[]string{"runs", "create", "--service", "s", "--operation", "o", "--require-approval=maybe"}, "invalid boolean value"},
		{[]string{"approvals", "bogus"}, `unknown command "approvals bogus"`},
		{[]string{"approvals"}, "Usage: svc approvals <list|approve|reject|request>"},
	} {
		r := cli(t, env, "", c.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.want, c.args)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Empty(t, f.requests, "usage errors send nothing")
}

// approvalsFake answers the approval routes with fixed approvals and records what it was sent.
type approvalsFake struct {
	srv *httptest.Server

	mu   sync.Mutex
	reqs []sentRequest
}

// sentRequest is what approvalsFake saw of one request.
type sentRequest struct {
	method, path, query, idemKey string
	body                         map[string]any
}

func newApprovalsFake(t *testing.T) *approvalsFake {
	t.Helper()
	f := &approvalsFake{}
	apr := func(id, kind, status string, runID any) map[string]any {
		return map[string]any{"id": id, "kind": kind, "status": status, "serviceId": "managed-workflows", "operationId": "echo",
			"input": map[string]any{}, "reason": nil, "runId": runID, "requestedByKeyId": "key_root", "decidedByKeyId": nil,
			"comment": nil, "expiresAt": "2026-01-02T00:00:00Z", "decidedAt": nil,
			"createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"}
	}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		s := sentRequest{method: r.Method, path: r.URL.EscapedPath(), query: r.URL.RawQuery, idemKey: r.Header.Get("Idempotency-Key")}
		_ = json.Unmarshal(raw, &s.body)
		f.mu.Lock()
		f.reqs = append(f.reqs, s)
		f.mu.Unlock()
		w.Header().Set("X-Request-Id", "req_fake")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/approvals":
			reply(w, 200, map[string]any{"ok": true, "nextCursor": "next/1", "approvals": []any{
				apr("apr_sa", "service_action", "pending", nil), apr("apr_run", "run", "expired", "run_1")}})
		case r.Method == http.MethodPost && r.URL.Path == "/v1/approvals/service-actions":
			reply(w, 201, map[string]any{"ok": true, "approval": apr("apr_sa", "service_action", "pending", nil)})
		case r.Method == http.MethodPost && r.URL.Path == "/v1/runs":
			run := runJSON("awaiting_approval")
			run["run"].(map[string]any)["approvalId"] = "apr_run"
			reply(w, 201, run)
		default:
			reply(w, 409, map[string]any{"ok": false, "error": map[string]any{"code": "conflict",
				"message": "approval apr_run is already expired", "requestId": "req_fake", "param": "approvalId",
				"details": map[string]any{"status": "expired"}}})
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// last returns the last request the fake saw.
func (f *approvalsFake) last(t *testing.T) sentRequest {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.NotEmpty(t, f.reqs)
	return f.reqs[len(f.reqs)-1]
}

// TestApprovalsCommandsSend checks what the approvals commands and runs create --require-approval send:
// filters under their query names, decisions and comments, expiries in seconds, Idempotency-Keys; and how
// a list with a service action and a next page, and a refused decision, are shown.
func TestApprovalsCommandsSend(t *testing.T) {
	t.Parallel()
	f := newApprovalsFake(t)
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": f.srv.URL, "SVC_API_KEY": goodKey}

	r := cli(t, env, "", "approvals", "list", "--status", "pending", "--service", "managed-workflows", "--run", "run 1",
		"--limit", "5", "--cursor", "c1")
	require.Equal(t, exitOK, r.code, r.stderr)
	got := f.last(t)
	require.Equal(t, "/v1/approvals", got.path)
	require.Equal(t, "cursor=c1&limit=5&runId=run+1&serviceId=managed-workflows&status=pending", got.query)
	require.Empty(t, got.idemKey)
	require.Regexp(t, `apr_sa\s+pending\s+service_action\s+managed-workflows\.echo\s+-\s+key_root\s+2026-01-02T00:00:00Z`, r.stdout)
	require.Regexp(t, `apr_run\s+expired\s+run\s+managed-workflows\.echo\s+run_1\s+key_root\s+`, r.stdout)
	require.Contains(t, r.stdout, "More approvals: svc approvals list --status pending --service managed-workflows --run 'run 1' --limit 5 --cursor next/1\n")

	r = cli(t, env, "", "approvals", "approve", "apr_run", "--comment", "ok by me", "--idempotency-key", "k-1")
	require.Equal(t, exitAPI, r.code)
	got = f.last(t)
	require.Equal(t, sentRequest{method: http.MethodPost, path: "/v1/approvals/apr_run", idemKey: "k-1",
		body: map[string]any{"decision": "approve", "comment": "ok by me"}}, got)
	require.Empty(t, r.stdout)
	require.Equal(t, "error: conflict: approval apr_run is already expired [req_fake]\n", r.stderr)

	r = cli(t, env, "", "approvals", "reject", "apr/2")
	require.Equal(t, exitAPI, r.code)
	got = f.last(t)
	require.Equal(t, "/v1/approvals/apr%2F2", got.path)
	require.Equal(t, map[string]any{"decision": "reject"}, got.body)
	require.NotEmpty(t, got.idemKey, "a random key when none is given")

	for expiry, seconds := range map[string]float64{"2h": 7200, "3600": 3600, "90m": 5400} {
		r = cli(t, env, "", "approvals", "request", "--service", "managed-workflows", "--operation", "echo",
			"--input", `{"n": 1}`, "--reason", "why not", "--expires-in", expiry)
		require.Equal(t, exitOK, r.code, r.stderr)
		got = f.last(t)
		require.Equal(t, "/v1/approvals/service-actions", got.path)
		require.Equal(t, map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"n": 1.0},
			"reason": "why not", "expiresInSeconds": seconds}, got.body, expiry)
	}
	require.Contains(t, r.stdout, "Requested approval apr_sa\n")
	require.Contains(t, r.stdout, "decides with: svc approvals approve apr_sa (or reject)")
	r = cli(t, env, "", "approvals", "request", "--service", "managed-workflows", "--operation", "echo")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, f.last(t).body,
		"no expiry, reason or input: the server's defaults")

	r = cli(t, env, "", "runs", "create", "--service", "managed-workflows", "--operation", "echo", "--require-approval",
		"--approval-expires-in", "48h")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "requireApproval": true,
		"approvalExpiresInSeconds": 172800.0}, f.last(t).body)
	require.Contains(t, r.stdout, "Run run_1 awaits approval apr_run; a key holding approvals:write approves it with: svc approvals approve apr_run\n")
	r = cli(t, env, "", "--json", "runs", "create", "--service", "managed-workflows", "--operation", "echo", "--require-approval")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "requireApproval": true}, f.last(t).body)
	require.NotContains(t, r.stdout, "awaits approval", "stdout holds only the envelope")
	require.Contains(t, r.stderr, "svc approvals approve apr_run")
}

// TestApprovalsHelp: the approvals commands and the new runs create flags have help and appear in the
// overviews.
func TestApprovalsHelp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"approvals", "--help"}, "approvals request"},
		{[]string{"help", "approvals"}, "approvals reject"},
		{[]string{"approvals", "list", "--help"}, "Usage: svc approvals list"},
		{[]string{"help", "approvals", "list"}, "--run RUN_ID"},
		{[]string{"approvals", "approve", "-h"}, "Usage: svc approvals approve APPROVAL_ID"},
		{[]string{"help", "approvals", "approve"}, `"conflict" for an approval already decided`},
		{[]string{"approvals", "reject", "--help"}, "approval_rejected"},
		{[]string{"approvals", "request", "--help"}, "--expires-in D"},
		{[]string{"help", "runs", "create"}, "--require-approval"},
		{[]string{"runs", "create", "--help"}, "--approval-expires-in D"},
		{[]string{"help"}, "approvals approve"},
	} {
		r := cli(t, testEnv(t, nil), "", c.args...)
		require.Equal(t, exitOK, r.code, c.args)
		require.Contains(t, r.stdout, "Usage:", c.args)
		require.Contains(t, r.stdout, c.want, c.args)
	}
}

// TestParseSeconds: durations and plain seconds become whole seconds; anything else is refused.
func TestParseSeconds(t *testing.T) {
	t.Parallel()
	n, err := parseSeconds("x", "", false)
	require.NoError(t, err)
	require.Zero(t, n, "not given: the server's default")
	for in, want := range map[string]int{"1": 1, " 600 ": 600, "48h": 172800, "1h30m": 5400, "2s": 2, "604800": 604800} {
		n, err := parseSeconds("x", in, true)
		require.NoError(t, err, in)
		require.Equal(t, want, n, in)
	}
	for _, in := range []string{"", "0", "-1", "0s", "500ms", "1.5s", "-2h", "1d", "9999999999"} {
		_, err := parseSeconds("x", in, true)
		require.Error(t, err, in)
		require.Contains(t, err.Error(), "--x", in)
	}
}
