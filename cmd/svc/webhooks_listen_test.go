package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// lineWaiter is an output buffer, safe for concurrent use, that a test waits on for a pattern.
type lineWaiter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func newLineWaiter() *lineWaiter { return &lineWaiter{changed: make(chan struct{})} }

// Write implements io.Writer.
func (w *lineWaiter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	close(w.changed)
	w.changed = make(chan struct{})
	return n, err
}

func (w *lineWaiter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitFor waits until the output matches re and returns the first match's submatches; it fails the test
// when exited reports first or after timeout.
func (w *lineWaiter) waitFor(t *testing.T, re *regexp.Regexp, exited <-chan int, timeout time.Duration) []string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		w.mu.Lock()
		m := re.FindStringSubmatch(w.buf.String())
		changed := w.changed
		w.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-changed:
		case code := <-exited:
			t.Fatalf("listen exited (%d) before printing %s: %s", code, re, w)
		case <-deadline:
			t.Fatalf("no %s within %s: %s", re, timeout, w)
		}
	}
}

// forwardedDelivery is what the --forward-to receiver of the test got.
type forwardedDelivery struct {
	header http.Header
	body   []byte
}

// TestCLIWebhooksListen runs two webhooks listen against the real server while an echo run happens: one
// printing lines and forwarding to a receiver, one printing JSON. Both see run.created and run.succeeded
// verified; the receiver gets the unchanged bodies with the signature headers; a forged delivery is
// answered 400 and not forwarded; cancelling disables both webhooks and exits 0.
func TestCLIWebhooksListen(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	getenv := func(k string) string { return vars[k] }

	got := make(chan forwardedDelivery, 16)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/hooks/svc" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		}
		got <- forwardedDelivery{header: r.Header.Clone(), body: body}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := func(args ...string) (*lineWaiter, *lineWaiter, <-chan int) {
		out, errOut, exited := newLineWaiter(), newLineWaiter(), make(chan int, 1)
		go func() { exited <- runContext(ctx, args, strings.NewReader(""), out, errOut, getenv) }()
		return out, errOut, exited
	}
	const wait = 10 * time.Second
	readyRE := regexp.MustCompile(`Webhook (whk_\S+) receives (\S+) at (http://127\.0\.0\.1:\d+/); its secret stays in memory\.\n`)

	textOut, textErr, textExited := start("webhooks", "listen", "--events", "run.created,run.succeeded",
		"--forward-to", receiver.URL+"/hooks/svc")
	jsonOut, jsonErr, jsonExited := start("--json", "webhooks", "listen")
	textReady := textOut.waitFor(t, readyRE, textExited, wait)
	textOut.waitFor(t, regexp.MustCompile(`Ready: forwarding to `+regexp.QuoteMeta(receiver.URL+"/hooks/svc")), textExited, wait)
	require.Equal(t, "run.created,run.succeeded", textReady[2])
	jsonReady := jsonErr.waitFor(t, readyRE, jsonExited, wait)
	jsonErr.waitFor(t, regexp.MustCompile(`Ready: printing deliveries`), jsonExited, wait)
	require.Equal(t, "*", jsonReady[2])
	require.Empty(t, jsonOut.String(), "with --json stdout holds deliveries only")

	// An echo run: run.created and run.succeeded arrive verified at both listeners.
	r := cli(t, vars, "", "--json", "runs", "create", "--service", "managed-workflows", "--operation", "echo",
		"--input", `{"hello":"listen"}`, "--wait", "--interval", "20ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	runID := jsonField(t, r, "run")["id"].(string)
	lineRE := func(typ string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\S+Z  ` + regexp.QuoteMeta(typ) +
			`  (evt_\S+)  webhook-id=(evt_\S+)  verified  forwarded 204$`)
	}
	eventIDs := map[string]string{}
	for _, typ := range []string{"run.created", "run.succeeded"} {
		m := textOut.waitFor(t, lineRE(typ), textExited, wait)
		require.Equal(t, m[1], m[2], "webhook-id is the event id")
		eventIDs[typ] = m[1]
	}

	// The receiver got both deliveries unchanged, with the signature headers listen verified.
	forwarded := map[string]forwardedDelivery{}
	for len(forwarded) < 2 {
		select {
		case d := <-got:
			var ev client.WebhookEvent
			require.NoError(t, json.Unmarshal(d.body, &ev), string(d.body))
			forwarded[ev.Type] = d
		case <-time.After(wait):
			t.Fatalf("the receiver got %d deliveries: %s", len(forwarded), textOut)
		}
	}
	for typ, d := range forwarded {
		var ev struct {
			client.WebhookEvent
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(d.body, &ev))
		require.Equal(t, eventIDs[typ], ev.ID, typ)
		require.Equal(t, runID, ev.Data.ID, typ)
		require.Equal(t, ev.ID, d.header.Get(client.HeaderWebhookID), typ)
		require.Equal(t, typ, d.header.Get(client.HeaderWebhookEvent), typ)
		require.Contains(t, d.header.Get("Content-Type"), "application/json", typ)
		require.Regexp(t, `^t=\d+,v1=[0-9a-f]{64}$`, d.header.Get(client.HeaderSvcSignature), typ)
		require.Regexp(t, `^v1,\S+$`, d.header.Get(client.HeaderWebhookSignature), typ)
		require.Contains(t, d.header.Get(client.HeaderSvcSignature), "t="+d.header.Get(client.HeaderWebhookTimestamp)+",", typ)
		// The forwarded delivery verifies as listen's own check did: a wrong secret is refused for the
		// signature, not for a missing or altered header.
		other, err := client.NewWebhookSecret()
		require.NoError(t, err)
		require.ErrorIs(t, client.VerifyWebhook(other, d.header, d.body, client.VerifyOptions{}), client.ErrWebhookNoMatchingSignature)
	}

	// The JSON listener printed one object per line for the same events, verified.
	jsonEvents := map[string]listenDelivery{}
	for _, typ := range []string{"run.created", "run.succeeded"} {
		jsonOut.waitFor(t, regexp.MustCompile(`"type":"`+regexp.QuoteMeta(typ)+`"`), jsonExited, wait)
	}
	for _, line := range strings.Split(strings.TrimSpace(jsonOut.String()), "\n") {
		var d listenDelivery
		require.NoError(t, json.Unmarshal([]byte(line), &d), line)
		require.NotNil(t, d.Event, line)
		jsonEvents[d.Event.Type] = d
	}
	for _, typ := range []string{"run.created", "run.succeeded"} {
		d := jsonEvents[typ]
		require.True(t, d.Verified, typ)
		require.Equal(t, eventIDs[typ], d.Event.ID, "the same event reaches both endpoints")
		require.Equal(t, d.Event.ID, d.WebhookID)
		require.Equal(t, http.StatusOK, d.Answered)
		require.Zero(t, d.ForwardStatus)
	}

	// The delivery list shows both deliveries to the forwarding endpoint, succeeded with the 204; a replay
	// arrives again with the same webhook-id, verified and forwarded.
	var deliveries client.WebhookDeliveryList
	require.Eventually(t, func() bool {
		r := cli(t, vars, "", "--json", "webhooks", "deliveries", "--webhook", textReady[1], "--status", "succeeded")
		require.Equal(t, exitOK, r.code, r.stderr)
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &deliveries), r.stdout)
		return len(deliveries.Deliveries) == 2
	}, wait, 50*time.Millisecond, "both deliveries succeed")
	var succeeded client.WebhookDelivery
	for _, d := range deliveries.Deliveries {
		require.Equal(t, textReady[1], d.WebhookID)
		require.Equal(t, eventIDs[d.EventType], d.EventID)
		require.NotEmpty(t, d.Attempts)
		require.Equal(t, http.StatusNoContent, *d.Attempts[len(d.Attempts)-1].HTTPStatus)
		if d.EventType == "run.succeeded" {
			succeeded = d
		}
	}
	r = cli(t, vars, "", "webhooks", "deliveries", "--webhook", textReady[1])
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `(?m)^ID\s+WEBHOOK\s+EVENT\s+TYPE\s+STATUS\s+ATTEMPTS\s+LAST ATTEMPT\s+CREATED$`, r.stdout)
	require.Regexp(t, succeeded.ID+`\s+`+textReady[1]+`\s+`+succeeded.EventID+`\s+run\.succeeded\s+succeeded\s+1\s+204 in \d+ms\s+\d{4}-`, r.stdout)
	r = cli(t, vars, "", "webhooks", "replay", succeeded.ID)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `^Replaying `+succeeded.ID+` as delivery dlv_\S+\n`, r.stdout)
	require.Regexp(t, `Event:\s+`+succeeded.EventID+` \(run\.succeeded; the webhook-id header\)`, r.stdout)
	textOut.waitFor(t, regexp.MustCompile(`(?s)`+regexp.QuoteMeta(succeeded.EventID)+`.*  run\.succeeded  `+
		regexp.QuoteMeta(succeeded.EventID)+`  webhook-id=`+regexp.QuoteMeta(succeeded.EventID)+`  verified  forwarded 204\n`), textExited, wait)
	// Deliveries are at least once: a redelivery of the run's other event may come first.
	for replayed := false; !replayed; {
		select {
		case d := <-got:
			id := d.header.Get(client.HeaderWebhookID)
			require.Contains(t, []string{eventIDs["run.created"], eventIDs["run.succeeded"]}, id, "a replay keeps the webhook-id")
			replayed = id == succeeded.EventID
		case <-time.After(wait):
			t.Fatal("the replay was not forwarded")
		}
	}

	// A forged delivery is printed as such, answered 400 and not forwarded.
	forged := []byte(`{"id":"evt_forged","type":"run.succeeded","createdAt":"2026-01-02T03:04:05Z","data":{}}`)
	other, err := client.NewWebhookSecret()
	require.NoError(t, err)
	h, err := client.SignWebhook([]string{other}, "evt_forged", time.Now(), forged)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, textReady[3], bytes.NewReader(forged))
	require.NoError(t, err)
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	textOut.waitFor(t, regexp.MustCompile(`(?m)^\S+  run\.succeeded  evt_forged  webhook-id=evt_forged  `+
		`NOT VERIFIED \(webhook: no matching signature: .*\)  answered 400$`), textExited, wait)
	for drained := false; !drained; {
		select {
		case d := <-got:
			require.NotEqual(t, "evt_forged", d.header.Get(client.HeaderWebhookID), "a forged delivery was forwarded: %s", d.body)
		default:
			drained = true
		}
	}

	// Cancelling disables both webhooks and exits 0.
	cancel()
	for _, l := range []struct {
		exited   <-chan int
		status   *lineWaiter
		stderr   *lineWaiter
		hookID   string
		endpoint string
	}{
		{textExited, textOut, textErr, textReady[1], textReady[3]},
		{jsonExited, jsonErr, jsonErr, jsonReady[1], jsonReady[3]},
	} {
		select {
		case code := <-l.exited:
			require.Equal(t, exitOK, code, l.stderr.String())
		case <-time.After(wait):
			t.Fatalf("listen did not exit: %s", l.status)
		}
		require.Contains(t, l.status.String(), "Disabled webhook "+l.hookID+".\n")
	}
	r = cli(t, vars, "", "webhooks", "replay", succeeded.ID)
	require.Equal(t, exitAPI, r.code, "replaying to a disabled endpoint is refused: %s", r.stdout)
	require.Contains(t, r.stderr, "error: conflict: ")
	var listed client.WebhookList
	r = cli(t, vars, "", "--json", "webhooks", "list", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &listed))
	require.Len(t, listed.Webhooks, 2)
	for _, w := range listed.Webhooks {
		require.False(t, w.Enabled, w.ID)
		require.Contains(t, []string{textReady[1], jsonReady[1]}, w.ID)
	}
}

// TestWebhookListenerAnswers drives the listener's handler with deliveries signed locally: the forward
// target's status (410, 503 with Retry-After) becomes the answer, an unreachable target answers 502, a
// forged delivery 400 without forwarding, and only POST is accepted.
func TestWebhookListenerAnswers(t *testing.T) {
	t.Parallel()
	secret, err := client.NewWebhookSecret()
	require.NoError(t, err)
	var status int
	var mu sync.Mutex
	hits := 0
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		hits++
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "7")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "target says hi")
	}))
	t.Cleanup(target.Close)
	var out bytes.Buffer
	newListener := func(forwardTo string) *webhookListener {
		l := &webhookListener{a: &app{stdout: &out, stderr: io.Discard}, forwardTo: forwardTo, ready: make(chan struct{}),
			secret: secret, http: &http.Client{Timeout: 5 * time.Second}}
		close(l.ready)
		return l
	}
	deliver := func(l *webhookListener, secret string) *httptest.ResponseRecorder {
		body := []byte(`{"id":"evt_l1","type":"run.failed","createdAt":"2026-01-02T03:04:05Z","data":{"id":"run_1"}}`)
		h, err := client.SignWebhook([]string{secret}, "evt_l1", time.Now(), body)
		require.NoError(t, err)
		h.Set("Content-Type", "application/json")
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header = h
		rec := httptest.NewRecorder()
		l.ServeHTTP(rec, req)
		return rec
	}

	l := newListener(target.URL)
	for _, s := range []int{http.StatusGone, http.StatusServiceUnavailable, http.StatusOK} {
		mu.Lock()
		status = s
		mu.Unlock()
		out.Reset()
		rec := deliver(l, secret)
		require.Equal(t, s, rec.Code)
		require.Equal(t, "target says hi", rec.Body.String())
		require.Regexp(t, `^\S+  run\.failed  evt_l1  webhook-id=evt_l1  verified  forwarded `+strconv.Itoa(s)+`\n$`, out.String())
		if s == http.StatusServiceUnavailable {
			require.Equal(t, "7", rec.Header().Get("Retry-After"))
		}
	}

	other, err := client.NewWebhookSecret()
	require.NoError(t, err)
	out.Reset()
	rec := deliver(l, other)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Contains(t, out.String(), "NOT VERIFIED (webhook: no matching signature")
	mu.Lock()
	require.Equal(t, 3, hits, "a forged delivery is not forwarded")
	mu.Unlock()

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	out.Reset()
	rec = deliver(newListener(closed.URL), secret)
	require.Equal(t, http.StatusBadGateway, rec.Code)
	require.Regexp(t, `verified  forward failed \(.+\)  answered 502\n$`, out.String())

	out.Reset()
	rec = deliver(newListener(""), secret)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Regexp(t, `evt_l1  webhook-id=evt_l1  verified\n$`, out.String())

	rec = httptest.NewRecorder()
	newListener("").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	require.Equal(t, http.StatusMethodNotAllowed, rec.Code)
}
