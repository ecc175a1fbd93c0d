package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/gateway"
)

// catalogEnv is a platform whose catalog also holds the external generation service "imagegen" (1
// credit a call), served by a real upstream that answers its preflight.
func catalogEnv(t *testing.T) *apptest.Env {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"ok":true}`)) })
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"data":[{"id":"tiny-diffusion"}]}`))
	})
	up := httptest.NewServer(mux)
	t.Cleanup(up.Close)
	cat, err := gateway.Parse([]byte(fmt.Sprintf(`
services:
  - id: imagegen
    name: Image generation
    baseUrl: %s
    contract: generation
    connection: imagegen-key
    timeout: 5s
    operations:
      - id: generate
        method: POST
        path: /v1/images
        credits: 1
`, up.URL)))
	require.NoError(t, err)
	return apptest.NewWith(t, apptest.Options{Gateway: cat})
}

// TestCLICatalog: services list, capabilities and pricing against the real server: tables by default,
// the envelope with --json, a key narrowed to one service sees only it, and pricing needs no key.
func TestCLICatalog(t *testing.T) {
	t.Parallel()
	env := catalogEnv(t)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	svc := func(args ...string) result { return cli(t, vars, "", args...) }
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		require.Empty(t, r.stderr)
		return r.stdout
	}

	// services list: every service the key may use, built-in and external.
	out := ok(svc("services", "list"))
	require.Regexp(t, `(?m)^ID\s+NAME\s+AVAILABLE\s+OPERATIONS\s+DESCRIPTION$`, out)
	require.Regexp(t, `(?m)^managed-workflows\s+Managed workflows\s+yes\s+2\s+Durable runs`, out)
	require.Regexp(t, `(?m)^managed-agents\s+Managed agents\s+no\s+1\s+`, out)
	require.Regexp(t, `(?m)^imagegen\s+Image generation\s+yes\s+1\s+`, out)
	require.Contains(t, out, "svc capabilities SERVICE_ID")
	var list struct {
		OK       bool `json:"ok"`
		Services []struct {
			ID string `json:"id"`
		} `json:"services"`
	}
	require.NoError(t, json.Unmarshal([]byte(ok(svc("--json", "services", "list"))), &list))
	require.True(t, list.OK)
	require.Contains(t, fmt.Sprint(list.Services), "imagegen")

	// capabilities: every operation, one line each.
	out = ok(svc("capabilities"))
	require.Regexp(t, `(?m)^SERVICE\s+OPERATION\s+KIND\s+APPROVAL\s+AVAILABLE\s+DESCRIPTION$`, out)
	require.Regexp(t, `(?m)^managed-workflows\s+echo\s+run\s+-\s+yes\s+Completes with its input`, out)
	require.Regexp(t, `(?m)^managed-workflows\s+sleep\s+run\s+-\s+yes\s+`, out)
	require.Regexp(t, `(?m)^imagegen\s+generate\s+invoke\s+-\s+yes`, out)

	// capabilities SERVICE_ID: one service; an external generation service with its preflight, checked
	// with the caller's connection.
	out = ok(svc("capabilities", "managed-workflows"))
	require.Regexp(t, `Service:\s+managed-workflows \(Managed workflows\)\n`, out)
	require.Regexp(t, `Available:\s+yes\n`, out)
	require.Regexp(t, `(?m)^managed-workflows\s+sleep\s+run\s+`, out)
	require.NotContains(t, out, "imagegen")
	require.NotContains(t, out, "Preflight")
	r := cli(t, vars, "up-secret", "connections", "create", "--name", "imagegen-key", "--auth-type", "header",
		"--header-name", "X-Api-Key", "--secret-stdin")
	require.Equal(t, exitOK, r.code, r.stderr)
	out = ok(svc("capabilities", "imagegen"))
	require.Regexp(t, `Service:\s+imagegen \(Image generation\)\n`, out)
	require.Regexp(t, `(?m)^imagegen\s+generate\s+invoke\s+-\s+yes`, out)
	require.Contains(t, out, "Preflight: ok\n")
	require.Regexp(t, `GET /health\s+200 OK\s+\d+ ms\n`, out)
	require.Regexp(t, `GET /v1/models\s+200 OK\s+\d+ ms\n`, out)
	require.Contains(t, out, "Models: tiny-diffusion\n")
	caps := jsonField(t, result{stdout: ok(svc("--json", "capabilities", "imagegen"))}, "preflight")
	require.Equal(t, true, caps["ok"])
	r = svc("capabilities", "nope")
	require.Equal(t, exitAPI, r.code)
	require.Regexp(t, `^error: not_found: no service "nope" \[req_\S+\]\n$`, r.stderr)
	require.Empty(t, r.stdout)

	// A key narrowed to managed-workflows sees only it, and may not read imagegen.
	k := jsonField(t, result{stdout: ok(svc("--json", "keys", "create", "--name", "narrow", "--scope", "services:read",
		"--service", "managed-workflows"))}, "apiKey")
	narrow := maps.Clone(vars)
	narrow["SVC_API_KEY"] = k["secret"].(string)
	out = ok(cli(t, narrow, "", "services", "list"))
	require.Contains(t, out, "managed-workflows")
	require.NotContains(t, out, "imagegen")
	require.NotContains(t, ok(cli(t, narrow, "", "capabilities")), "imagegen")
	r = cli(t, narrow, "", "capabilities", "imagegen")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: service_access_denied: ")

	// pricing: public, every operation's price in credits, or one service's.
	public := maps.Clone(vars)
	delete(public, "SVC_API_KEY")
	out = ok(cli(t, public, "", "pricing"))
	require.Regexp(t, `(?m)^SERVICE\s+OPERATION\s+CREDITS\s+UNIT\s+AVAILABLE$`, out)
	require.Regexp(t, `(?m)^platform-api\s+\*\s+0\s+request\s+yes$`, out)
	require.Regexp(t, `(?m)^managed-workflows\s+echo\s+0\s+run\s+yes$`, out)
	require.Regexp(t, `(?m)^managed-agents\s+agents\.prompt\s+1\s+run\s+no$`, out)
	require.Regexp(t, `(?m)^imagegen\s+generate\s+1\s+call\s+yes$`, out)
	require.Contains(t, out, "1 USD = 100 credits.\n")
	out = ok(cli(t, public, "", "pricing", "--service", "managed-workflows"))
	require.Regexp(t, `(?m)^managed-workflows\s+sleep\s+`, out)
	require.NotRegexp(t, `(?m)^(platform-api|imagegen|managed-agents)\s`, out)
	var prices struct {
		CreditsPerUSD int `json:"creditsPerUsd"`
		Prices        []struct {
			ServiceID string `json:"serviceId"`
		} `json:"prices"`
	}
	require.NoError(t, json.Unmarshal([]byte(ok(cli(t, public, "", "--json", "pricing", "--service", "managed-agents"))), &prices))
	require.Equal(t, 100, prices.CreditsPerUSD)
	require.Len(t, prices.Prices, 1)
	require.Equal(t, "managed-agents", prices.Prices[0].ServiceID)
	r = cli(t, public, "", "pricing", "--service", "gold")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: invalid_request: ")
	r = cli(t, public, "", "services", "list")
	require.Equal(t, exitAPI, r.code, "the catalog of services needs a key")
	require.Contains(t, r.stderr, "no API key")

	// Usage errors exit 2 and send nothing.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capabilities", "a", "b"}, "capabilities takes at most one service id"},
		{[]string{"capabilities", " "}, "the service id is empty"},
		{[]string{"services", "list", "extra"}, `unexpected argument "extra"`},
		{[]string{"pricing", "extra"}, `unexpected argument "extra"`},
		{[]string{"pricing", "--service", ""}, "--service must not be empty"},
		{[]string{"pricing", "--servce", "x"}, "did you mean --service?"},
		{[]string{"capabilites"}, `did you mean "capabilities"?`},
	} {
		r := svc(c.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.want, c.args)
	}
	require.Contains(t, ok(svc("help", "pricing")), "Usage: svc pricing")
	require.Contains(t, ok(svc("services", "--help")), "services list")
	require.Contains(t, ok(svc("help")), "capabilities [ID]")
}
