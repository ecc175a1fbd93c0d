package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestServicesInvoke(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	r := cli(t, env, "", "services", "invoke", "weather", "--operation", "forecast", "--input", `{"city":"Oslo","n":12345678901234567890}`,
		"--idempotency-key", "idem-i")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Empty(t, r.stderr)
	require.Regexp(t, `^Service:\s+weather\nOperation:\s+forecast\nStatus:\s+200 OK\nCharged:\s+0\.25 credits\n`+
		`Upstream request:\s+up_123\nRequest:\s+req_fake\nResult:\n\{\n  "city": \{\n    "city": "Oslo",\n`, r.stdout)
	require.Contains(t, r.stdout, `  "tempC": 21.5`+"\n}\n")
	body, hdr := f.last()
	require.Equal(t, "idem-i", hdr.Get("Idempotency-Key"))
	require.Equal(t, "forecast", body["operationId"])
	require.Contains(t, f.requests, "POST /v1/services/weather/invoke")

	// No upstream request id: no line; a string result is shown as JSON.
	r = cli(t, env, "", "services", "invoke", "weather", "--operation", "text")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NotContains(t, r.stdout, "Upstream request")
	require.Contains(t, r.stdout, "Result:\n\"plain text\"\n")

	// --json prints the envelope as received.
	r = cli(t, env, "", "--json", "services", "invoke", "weather", "--operation", "forecast")
	require.Equal(t, exitOK, r.code, r.stderr)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
	require.Equal(t, true, v["ok"])
	require.EqualValues(t, 200, v["status"])
	require.EqualValues(t, 0.25, v["chargedCredits"])

	// --input-file - reads stdin, keeping big numbers exact.
	r = cli(t, env, `{"city":"Bergen","n":12345678901234567890}`, "services", "invoke", "weather", "--operation", "forecast", "--input-file", "-")
	require.Equal(t, exitOK, r.code, r.stderr)
	f.mu.Lock()
	raw := f.lastRaw
	f.mu.Unlock()
	require.JSONEq(t, `{"operationId":"forecast","input":{"city":"Bergen","n":12345678901234567890}}`, raw)
	require.Contains(t, raw, "12345678901234567890")

	// The service answering >= 400: the result is still shown, stderr says so, exit 1.
	r = cli(t, env, "", "services", "invoke", "weather", "--operation", "broken")
	require.Equal(t, exitAPI, r.code)
	require.Regexp(t, `Status:\s+502 Bad Gateway\n`, r.stdout)
	require.Regexp(t, `Charged:\s+0 credits\n`, r.stdout)
	require.Contains(t, r.stdout, `"error": "upstream exploded"`)
	require.Contains(t, r.stderr, "error: service answered 502 Bad Gateway")
	r = cli(t, env, "", "services", "invoke", "weather", "--operation", "broken", "--json")
	require.Equal(t, exitAPI, r.code)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
	require.Equal(t, true, v["ok"])
	require.EqualValues(t, 502, v["status"])
	require.Contains(t, r.stderr, "service answered 502")
}

func TestServicesInvokeErrors(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey

	// Usage errors exit 2, name the flag and send nothing.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"services"}, "Usage: svc services"},
		{[]string{"services", "bogus"}, `unknown command "services bogus"`},
		{[]string{"services", "invoke", "--operation", "forecast"}, "exactly one service id"},
		{[]string{"services", "invoke", "a", "b", "--operation", "forecast"}, "exactly one service id"},
		{[]string{"services", "invoke", "weather"}, "--operation is required"},
		{[]string{"services", "invoke", "weather", "--operation", "o", "--input", "{bad"}, "input: not valid JSON"},
		{[]string{"services", "invoke", "weather", "--operation", "o", "--input", "[1]"}, "must be a JSON object"},
		{[]string{"services", "invoke", "weather", "--operation", "o", "--input", "{}", "--input-file", "x"}, "use --input or --input-file, not both"},
		{[]string{"services", "invoke", "weather", "--operation", "o", "--input-file", "/nonexistent/in.json"}, "--input-file"},
		{[]string{"services", "invoke", "weather", "--operation", "o", "--idempotency-key"}, "-idempotency-key"},
	} {
		r := cli(t, env, "", tc.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
		require.Empty(t, r.stdout, tc.args)
	}
	require.Empty(t, f.requests, "usage errors are found before any request")

	// API errors exit 1.
	r := cli(t, env, "", "services", "invoke", "nope", "--operation", "forecast")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, `error: not_found: no invocable service "nope" [req_fake]`+"\n", r.stderr)
	require.Empty(t, r.stdout)
	r = cli(t, env, "", "services", "invoke", "weather", "--operation", "missing", "--json")
	require.Equal(t, exitAPI, r.code)
	var e map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), r.stdout)
	require.Equal(t, false, e["ok"])
	require.Equal(t, "operationId", e["error"].(map[string]any)["param"])
	require.Contains(t, r.stderr, "error: invalid_request: ")

	env["SVC_API_KEY"] = servicesKey
	r = cli(t, env, "", "services", "invoke", "weather", "--operation", "forecast")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, "error: scope_missing: this key lacks scope services:invoke [req_fake]\n", r.stderr)
}
