package main

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// webhookSecretRE finds the secret in the banner webhooks create and rotate-secret print.
var webhookSecretRE = regexp.MustCompile(`(?m)^  SECRET:  (whsec_\S+)$`)

// onceWarning is the line that says a secret is shown only once.
const onceWarning = "WARNING: this secret is shown only once and cannot be retrieved again. Store it now."

// TestCLIWebhooks manages endpoints against the real server: create prints the secret once (and --json
// carries it), an idempotent retry answers the same secret, list shows endpoints without secrets and
// pages, update changes only what is given, rotate-secret prints a new secret and when the old one stops
// signing, delete disables and update --enable enables again; the server's refusals name the field.
func TestCLIWebhooks(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	svc := func(args ...string) result { return cli(t, vars, "", args...) }
	ok := func(r result) result {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r
	}

	require.Equal(t, "No webhooks.\n", ok(svc("webhooks", "list")).stdout)

	// Create: the endpoint, then its secret once, with the warning.
	r := ok(svc("webhooks", "create", "--url", "http://127.0.0.1:9/hooks/a", "--event", "run.succeeded,run.failed",
		"--event", "approval.requested", "--description", "first", "--idempotency-key", "whk-create-1"))
	m := regexp.MustCompile(`^Created webhook (whk_\S+)\n`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	id1 := m[1]
	require.Regexp(t, `URL:\s+http://127\.0\.0\.1:9/hooks/a\n`, r.stdout)
	require.Regexp(t, `Events:\s+run\.succeeded, run\.failed, approval\.requested\n`, r.stdout)
	require.Regexp(t, `Description:\s+first\n`, r.stdout)
	require.Regexp(t, `Enabled:\s+yes\n`, r.stdout)
	secrets := webhookSecretRE.FindAllStringSubmatch(r.stdout, -1)
	require.Len(t, secrets, 1, "the secret is printed once: %s", r.stdout)
	secret1 := secrets[0][1]
	require.Equal(t, 1, strings.Count(r.stdout, secret1))
	require.Contains(t, r.stdout, onceWarning)
	require.Empty(t, r.stderr)

	// The same Idempotency-Key answers the same endpoint and secret, marked as replayed.
	r = ok(svc("webhooks", "create", "--url", "http://127.0.0.1:9/hooks/a", "--event", "run.succeeded,run.failed",
		"--event", "approval.requested", "--description", "first", "--idempotency-key", "whk-create-1"))
	require.Contains(t, r.stdout, "Created webhook "+id1+" [replayed answer]\n")
	require.Contains(t, r.stdout, "  SECRET:  "+secret1+"\n")

	// --json: the envelope alone, with the secret.
	r = ok(svc("--json", "webhooks", "create", "--url", "http://127.0.0.1:9/hooks/b", "--event", "*"))
	w2 := jsonField(t, r, "webhook")
	id2, secret2 := w2["id"].(string), w2["secret"].(string)
	require.True(t, strings.HasPrefix(secret2, client.WebhookSecretPrefix), secret2)
	require.NotEqual(t, secret1, secret2)
	require.Equal(t, []any{"*"}, w2["events"])
	require.Equal(t, true, w2["enabled"])

	// List: newest first, never a secret; pages with a hint; --all --json collects every page.
	r = ok(svc("webhooks", "list"))
	require.Regexp(t, `(?m)^ID\s+URL\s+EVENTS\s+ENABLED\s+CREATED$`, r.stdout)
	require.Regexp(t, `(?s)`+id2+`\s+http://127\.0\.0\.1:9/hooks/b\s+\*\s+yes\s+\d{4}-.*`+
		id1+`\s+http://127\.0\.0\.1:9/hooks/a\s+run\.succeeded,run\.failed,approval\.requested\s+yes\s+\d{4}-`, r.stdout)
	require.NotContains(t, r.stdout, "whsec_")
	r = ok(svc("webhooks", "list", "--limit", "1"))
	require.Contains(t, r.stdout, id2)
	require.NotContains(t, r.stdout, id1)
	more := regexp.MustCompile(`More webhooks: svc webhooks list --limit 1 --cursor (\S+)`).FindStringSubmatch(r.stdout)
	require.NotNil(t, more, r.stdout)
	r = ok(svc("webhooks", "list", "--limit", "1", "--cursor", strings.Trim(more[1], "'")))
	require.Contains(t, r.stdout, id1)
	require.NotContains(t, r.stdout, id2)
	var listed client.WebhookList
	r = ok(svc("--json", "webhooks", "list", "--limit", "1", "--all"))
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &listed), r.stdout)
	require.Len(t, listed.Webhooks, 2)
	require.Nil(t, listed.NextCursor)
	require.NotContains(t, r.stdout, "whsec_")

	// Update: only what is given changes.
	r = ok(svc("webhooks", "update", id1, "--url", "http://127.0.0.1:9/hooks/c", "--event", "run.created"))
	require.Contains(t, r.stdout, "Updated webhook "+id1+"\n")
	require.Regexp(t, `URL:\s+http://127\.0\.0\.1:9/hooks/c\n`, r.stdout)
	require.Regexp(t, `Events:\s+run\.created\n`, r.stdout)
	require.Regexp(t, `Description:\s+first\n`, r.stdout, "the description stays")
	require.NotContains(t, r.stdout, "whsec_")
	r = ok(svc("webhooks", "update", id1, "--description", ""))
	require.NotContains(t, r.stdout, "Description:", "--description \"\" clears it")
	require.Regexp(t, `Events:\s+run\.created\n`, r.stdout)
	r = ok(svc("webhooks", "update", id1, "--disable"))
	require.Regexp(t, `Enabled:\s+no`, r.stdout)
	r = ok(svc("webhooks", "update", id1, "--enable"))
	require.Regexp(t, `Enabled:\s+yes\n`, r.stdout)

	// Rotate: a new secret, printed once, and when the previous one stops signing.
	r = ok(svc("webhooks", "rotate-secret", id1))
	require.Contains(t, r.stdout, "Rotated the secret of webhook "+id1+"\n")
	secrets = webhookSecretRE.FindAllStringSubmatch(r.stdout, -1)
	require.Len(t, secrets, 1, r.stdout)
	rotated := secrets[0][1]
	require.NotEqual(t, secret1, rotated)
	require.NotContains(t, r.stdout, secret1, "the previous secret is not shown")
	require.Contains(t, r.stdout, onceWarning)
	until := regexp.MustCompile(`The previous secret keeps signing deliveries, beside the new one, until (\S+) \(in (\S+)\); then only the new secret signs\.`).
		FindStringSubmatch(r.stdout)
	require.NotNil(t, until, r.stdout)
	expires, err := time.Parse(time.RFC3339, until[1])
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(24*time.Hour), expires, time.Minute)
	r = ok(svc("--json", "webhooks", "rotate-secret", id1, "--idempotency-key", "whk-rotate-2"))
	w := jsonField(t, r, "webhook")
	latest := w["secret"].(string)
	require.NotEqual(t, rotated, latest)
	require.NotEmpty(t, w["previousSecretExpiresAt"])

	// Delete disables: the endpoint stays listed, disabled, and can be enabled again.
	r = ok(svc("webhooks", "delete", id2))
	require.Contains(t, r.stdout, "Disabled webhook "+id2+"\n")
	require.Regexp(t, `Enabled:\s+no`, r.stdout)
	require.Contains(t, r.stdout, "Enable it again with: svc webhooks update "+id2+" --enable")
	require.Regexp(t, id2+`\s+http://127\.0\.0\.1:9/hooks/b\s+\*\s+no\s+`, ok(svc("webhooks", "list")).stdout)
	r = ok(svc("--json", "webhooks", "delete", id2))
	require.Equal(t, false, jsonField(t, r, "webhook")["enabled"])

	// The server's refusals name the field, exit 1, and store nothing.
	for _, c := range []struct {
		args  []string
		param string
		want  string
	}{
		{[]string{"webhooks", "create", "--url", "ftp://x", "--event", "run.succeeded"}, "url", "url must"},
		{[]string{"webhooks", "create", "--url", "not a url", "--event", "run.succeeded"}, "url", "url"},
		{[]string{"webhooks", "create", "--url", "http://10.0.0.1/hook", "--event", "run.succeeded"}, "url", "private"},
		{[]string{"webhooks", "create", "--url", "http://169.254.169.254/x", "--event", "*"}, "url", "url host"},
		{[]string{"webhooks", "create", "--url", "http://127.0.0.1:9/x", "--event", "run.bogus"}, "events", `unknown event type "run.bogus"`},
		{[]string{"webhooks", "create", "--url", "http://127.0.0.1:9/x", "--event", "*,run.created"}, "events", `"*"`},
		{[]string{"webhooks", "create", "--url", "http://127.0.0.1:9/x", "--event", "*", "--description", strings.Repeat("d", 1001)}, "description", "description"},
		{[]string{"webhooks", "update", id1, "--event", "run.bogus"}, "events", "unknown event type"},
		{[]string{"webhooks", "update", id1, "--url", "ftp://x"}, "url", "url must"},
	} {
		r := svc(c.args...)
		require.Equal(t, exitAPI, r.code, "%v: %s", c.args, r.stdout)
		require.Empty(t, r.stdout, c.args)
		require.Contains(t, r.stderr, "error: invalid_request: ", c.args)
		require.Contains(t, r.stderr, c.param, "the line names the field (once: %v)", c.args)
		requireSaidOnce(t, r.stderr)
		require.Contains(t, r.stderr, c.want, c.args)
	}
	r = svc("--json", "webhooks", "create", "--url", "ftp://x", "--event", "run.succeeded")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, "url", jsonField(t, r, "error")["param"])
	require.NoError(t, json.Unmarshal([]byte(ok(svc("--json", "webhooks", "list", "--all")).stdout), &listed))
	require.Len(t, listed.Webhooks, 2, "refused endpoints are not stored")
	require.Equal(t, "http://127.0.0.1:9/hooks/c", listed.Webhooks[1].URL, "a refused update changes nothing")

	// Unknown ids and keys without the scopes.
	for _, args := range [][]string{
		{"webhooks", "update", "whk_missing", "--enable"}, {"webhooks", "rotate-secret", "whk_missing"}, {"webhooks", "delete", "whk_missing"},
	} {
		r := svc(args...)
		require.Equal(t, exitAPI, r.code, args)
		require.Contains(t, r.stderr, "error: not_found: ", args)
	}
	k := jsonField(t, ok(svc("--json", "keys", "create", "--name", "reader", "--scope", "webhooks:read")), "apiKey")
	readerVars := maps.Clone(vars)
	readerVars["SVC_API_KEY"] = k["secret"].(string)
	require.Contains(t, ok(cli(t, readerVars, "", "webhooks", "list")).stdout, id1)
	r = cli(t, readerVars, "", "webhooks", "create", "--url", "http://127.0.0.1:9/x", "--event", "*")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: scope_missing: ")

	// verify accepts a delivery signed with the secret the server gave, and only with it.
	body := []byte(`{"id":"evt_cli_1","type":"run.succeeded","createdAt":"2026-01-02T03:04:05Z","data":{"id":"run_1"}}`)
	h, err := client.SignWebhook([]string{latest}, "evt_cli_1", time.Now(), body)
	require.NoError(t, err)
	dir := t.TempDir()
	bodyFile := filepath.Join(dir, "delivery.json")
	require.NoError(t, os.WriteFile(bodyFile, body, 0o600))
	verifyVars := map[string]string{"SVC_WEBHOOK_SECRET": latest, "OLD_SECRET": secret1}
	verifyArgs := []string{"webhooks", "verify", "--body-file", bodyFile, "--header", client.HeaderSvcSignature + ": " + h.Get(client.HeaderSvcSignature)}
	r = cli(t, verifyVars, "", append(verifyArgs, "--secret-env", "SVC_WEBHOOK_SECRET")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `Event:\s+evt_cli_1\n`, r.stdout)
	require.Regexp(t, `Type:\s+run\.succeeded\n`, r.stdout)
	r = cli(t, verifyVars, "", append(verifyArgs, "--secret-env", "OLD_SECRET")...)
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: verification_failed: webhook: no matching signature")
}

// signedDelivery signs body as event evtID at ts with secrets and returns the --header flags of the
// delivery (both schemes) and the path of a file holding the body.
func signedDelivery(t *testing.T, secrets []string, evtID string, ts time.Time, body string) ([]string, string) {
	t.Helper()
	h, err := client.SignWebhook(secrets, evtID, ts, []byte(body))
	require.NoError(t, err)
	var flags []string
	for _, name := range []string{client.HeaderSvcSignature, client.HeaderWebhookID, client.HeaderWebhookTimestamp, client.HeaderWebhookSignature} {
		flags = append(flags, "--header", name+": "+h.Get(name))
	}
	path := filepath.Join(t.TempDir(), "body.json")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return slices.Clip(flags), path
}

// TestWebhooksVerify: a delivery signed with client.SignWebhook verifies (also from stdin, during a
// rotation, and with --json), and a tampered body, another secret, a missing signature header, an old
// timestamp or a body that is no event exits 1 naming the failure. No API key is needed.
func TestWebhooksVerify(t *testing.T) {
	t.Parallel()
	secret, err := client.NewWebhookSecret()
	require.NoError(t, err)
	other, err := client.NewWebhookSecret()
	require.NoError(t, err)
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "WH_SECRET": secret, "WH_OTHER": other,
		"WH_BAD": "not-a-secret"}
	const body = `{"id":"evt_1","type":"approval.decided","createdAt":"2026-01-02T03:04:05Z","data":{"id":"apr_1","status":"approved"}}`
	headers, file := signedDelivery(t, []string{secret}, "evt_1", time.Now(), body)
	verify := func(stdin string, args ...string) result {
		return cli(t, env, stdin, append([]string{"webhooks", "verify"}, args...)...)
	}

	r := verify("", append(headers, "--secret-env", "WH_SECRET", "--body-file", file)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, "Verified: the delivery is signed with the secret in WH_SECRET.\n"+
		"Event:    evt_1\nType:     approval.decided\nCreated:  2026-01-02T03:04:05Z\nData:     {\"id\":\"apr_1\",\"status\":\"approved\"}\n", r.stdout)
	require.Empty(t, r.stderr)
	require.NotContains(t, r.stdout, secret)

	// From stdin, with only the Standard Webhooks headers, and with --json.
	r = verify(body, append(headers[2:], "--secret-env", "WH_SECRET", "--body-file", "-", "--json")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	ev := jsonField(t, r, "event")
	require.Equal(t, "evt_1", ev["id"])
	require.Equal(t, "approval.decided", ev["type"])
	require.Equal(t, map[string]any{"id": "apr_1", "status": "approved"}, ev["data"])

	// During a rotation both secrets verify.
	rotHeaders, rotFile := signedDelivery(t, []string{other, secret}, "evt_1", time.Now(), body)
	for _, v := range []string{"WH_SECRET", "WH_OTHER"} {
		r = verify("", append(rotHeaders, "--secret-env", v, "--body-file", rotFile)...)
		require.Equal(t, exitOK, r.code, "%s: %s", v, r.stderr)
	}

	// An old delivery fails with the default tolerance and passes with a wider one.
	oldHeaders, oldFile := signedDelivery(t, []string{secret}, "evt_1", time.Now().Add(-time.Hour), body)
	r = verify("", append(oldHeaders, "--secret-env", "WH_SECRET", "--body-file", oldFile)...)
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: verification_failed: webhook: timestamp outside tolerance")
	r = verify("", append(oldHeaders, "--secret-env", "WH_SECRET", "--body-file", oldFile, "--tolerance", "2h")...)
	require.Equal(t, exitOK, r.code, r.stderr)

	tampered := filepath.Join(t.TempDir(), "tampered.json")
	require.NoError(t, os.WriteFile(tampered, []byte(strings.Replace(body, "approved", "rejected", 1)), 0o600))
	notEvent := `{"hello":"world"}`
	neHeaders, neFile := signedDelivery(t, []string{secret}, "evt_1", time.Now(), notEvent)
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"tampered body", "", append(headers, "--secret-env", "WH_SECRET", "--body-file", tampered), "webhook: no matching signature"},
		{"tampered stdin", body + " ", append(headers, "--secret-env", "WH_SECRET", "--body-file", "-"), "webhook: no matching signature"},
		{"another secret", "", append(headers, "--secret-env", "WH_OTHER", "--body-file", file), "webhook: no matching signature"},
		{"malformed secret", "", append(headers, "--secret-env", "WH_BAD", "--body-file", file), "webhook: malformed secret"},
		{"no signature header", "", []string{"--header", "Content-Type: application/json", "--secret-env", "WH_SECRET", "--body-file", file},
			"webhook: missing header"},
		{"partial standard headers", "", append(headers[2:4:4], "--secret-env", "WH_SECRET", "--body-file", file), "webhook: missing header"},
		{"not an event", "", append(neHeaders, "--secret-env", "WH_SECRET", "--body-file", neFile), "webhook: invalid event payload"},
	} {
		r := verify(c.stdin, c.args...)
		require.Equal(t, exitAPI, r.code, "%s: %s", c.name, r.stdout)
		require.Empty(t, r.stdout, c.name)
		require.True(t, strings.HasPrefix(r.stderr, "error: verification_failed: "+c.want), "%s: %s", c.name, r.stderr)
	}
	r = verify("", append(headers, "--secret-env", "WH_SECRET", "--body-file", tampered, "--json")...)
	require.Equal(t, exitAPI, r.code)
	e := jsonField(t, r, "error")
	require.Equal(t, "verification_failed", e["code"])
	require.Contains(t, e["message"], "no matching signature")
}

// TestWebhooksUsageErrors: missing or bad flags and arguments exit 2 naming the problem, before any
// request.
func TestWebhooksUsageErrors(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	env["WH_SECRET"] = "whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
	body := filepath.Join(t.TempDir(), "body.json")
	require.NoError(t, os.WriteFile(body, []byte(`{}`), 0o600))
	verify := []string{"webhooks", "verify", "--secret-env", "WH_SECRET", "--header", "X-Svc-Signature: t=1,v1=00"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"webhooks"}, "Usage: svc webhooks <list|create|update|rotate-secret|delete|verify|listen|deliveries|replay>"},
		{[]string{"webhooks", "bogus"}, `unknown command "webhooks bogus"`},
		{[]string{"webhooks", "list", "whk_1"}, `unexpected argument "whk_1"`},
		{[]string{"webhooks", "list", "--limit", "500"}, "--limit must be between 1 and 200"},
		{[]string{"webhooks", "create", "--event", "*"}, "--url is required"},
		{[]string{"webhooks", "create", "--url", " ", "--event", "*"}, "--url must not be empty"},
		{[]string{"webhooks", "create", "--url", "https://example.com/h"}, "--event is required"},
		{[]string{"webhooks", "create", "--url", "https://example.com/h", "--event", ","}, "--event must name at least one event type"},
		{[]string{"webhooks", "create", "--url", "https://example.com/h", "--event", "*", "extra"}, `unexpected argument "extra"`},
		{[]string{"webhooks", "create", "--url"}, "flag needs an argument: -url"},
		{[]string{"webhooks", "update"}, "webhooks update takes exactly one webhook id"},
		{[]string{"webhooks", "update", "whk_1", "whk_2", "--enable"}, "webhooks update takes exactly one webhook id"},
		{[]string{"webhooks", "update", "whk_1"}, "nothing to change"},
		{[]string{"webhooks", "update", "whk_1", "--enable=false"}, "nothing to change"},
		{[]string{"webhooks", "update", "whk_1", "--enable", "--disable"}, "use --enable or --disable, not both"},
		{[]string{"webhooks", "update", "whk_1", "--url", ""}, "--url must not be empty"},
		{[]string{"webhooks", "update", "whk_1", "--event", ""}, "--event must name at least one event type"},
		{[]string{"webhooks", "rotate-secret"}, "webhooks rotate-secret takes exactly one webhook id"},
		{[]string{"webhooks", "rotate-secret", " "}, "webhooks rotate-secret takes exactly one webhook id"},
		{[]string{"webhooks", "delete"}, "webhooks delete takes exactly one webhook id"},
		{[]string{"webhooks", "delete", "whk_1", "--bogus"}, "unknown flag --bogus"},
		{[]string{"webhooks", "verify", "--header", "A: b", "--body-file", body}, "--secret-env is required"},
		{[]string{"webhooks", "verify", "--secret-env", "WH_SECRET", "--body-file", body}, "--header is required"},
		{verify, "--body-file is required"},
		{[]string{"webhooks", "verify", "--secret-env", "WH_SECRET", "--header", "no colon", "--body-file", body}, `"no colon" is not a header`},
		{[]string{"webhooks", "verify", "--secret-env", "WH_SECRET", "--header", "Bad Name: x", "--body-file", body}, `"Bad Name" is not a valid header name`},
		{[]string{"webhooks", "verify", "--secret-env", "WH_UNSET", "--header", "A: b", "--body-file", body}, "the environment variable WH_UNSET is not set or is empty"},
		{append(verify, "--body-file", filepath.Join(t.TempDir(), "missing.json")), "--body-file: open "},
		{append(verify, "--body-file", body, "--tolerance", "soon"), `--tolerance must be a positive duration such as 10m or 48h, not "soon"`},
		{append(verify, "--body-file", body, "--tolerance", "-5m"), "--tolerance must be a positive duration"},
		{append(verify, "--body-file", body, "extra"), `unexpected argument "extra"`},
		{[]string{"webhooks", "listen", "--events", ","}, "--events must name at least one event type"},
		{[]string{"webhooks", "listen", "--forward-to", "ftp://x/y"}, `--forward-to must be an absolute http or https URL, not "ftp://x/y"`},
		{[]string{"webhooks", "listen", "--forward-to", "/hooks"}, "--forward-to must be an absolute http or https URL"},
		{[]string{"webhooks", "listen", "--addr", "nope"}, `--addr must be HOST:PORT such as 127.0.0.1:0, not "nope"`},
		{[]string{"webhooks", "listen", "extra"}, `unexpected argument "extra"`},
		{[]string{"webhooks", "deliveries", "--limit", "201"}, "--limit must be between 1 and 200"},
		{[]string{"webhooks", "deliveries", "--status", "done"}, `--status must be pending, succeeded or failed, not "done"`},
		{[]string{"webhooks", "deliveries", "dlv_1"}, `unexpected argument "dlv_1"`},
		{[]string{"webhooks", "replay"}, "webhooks replay takes exactly one delivery id"},
		{[]string{"webhooks", "replay", "dlv_1", "dlv_2"}, "webhooks replay takes exactly one delivery id"},
	} {
		r := cli(t, env, "", c.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.want, c.args)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Empty(t, f.requests, "usage errors send nothing")
}

// TestWebhooksHelp: every webhooks command has help and appears in the overviews.
func TestWebhooksHelp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"webhooks", "--help"}, "webhooks rotate-secret"},
		{[]string{"help", "webhooks"}, "webhooks verify"},
		{[]string{"webhooks", "list", "--help"}, "Usage: svc webhooks list [--limit N] [--cursor C] [--all]"},
		{[]string{"webhooks", "create", "-h"}, "--event TYPE"},
		{[]string{"help", "webhooks", "create"}, "--idempotency-key K"},
		{[]string{"webhooks", "update", "--help"}, "--enable"},
		{[]string{"webhooks", "rotate-secret", "--help"}, "24 h"},
		{[]string{"help", "webhooks", "delete"}, "svc webhooks update WEBHOOK_ID --enable"},
		{[]string{"webhooks", "verify", "--help"}, "--secret-env VAR"},
		{[]string{"help", "webhooks", "verify"}, "verification_failed"},
		{[]string{"webhooks", "listen", "--help"}, "--forward-to U"},
		{[]string{"help", "webhooks", "listen"}, "svcd dev"},
		{[]string{"webhooks", "deliveries", "-h"}, "--status S"},
		{[]string{"help", "webhooks", "replay"}, "same webhook-id header"},
		{[]string{"help"}, "webhooks rotate-secret"},
	} {
		r := cli(t, testEnv(t, nil), "", c.args...)
		require.Equal(t, exitOK, r.code, c.args)
		require.Contains(t, r.stdout, "Usage:", c.args)
		require.Contains(t, r.stdout, c.want, c.args)
	}
	r := cli(t, testEnv(t, nil), "", "help")
	for _, cmd := range []string{"webhooks list", "webhooks create", "webhooks update", "webhooks rotate-secret", "webhooks delete", "webhooks verify",
		"webhooks listen", "webhooks deliveries", "webhooks replay"} {
		require.Contains(t, r.stdout, cmd)
	}
}

// TestHeaderList: --header keeps commas inside a value and canonicalises names.
func TestHeaderList(t *testing.T) {
	t.Parallel()
	var h headerList
	require.NoError(t, h.Set("x-svc-signature: t=1,v1=aa,v1=bb"))
	require.NoError(t, h.Set("webhook-signature:v1,AAA= v1,BBB="))
	require.NoError(t, h.Set("webhook-signature: v1,CCC="))
	got := h.header()
	require.Equal(t, http.Header{"X-Svc-Signature": {"t=1,v1=aa,v1=bb"}, "Webhook-Signature": {"v1,AAA= v1,BBB=", "v1,CCC="}}, got)
	require.Error(t, h.Set(": x"))
	require.Error(t, h.Set("novalue"))
}
