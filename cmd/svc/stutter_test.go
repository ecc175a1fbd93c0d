package main

import (
	"encoding/json"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// requireSaidOnce fails when a line repeats a word at once ("cancelled: cancelled") or ends with a
// "(param)" the line has already named.
func requireSaidOnce(t *testing.T, stderr string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		f := strings.Fields(strings.ToLower(line))
		for i := range f {
			f[i] = strings.Trim(f[i], `:;,.()[]"'`)
		}
		for i := 1; i < len(f); i++ {
			require.NotEqual(t, f[i-1], f[i], "%q says %q twice", line, f[i])
		}
		if m := regexp.MustCompile(`\(([A-Za-z][\w.-]*)\) \[req_`).FindStringSubmatch(line); m != nil {
			require.False(t, namesParamForTest(strings.SplitN(line, "("+m[1]+")", 2)[0], m[1]),
				"%q names %s before its (%s)", line, m[1], m[1])
		}
	}
}

// namesParamForTest reports whether text names param as client.Error's Error decides it.
func namesParamForTest(text, param string) bool {
	return !strings.Contains((&client.Error{Code: "c", Message: text, Param: param}).Error(), "("+param+")")
}

// TestCLIErrorsSayThingsOnce: against the real server, the error lines of a cancelled run, a decided
// approval, field errors and a reused Idempotency-Key say each thing once; a param the message does not
// name is still shown.
func TestCLIErrorsSayThingsOnce(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	svc := func(args ...string) result { return cli(t, vars, "", args...) }
	fails := func(r result) string {
		t.Helper()
		require.Equal(t, exitAPI, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		requireSaidOnce(t, r.stderr)
		return r.stderr
	}
	const req = ` \[req_\S+\]\n$`

	// A cancelled run: "run … cancelled", not "cancelled: cancelled: the run was cancelled".
	r := svc("--json", "runs", "create", "--service", "managed-workflows", "--operation", "sleep", "--input", `{"seconds":600}`)
	require.Equal(t, exitOK, r.code, r.stderr)
	var created struct {
		Run struct{ ID string } `json:"run"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &created))
	sleep := created.Run.ID
	require.Eventually(t, func() bool {
		return regexp.MustCompile(`Status:\s+running`).MatchString(svc("runs", "get", sleep).stdout)
	}, 20*time.Second, 20*time.Millisecond)
	require.Equal(t, exitOK, svc("runs", "cancel", sleep).code)
	require.Eventually(t, func() bool {
		return regexp.MustCompile(`Status:\s+cancelled`).MatchString(svc("runs", "get", sleep).stdout)
	}, 20*time.Second, 20*time.Millisecond)
	r = svc("runs", "watch", sleep)
	require.Equal(t, "error: run "+sleep+" cancelled\n", fails(r))
	require.NotContains(t, r.stdout, "Error:", "the status says it all")

	// A decided approval: the message names the approval, so no "(approvalId)".
	r = svc("runs", "create", "--service", "managed-workflows", "--operation", "echo", "--require-approval")
	require.Equal(t, exitOK, r.code, r.stderr)
	apr := regexp.MustCompile(`Approval:\s+(apr_\S+)`).FindStringSubmatch(r.stdout)
	require.NotNil(t, apr, r.stdout)
	run := regexp.MustCompile(`Run:\s+(run_\S+)`).FindStringSubmatch(r.stdout)[1]
	require.Equal(t, exitOK, svc("approvals", "reject", apr[1]).code)
	require.Regexp(t, `^error: conflict: approval `+apr[1]+` is already rejected`+req, fails(svc("approvals", "reject", apr[1])))
	require.Eventually(t, func() bool {
		return regexp.MustCompile(`Status:\s+failed`).MatchString(svc("runs", "get", run).stdout)
	}, 20*time.Second, 20*time.Millisecond)
	require.Equal(t, "error: run "+run+" failed: approval_rejected: the approval "+apr[1]+" was rejected\n",
		fails(svc("runs", "watch", run)))

	// Field errors whose message names the field, and a reused Idempotency-Key.
	require.Regexp(t, `^error: invalid_request: expiresInSeconds must be between 1 and 604800`+req,
		fails(svc("approvals", "request", "--service", "managed-workflows", "--operation", "echo", "--expires-in", "169h")))
	require.Regexp(t, `^error: invalid_request: approvalExpiresInSeconds applies only to a run that requires approval`+req,
		fails(svc("runs", "create", "--service", "managed-workflows", "--operation", "echo", "--approval-expires-in", "1h")))
	require.Regexp(t, `^error: invalid_request: cursor is not one this API issued`+req, fails(svc("runs", "list", "--cursor", "nope")))
	require.Equal(t, exitOK, svc("runs", "create", "--service", "managed-workflows", "--operation", "echo",
		"--idempotency-key", "once").code)
	require.Regexp(t, `^error: idempotency_key_reused: this Idempotency-Key was used with another request \(POST /v1/runs or another body\)`+req,
		fails(svc("runs", "create", "--service", "managed-workflows", "--operation", "echo", "--input", `{"x":1}`,
			"--idempotency-key", "once")))

	// A spent limit: the message says when to retry, once.
	r = svc("--json", "keys", "create", "--name", "capped", "--limit", "runs.create=1/min")
	require.Equal(t, exitOK, r.code, r.stderr)
	var capped struct {
		APIKey struct{ Secret string } `json:"apiKey"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &capped))
	cappedVars := maps.Clone(vars)
	cappedVars["SVC_API_KEY"] = capped.APIKey.Secret
	echo := []string{"runs", "create", "--service", "managed-workflows", "--operation", "echo"}
	require.Equal(t, exitOK, cli(t, cappedVars, "", echo...).code)
	require.Regexp(t, `^error: limit_exceeded: the limit on runs.create is spent for now; retry in \d+ s`+req,
		fails(cli(t, cappedVars, "", echo...)))

	// A param the message does not name is still shown: which scope of the list was wrong.
	require.Regexp(t, `^error: invalid_request: unknown scope "runs:fly" \(scopes\[0\]\)`+req,
		fails(svc("keys", "create", "--scope", "runs:fly")))
}

// TestErrorLineNamesTheParamOnce: the error line shows the param only when the message does not name it.
func TestErrorLineNamesTheParamOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		e    client.Error
		want string
	}{
		{client.Error{Code: "conflict", Message: "approval apr_1 is already approved", Param: "approvalId", RequestID: "req_1"},
			"error: conflict: approval apr_1 is already approved [req_1]"},
		{client.Error{Code: "idempotency_in_flight", Message: "a request with this Idempotency-Key is still being processed", Param: "Idempotency-Key"},
			"error: idempotency_in_flight: a request with this Idempotency-Key is still being processed"},
		{client.Error{Code: "invalid_request", Message: "expiresInSeconds: expected number <= 604800", Param: "expiresInSeconds"},
			"error: invalid_request: expiresInSeconds: expected number <= 604800"},
		{client.Error{Code: "conflict", Message: `connection "x" is disabled; enable it before use`, Param: "connectionId"},
			`error: conflict: connection "x" is disabled; enable it before use`},
		{client.Error{Code: "invalid_request", Message: `unknown scope "runs:fly"`, Param: "scopes[0]"},
			`error: invalid_request: unknown scope "runs:fly" (scopes[0])`},
		{client.Error{Code: "payment_required", Message: "this payment authorization was already used", Param: "Payment-Signature"},
			"error: payment_required: this payment authorization was already used (Payment-Signature)"},
		{client.Error{Code: "not_found", Message: "no run"}, "error: not_found: no run"},
	} {
		var stderr strings.Builder
		(&app{stderr: &stderr}).printErrorLine(&c.e)
		require.Equal(t, c.want+"\n", stderr.String())
	}
}
