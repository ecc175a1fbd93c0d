package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/svcplatform/svc/client"
)

// Limits of webhooks listen.
const (
	// listenForwardTimeout bounds one forward: the server counts a delivery as failed after 15 s too.
	listenForwardTimeout = 15 * time.Second
	// listenMaxAnswerBytes is how much of the forward target's answer is passed back to the server (it
	// reads no more than 64 KiB of an endpoint's answer).
	listenMaxAnswerBytes = 64 << 10
	// listenCleanupTimeout bounds disabling the webhook and shutting the local server down on exit.
	listenCleanupTimeout = 10 * time.Second
)

// listenForwardHeaders are the request headers of a delivery that listen passes on to --forward-to.
var listenForwardHeaders = []string{
	"Content-Type", client.HeaderWebhookEvent, client.HeaderSvcSignature,
	client.HeaderWebhookID, client.HeaderWebhookTimestamp, client.HeaderWebhookSignature,
}

// listenDelivery is what webhooks listen prints for one delivery with --json.
type listenDelivery struct {
	// ReceivedAt is when the delivery arrived.
	ReceivedAt time.Time `json:"receivedAt"`
	// Event is the delivery's event; when it did not verify, what its body claims (possibly nothing).
	Event *client.WebhookEvent `json:"event"`
	// WebhookID is the webhook-id header (the event id).
	WebhookID string `json:"webhookId"`
	// Verified tells whether the signature matched the webhook's secret.
	Verified bool `json:"verified"`
	// Error says why verification failed.
	Error string `json:"error,omitempty"`
	// ForwardStatus is the --forward-to target's HTTP status; 0 when not forwarded or when it did not answer.
	ForwardStatus int `json:"forwardStatus,omitempty"`
	// ForwardError says why forwarding failed.
	ForwardError string `json:"forwardError,omitempty"`
	// Answered is the status listen answered the server with.
	Answered int `json:"answered"`
}

// webhookListener is the local endpoint of webhooks listen.
type webhookListener struct {
	a         *app
	forwardTo string
	http      *http.Client
	// ready is closed once secret is set (the webhook exists).
	ready  chan struct{}
	secret string
	// mu serialises the lines printed for concurrent deliveries.
	mu sync.Mutex
}

// webhooksListenCommands are the local webhook receiver, "svc webhooks listen".
func webhooksListenCommands() []command {
	return []command{
		{name: "webhooks listen", run: (*app).webhooksListen, help: webhooksListenHelp,
			brief: "receive, verify and print (or forward) deliveries locally, in development"},
	}
}

// webhooksListenHelp is the help of "svc webhooks listen".
const webhooksListenHelp = `Usage: svc webhooks listen [--events TYPE[,TYPE...] | --events '*'] [--forward-to URL]
                           [--addr HOST:PORT]

Receives deliveries on this machine while you develop, like "stripe listen": it starts a local HTTP
server on --addr, registers a webhook whose URL is that server (http://127.0.0.1:PORT/), keeps the
webhook's signing secret in memory only, and prints one line per delivery as it arrives: the time,
the event type, the event id, the webhook-id header, whether the signature verified (with
client.ParseWebhook, the code the server signs with) and, with --forward-to, the forward target's
status. A delivery that does not verify is printed as such, answered 400 and not forwarded.

With --forward-to, each verified delivery is POSTed unchanged (the same body and the headers
Content-Type, X-Svc-Event, X-Svc-Signature, webhook-id, webhook-timestamp and webhook-signature) to
URL, and the server gets the target's status as the answer, so a 410 or 5xx of your handler behaves as
it would for a real endpoint (a 410 disables the webhook; a 5xx is retried). Your handler cannot verify
the forwarded signatures, since the secret is never shown; listen verifies them for it. An unreachable
target answers 502. Without --forward-to every verified delivery is answered 200.

Ctrl-C (or SIGTERM) disables the webhook listen created and exits 0; it stays listed, disabled.

The server must be able to reach 127.0.0.1 on this machine and allow http loopback URLs: a local
"svcd dev". A remote server cannot deliver to your machine's loopback address; register a reachable
https URL with "svc webhooks create" instead.

  --events TYPE   event types to receive, comma-separated or repeated, e.g. run.created,run.succeeded;
                  '*' (the default) receives every type
  --forward-to U  POST every verified delivery to U, e.g. http://127.0.0.1:3000/hooks/svc
  --addr A        the local address to listen on (default 127.0.0.1:0, a free port)
  --json          one JSON object per delivery and line on stdout: {"receivedAt", "event", "webhookId",
                  "verified", "error", "forwardStatus", "forwardError", "answered"}; the status lines
                  go to stderr

e.g.
  svc webhooks listen --events run.created,run.succeeded --forward-to http://127.0.0.1:3000/hooks

` + globalFlagsHelp

// webhooksListen registers a webhook pointing at a local server and prints (and forwards) its
// deliveries until interrupted, then disables the webhook.
func (a *app) webhooksListen(args []string) int {
	const cmd = "webhooks listen"
	var (
		events          stringList
		forwardTo, addr string
	)
	fs := a.commandFlags(cmd, nil)
	fs.Var(&events, "events", "event types to receive, or '*' (repeatable)")
	fs.Var(&events, "event", "same as --events")
	fs.StringVar(&forwardTo, "forward-to", "", "POST every verified delivery to this URL")
	fs.StringVar(&addr, "addr", "127.0.0.1:0", "the local address to listen on")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	set := flagsGiven(fs)
	if (set["events"] || set["event"]) && len(events) == 0 {
		return a.usageError(cmd, "--events must name at least one event type, or '*'")
	}
	if len(events) == 0 {
		events = stringList{"*"}
	}
	if set["forward-to"] {
		u, err := url.Parse(strings.TrimSpace(forwardTo))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return a.usageError(cmd, "--forward-to must be an absolute http or https URL, not %q", forwardTo)
		}
		forwardTo = u.String()
	}
	if strings.TrimSpace(addr) == "" {
		return a.usageError(cmd, "--addr must not be empty")
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return a.usageError(cmd, "--addr must be HOST:PORT such as 127.0.0.1:0, not %q", addr)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}

	ctx, stop := signal.NotifyContext(a.ctx, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return a.localError("listen_failed", err.Error())
	}
	l := &webhookListener{a: a, forwardTo: forwardTo, ready: make(chan struct{}),
		http: &http.Client{Timeout: listenForwardTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	srv := &http.Server{Handler: l, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	shutdown := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), listenCleanupTimeout)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}

	endpoint := "http://" + listenHost(ln.Addr()) + "/"
	created := c.CreateWebhook(ctx, client.CreateWebhookRequest{URL: endpoint, Events: events,
		Description: "svc webhooks listen (disabled when it exits)"})
	if !created.OK {
		close(l.ready) // with no secret, anything that arrives fails verification
		shutdown()
		return apiFailure(a, created)
	}
	hook := created.Body.Webhook
	l.secret = hook.Secret
	close(l.ready)

	status := a.stdout
	if a.g.json {
		status = a.stderr
	}
	fmt.Fprintf(status, "Webhook %s receives %s at %s; its secret stays in memory.\n", hook.ID, strings.Join(hook.Events, ","), endpoint)
	if forwardTo != "" {
		fmt.Fprintf(status, "Ready: forwarding to %s (Ctrl-C to stop and disable the webhook)\n", forwardTo)
	} else {
		fmt.Fprintln(status, "Ready: printing deliveries (Ctrl-C to stop and disable the webhook)")
	}

	exit := exitOK
	select {
	case <-ctx.Done():
	case err := <-served:
		l.mu.Lock()
		fmt.Fprintf(a.stderr, "error: listen_failed: the local server stopped: %v\n", err)
		l.mu.Unlock()
		exit = exitAPI
	}

	// Disable first, so that deliveries in flight are answered while the server stops sending.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), listenCleanupTimeout)
	defer cancel()
	deleted := c.DeleteWebhook(dctx, hook.ID)
	shutdown()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !deleted.OK {
		fmt.Fprintf(a.stderr, "Could not disable webhook %s; disable it with: svc webhooks delete %s\n", hook.ID, hook.ID)
		return apiFailure(a, deleted)
	}
	fmt.Fprintf(status, "Disabled webhook %s.\n", hook.ID)
	return exit
}

// listenHost is the host:port of the listener as a URL host: an unspecified address (0.0.0.0, ::)
// becomes the loopback address, which the server can reach on this machine.
func listenHost(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.String()
	}
	ip := tcp.IP
	switch {
	case ip == nil || ip.IsUnspecified() && ip.To4() != nil:
		ip = net.IPv4(127, 0, 0, 1)
	case ip.IsUnspecified():
		ip = net.IPv6loopback
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(tcp.Port))
}

// ServeHTTP verifies one delivery, forwards it when asked to, answers the server and prints a line.
func (l *webhookListener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "deliveries are POSTed", http.StatusMethodNotAllowed)
		return
	}
	select {
	case <-l.ready:
	case <-r.Context().Done():
		return
	}
	d := listenDelivery{ReceivedAt: time.Now().UTC(), WebhookID: r.Header.Get(client.HeaderWebhookID)}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBodyBytes))
	if err != nil {
		d.Error = "reading the body: " + err.Error()
	} else if ev, err := client.ParseWebhook(l.secret, r.Header, body, client.VerifyOptions{}); err != nil {
		d.Error = err.Error()
	} else {
		d.Event, d.Verified = &ev, true
	}
	if !d.Verified {
		var claimed client.WebhookEvent
		if json.Unmarshal(body, &claimed) == nil && (claimed.ID != "" || claimed.Type != "") {
			d.Event = &claimed
		}
		d.Answered = http.StatusBadRequest
		http.Error(w, "verification failed: "+d.Error, d.Answered)
		l.print(d, r.Header.Get(client.HeaderWebhookEvent))
		return
	}
	if l.forwardTo == "" {
		d.Answered = http.StatusOK
		w.WriteHeader(d.Answered)
		l.print(d, "")
		return
	}
	answer, header, err := l.forward(r, body)
	if err != nil {
		d.ForwardError = err.Error()
		d.Answered = http.StatusBadGateway
		http.Error(w, "forwarding failed: "+err.Error(), d.Answered)
		l.print(d, "")
		return
	}
	d.ForwardStatus, d.Answered = answer.status, answer.status
	for _, h := range []string{"Content-Type", "Retry-After"} {
		if v := header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(d.Answered)
	_, _ = w.Write(answer.body)
	l.print(d, "")
}

// forwarded is the --forward-to target's answer.
type forwarded struct {
	status int
	body   []byte
}

// forward POSTs the delivery's body and signature headers, unchanged, to the --forward-to target.
func (l *webhookListener) forward(r *http.Request, body []byte) (forwarded, http.Header, error) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, l.forwardTo, bytes.NewReader(body))
	if err != nil {
		return forwarded{}, nil, err
	}
	for _, h := range listenForwardHeaders {
		for _, v := range r.Header.Values(h) {
			req.Header.Add(h, v)
		}
	}
	req.Header.Set("User-Agent", userAgent+" (webhooks listen)")
	resp, err := l.http.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return forwarded{}, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, listenMaxAnswerBytes))
	return forwarded{status: resp.StatusCode, body: b}, resp.Header, nil
}

// print shows one delivery: a line of text, or with --json one JSON object. eventHeader is the
// X-Svc-Event header, shown when the body names no type.
func (l *webhookListener) print(d listenDelivery, eventHeader string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.a.g.json {
		b, err := json.Marshal(d)
		if err == nil {
			_, _ = l.a.stdout.Write(append(b, '\n'))
		}
		return
	}
	typ, id := eventHeader, ""
	if d.Event != nil {
		if d.Event.Type != "" {
			typ = d.Event.Type
		}
		id = d.Event.ID
	}
	line := []string{d.ReceivedAt.Format(time.RFC3339), orDash(typ), orDash(id), "webhook-id=" + orDash(d.WebhookID)}
	if d.Verified {
		line = append(line, "verified")
	} else {
		line = append(line, "NOT VERIFIED ("+d.Error+")", fmt.Sprintf("answered %d", d.Answered))
	}
	switch {
	case d.ForwardError != "":
		line = append(line, "forward failed ("+d.ForwardError+")", fmt.Sprintf("answered %d", d.Answered))
	case d.ForwardStatus != 0:
		line = append(line, fmt.Sprintf("forwarded %d", d.ForwardStatus))
	}
	fmt.Fprintln(l.a.stdout, strings.Join(line, "  "))
}
