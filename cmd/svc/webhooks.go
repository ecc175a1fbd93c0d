package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// maxWebhookBodyBytes bounds the saved delivery body webhooks verify reads.
const maxWebhookBodyBytes = 16 << 20

// codeVerificationFailed is the error code webhooks verify reports when a delivery does not verify.
const codeVerificationFailed = "verification_failed"

// webhooksHelp is the help of "svc webhooks".
const webhooksHelp = `Usage: svc webhooks <list|create|update|rotate-secret|delete|verify|listen|deliveries|replay> [flags]

Webhooks are endpoints that receive signed event deliveries (run.created, run.succeeded,
approval.requested, ...). An endpoint belongs to the selected project (or to none). Its signing secret
(whsec_...) is shown once, on creation and on rotation.

  webhooks list            list endpoints, newest first (never with a secret)
  webhooks create          register an endpoint; prints its signing secret once
  webhooks update          change an endpoint's URL, events or description, or enable or disable it
  webhooks rotate-secret   give an endpoint a new secret; the old one keeps signing for 24 h
  webhooks delete          disable an endpoint (it stays listed and can be enabled again)
  webhooks verify          verify a saved delivery offline against a secret
  webhooks listen          receive deliveries on this machine and print or forward them (development)
  webhooks deliveries      list deliveries, newest first, with their latest attempt
  webhooks replay          deliver a delivery's event again: same webhook-id, new timestamp and signature

Run "svc webhooks <command> --help" for details.`

// webhooksCommands are the commands of webhook endpoints, "svc webhooks ..." (listen, deliveries and replay
// are in webhooks_listen.go and webhooks_deliveries.go).
func webhooksCommands() []command {
	return []command{
		{name: "webhooks", help: webhooksHelp},
		{name: "webhooks list", run: (*app).webhooksList, help: webhooksListHelp,
			brief: "list webhook endpoints (never with their secrets)"},
		{name: "webhooks create", run: (*app).webhooksCreate, help: webhooksCreateHelp,
			brief: "register an endpoint for signed event deliveries; prints its secret once"},
		{name: "webhooks update", run: (*app).webhooksUpdate, help: webhooksUpdateHelp,
			brief: "change an endpoint's URL, events or description, or enable or disable it"},
		{name: "webhooks rotate-secret", run: (*app).webhooksRotateSecret, help: webhooksRotateSecretHelp,
			brief: "give an endpoint a new signing secret, printed once"},
		{name: "webhooks delete", run: (*app).webhooksDelete, help: webhooksDeleteHelp, brief: "disable an endpoint"},
		{name: "webhooks verify", run: (*app).webhooksVerify, help: webhooksVerifyHelp,
			brief: "verify a saved delivery offline against a secret"},
	}
}

// webhooksListHelp is the help of "svc webhooks list".
const webhooksListHelp = `Usage: svc webhooks list [--limit N] [--cursor C] [--all]

Lists the webhook endpoints of the selected project (or of none), newest first (scope webhooks:read).
Secrets are never shown.

  --limit N    page size 1..200 (default 50)
  --cursor C   the nextCursor of the previous page
  --all        follow nextCursor through every page

` + globalFlagsHelp

// webhooksList lists the webhook endpoints of the selected project (or of none).
func (a *app) webhooksList(args []string) int {
	const cmd = "webhooks list"
	fs := a.commandFlags(cmd, nil)
	var pf pageFlags
	if code, ok := a.parsePaged(cmd, fs, &pf, args); !ok {
		return code
	}
	hooks, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.WebhookList] {
			return c.ListWebhooks(a.ctx, p)
		},
		func(l client.WebhookList) ([]client.Webhook, *string) { return l.Webhooks, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.WebhookList{OK: true, Webhooks: orEmpty(hooks), NextCursor: next}, len(hooks), "No webhooks.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "ID\tURL\tEVENTS\tENABLED\tCREATED")
	for _, w := range hooks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.ID, oneLine(w.URL, 60), oneLine(strings.Join(w.Events, ","), 60),
			yesNo(w.Enabled), w.CreatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
	var filters []string
	if pf.limit != 0 {
		filters = append(filters, "--limit", strconv.Itoa(pf.limit))
	}
	a.moreHint("webhooks", cmd, filters, next)
	return exitOK
}

// webhooksCreateHelp is the help of "svc webhooks create".
const webhooksCreateHelp = `Usage: svc webhooks create --url URL --event TYPE[,TYPE...]... [--description TEXT]
                           [--idempotency-key K]

Registers an endpoint (scope webhooks:write) in the selected project (or in none) and prints its
signing secret once, e.g.
  svc webhooks create --url https://example.com/hooks/svc --event run.succeeded,run.failed

  --url URL             where deliveries are POSTed: an absolute https URL that does not resolve to a
                        private, loopback, link-local or metadata address (required)
  --event TYPE          an event type to deliver, e.g. run.succeeded; repeatable or comma-separated;
                        --event '*' delivers every type (required)
  --description TEXT    a description, at most 1000 characters
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely (the
                        replayed answer carries the same secret)

The server checks the URL and the event types and names the field it refuses (exit 1).

` + globalFlagsHelp

// webhooksCreate registers an endpoint and prints its signing secret once.
func (a *app) webhooksCreate(args []string) int {
	const cmd = "webhooks create"
	var (
		url, description, idemKey string
		events                    stringList
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&url, "url", "", "where deliveries are POSTed")
	fs.Var(&events, "event", "an event type, or '*' (repeatable)")
	fs.StringVar(&description, "description", "", "a description")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	set := flagsGiven(fs)
	switch {
	case !set["url"]:
		return a.usageError(cmd, "--url is required")
	case strings.TrimSpace(url) == "":
		return a.usageError(cmd, "--url must not be empty")
	case !set["event"]:
		return a.usageError(cmd, "--event is required: an event type such as run.succeeded, or '*' for all")
	case len(events) == 0:
		return a.usageError(cmd, "--event must name at least one event type, or '*'")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	req := client.CreateWebhookRequest{URL: url, Events: events, Description: description}
	return answer(a, c.CreateWebhook(a.ctx, req, idemOpts(idemKey)...), func(r client.Response[client.WebhookEnvelope]) {
		w := r.Body.Webhook
		fmt.Fprintln(a.stdout, titleLine("Created webhook", w.ID, "", r.Replayed))
		a.printWebhook(w)
		a.printSecretOnce(w.Secret)
	})
}

// webhooksUpdateHelp is the help of "svc webhooks update".
const webhooksUpdateHelp = `Usage: svc webhooks update WEBHOOK_ID [--url URL] [--event TYPE[,TYPE...]]... [--description TEXT]
                           [--enable | --disable] [--idempotency-key K]

Changes the endpoint WEBHOOK_ID (scope webhooks:write); give at least one change. What is not given
stays as it is.

  --url URL             the new URL (same rules as for create)
  --event TYPE          the new event types, replacing the old list; repeatable or comma-separated, or '*'
  --description TEXT    the new description (--description "" clears it)
  --enable              enable the endpoint again (clears the reason it was disabled)
  --disable             disable the endpoint: nothing more is delivered to it
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// webhooksUpdate changes an endpoint's url, events, description or enabled state.
func (a *app) webhooksUpdate(args []string) int {
	const cmd = "webhooks update"
	var (
		url, description, idemKey string
		events                    stringList
		enable, disable           bool
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&url, "url", "", "the new URL")
	fs.Var(&events, "event", "the new event types (repeatable)")
	fs.StringVar(&description, "description", "", "the new description")
	fs.BoolVar(&enable, "enable", false, "enable the endpoint")
	fs.BoolVar(&disable, "disable", false, "disable the endpoint")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "webhook", idem: true}, fs, args)
	if !ok {
		return code
	}
	set := flagsGiven(fs)
	var req client.UpdateWebhookRequest
	if set["url"] {
		if strings.TrimSpace(url) == "" {
			return a.usageError(cmd, "--url must not be empty")
		}
		req.URL = &url
	}
	if set["event"] {
		if len(events) == 0 {
			return a.usageError(cmd, "--event must name at least one event type, or '*'")
		}
		list := []string(events)
		req.Events = &list
	}
	if set["description"] {
		req.Description = &description
	}
	switch {
	case enable && disable:
		return a.usageError(cmd, "use --enable or --disable, not both")
	case enable || disable:
		req.Enabled = &enable
	}
	if req == (client.UpdateWebhookRequest{}) {
		return a.usageError(cmd, "nothing to change: give --url, --event, --description, --enable or --disable")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.UpdateWebhook(a.ctx, id, req, idemOpts(idemKey)...), func(r client.Response[client.WebhookEnvelope]) {
		w := r.Body.Webhook
		fmt.Fprintln(a.stdout, titleLine("Updated webhook", w.ID, "", r.Replayed))
		a.printWebhook(w)
	})
}

// webhooksRotateSecretHelp is the help of "svc webhooks rotate-secret".
const webhooksRotateSecretHelp = `Usage: svc webhooks rotate-secret WEBHOOK_ID [--idempotency-key K]

Gives the endpoint WEBHOOK_ID a new signing secret (scope webhooks:write) and prints it once. For 24 h
deliveries are signed with both the new and the previous secret, so receivers keep verifying while
they switch; svc prints when the previous one stops signing. Rotating again ends the oldest secret at
once.

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely (the
                        replayed answer carries the same secret)

` + globalFlagsHelp

// webhooksRotateSecret gives an endpoint a new secret, printed once, and says until when the previous
// one keeps signing.
func (a *app) webhooksRotateSecret(args []string) int {
	return oneID(a, idSpec{cmd: "webhooks rotate-secret", what: "webhook", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.WebhookEnvelope] {
			return c.RotateWebhookSecret(a.ctx, id, opts...)
		},
		func(r client.Response[client.WebhookEnvelope]) {
			w := r.Body.Webhook
			fmt.Fprintln(a.stdout, titleLine("Rotated the secret of webhook", w.ID, "", r.Replayed))
			a.printWebhook(w)
			a.printSecretOnce(w.Secret)
			if exp := w.PreviousSecretExpiresAt; exp != nil {
				line := "The previous secret keeps signing deliveries, beside the new one, until " + exp.UTC().Format(time.RFC3339)
				if left := time.Until(*exp); left > 0 {
					line += " (in " + left.Round(time.Minute).String() + ")"
				}
				fmt.Fprintln(a.stdout, line+"; then only the new secret signs.")
			}
		})
}

// webhooksDeleteHelp is the help of "svc webhooks delete".
const webhooksDeleteHelp = `Usage: svc webhooks delete WEBHOOK_ID [--idempotency-key K]

Disables the endpoint WEBHOOK_ID (scope webhooks:write): nothing more is delivered to it. It stays
listed and can be enabled again with "svc webhooks update WEBHOOK_ID --enable".

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// webhooksDelete disables an endpoint.
func (a *app) webhooksDelete(args []string) int {
	return oneID(a, idSpec{cmd: "webhooks delete", what: "webhook", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.WebhookEnvelope] {
			return c.DeleteWebhook(a.ctx, id, opts...)
		},
		func(r client.Response[client.WebhookEnvelope]) {
			w := r.Body.Webhook
			fmt.Fprintln(a.stdout, titleLine("Disabled webhook", w.ID, "", r.Replayed))
			a.printWebhook(w)
			fmt.Fprintf(a.stdout, "Nothing more is delivered to it. Enable it again with: svc webhooks update %s --enable\n", w.ID)
		})
}

// headerList is the repeatable --header flag of webhooks verify: each value is one "Name: value" header,
// never split at commas (signature headers hold commas).
type headerList []string

// String implements flag.Value.
func (h *headerList) String() string { return strings.Join(*h, "\n") }

// Set implements flag.Value.
func (h *headerList) Set(v string) error {
	name, _, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("%q is not a header: give it as 'Name: value'", v)
	}
	if !client.ValidHeaderName(strings.TrimSpace(name)) {
		return fmt.Errorf("%q is not a valid header name", strings.TrimSpace(name))
	}
	*h = append(*h, v)
	return nil
}

// header returns the headers as an http.Header, names canonicalised and values trimmed.
func (h headerList) header() http.Header {
	out := http.Header{}
	for _, v := range h {
		name, value, _ := strings.Cut(v, ":")
		out.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	return out
}

// verifiedEvent is what webhooks verify prints with --json.
type verifiedEvent struct {
	OK    bool                `json:"ok"`
	Event client.WebhookEvent `json:"event"`
}

// webhooksVerifyHelp is the help of "svc webhooks verify".
const webhooksVerifyHelp = `Usage: svc webhooks verify --secret-env VAR --header 'Name: value'... --body-file F
                           [--tolerance D]

Verifies a saved delivery offline, with the SDK's client.ParseWebhook (the code the server signs
with), and prints its event id and type. Nothing is sent to the API. Give the delivery's signature
headers (X-Svc-Signature, or webhook-id, webhook-timestamp and webhook-signature, or all four) and its
raw body, unchanged, e.g.
  SVC_WEBHOOK_SECRET=whsec_... svc webhooks verify --secret-env SVC_WEBHOOK_SECRET \
    --header 'X-Svc-Signature: t=1714564800,v1=5f0c...' --body-file delivery.json --tolerance 24h

  --secret-env VAR      the environment variable holding the whsec_... secret (required; the secret
                        is not taken on the command line, where shell history would keep it)
  --header 'N: V'       a request header of the delivery; repeatable (at least one)
  --body-file F         the file holding the raw body (- for stdin) (required)
  --tolerance D         how far the delivery's timestamp may be from now, e.g. 10m or 48h (default 5m);
                        a delivery saved earlier than that fails with "timestamp outside tolerance"

Exit status: 0 when the delivery verifies; 1 when it does not ("error: verification_failed: ..." names
what failed: a missing header, a bad or expired timestamp, no matching signature, a malformed secret or
an invalid event payload); 2 for a usage error.

` + globalFlagsHelp

// webhooksVerify verifies a saved delivery offline with client.ParseWebhook and prints its event.
func (a *app) webhooksVerify(args []string) int {
	const cmd = "webhooks verify"
	var (
		secretEnv, bodyFile, tolerance string
		headers                        headerList
	)
	fs := a.commandFlags(cmd, nil)
	fs.StringVar(&secretEnv, "secret-env", "", "the environment variable holding the whsec_... secret")
	fs.Var(&headers, "header", "a header of the delivery as 'Name: value' (repeatable)")
	fs.StringVar(&bodyFile, "body-file", "", "the file holding the raw body (- for stdin)")
	fs.StringVar(&tolerance, "tolerance", "", "how far the timestamp may be from now (default 5m)")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	set := flagsGiven(fs)
	switch {
	case strings.TrimSpace(secretEnv) == "":
		return a.usageError(cmd, "--secret-env is required: the environment variable holding the whsec_... secret")
	case len(headers) == 0:
		return a.usageError(cmd, "--header is required: give the delivery's signature headers as 'Name: value'")
	case bodyFile == "":
		return a.usageError(cmd, "--body-file is required: the file holding the delivery's raw body (- for stdin)")
	}
	var opts client.VerifyOptions
	if set["tolerance"] {
		d, err := time.ParseDuration(strings.TrimSpace(tolerance))
		if err != nil || d <= 0 {
			return a.usageError(cmd, "--tolerance must be a positive duration such as 10m or 48h, not %q", tolerance)
		}
		opts.Tolerance = d
	}
	secret := a.getenv(secretEnv)
	if secret == "" {
		return a.usageError(cmd, "--secret-env: the environment variable %s is not set or is empty", secretEnv)
	}
	body, err := a.readWebhookBody(bodyFile)
	if err != nil {
		return a.usageError(cmd, "--body-file: %v", err)
	}
	ev, err := client.ParseWebhook(secret, headers.header(), body, opts)
	if err != nil {
		return a.localError(codeVerificationFailed, err.Error())
	}
	if a.g.json {
		a.printJSON(verifiedEvent{OK: true, Event: ev})
		return exitOK
	}
	fmt.Fprintln(a.stdout, "Verified: the delivery is signed with the secret in "+secretEnv+".")
	tw := a.table()
	fmt.Fprintf(tw, "Event:\t%s\n", ev.ID)
	fmt.Fprintf(tw, "Type:\t%s\n", ev.Type)
	if !ev.CreatedAt.IsZero() {
		fmt.Fprintf(tw, "Created:\t%s\n", ev.CreatedAt.UTC().Format(time.RFC3339))
	}
	if len(ev.Data) > 0 {
		var buf bytes.Buffer
		if json.Compact(&buf, ev.Data) == nil {
			fmt.Fprintf(tw, "Data:\t%s\n", oneLine(buf.String(), 200))
		}
	}
	_ = tw.Flush()
	return exitOK
}

// readWebhookBody reads a saved delivery body, unchanged, from a file or from stdin for "-".
func (a *app) readWebhookBody(name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = a.stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	body, err := io.ReadAll(io.LimitReader(r, maxWebhookBodyBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxWebhookBodyBytes {
		return nil, errors.New("the body is larger than 16 MiB")
	}
	return body, nil
}

// printWebhook shows an endpoint (never its secret) as aligned lines.
func (a *app) printWebhook(w client.Webhook) {
	tw := a.table()
	fmt.Fprintf(tw, "  ID:\t%s\n", w.ID)
	fmt.Fprintf(tw, "  URL:\t%s\n", oneLine(w.URL, 0))
	fmt.Fprintf(tw, "  Events:\t%s\n", strings.Join(w.Events, ", "))
	if w.Description != "" {
		fmt.Fprintf(tw, "  Description:\t%s\n", oneLine(w.Description, 0))
	}
	enabled := yesNo(w.Enabled)
	if !w.Enabled && w.DisabledReason != "" {
		enabled += " (" + oneLine(w.DisabledReason, 0) + ")"
	}
	fmt.Fprintf(tw, "  Enabled:\t%s\n", enabled)
	fmt.Fprintf(tw, "  Created:\t%s\n", w.CreatedAt.UTC().Format(time.RFC3339))
	fmt.Fprintf(tw, "  Updated:\t%s\n", w.UpdatedAt.UTC().Format(time.RFC3339))
	_ = tw.Flush()
}
