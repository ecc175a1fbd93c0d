package delivery

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
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// MaxResponseBytes is how much of an endpoint's answer is read; the rest is left unread.
const MaxResponseBytes = 64 << 10

// UserAgent is sent with every delivery.
const UserAgent = "svc-webhooks/1"

// SenderOptions configure a Sender.
type SenderOptions struct {
	// AllowHTTP admits http:// endpoints (development).
	AllowHTTP bool
	// AllowLoopback admits endpoints on loopback addresses (development).
	AllowLoopback bool
	// AllowPrivate admits private, shared, link-local and loopback addresses (never cloud metadata).
	AllowPrivate bool
	// Timeout bounds an attempt; zero means workflows.DeliveryAttemptTimeout (15 s).
	Timeout time.Duration
	// Now is the clock of signatures and attempt times; nil means time.Now.
	Now func() time.Time
}

// Sender makes delivery attempts: one signed POST each, through the outbound guard, without following
// redirects. It is safe for concurrent use and keeps connections alive between attempts.
type Sender struct {
	opts   SenderOptions
	client *http.Client
}

// NewSender returns a Sender.
func NewSender(opts SenderOptions) *Sender {
	if opts.Timeout <= 0 {
		opts.Timeout = workflows.DeliveryAttemptTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	dialer := gateway.GuardedDialer(opts.AllowPrivate, opts.AllowLoopback)
	transport := &http.Transport{
		Proxy:                  nil, // a proxy would make the guard see the proxy instead of the endpoint
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &Sender{opts: opts, client: &http.Client{Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Close releases idle connections.
func (s *Sender) Close() { s.client.CloseIdleConnections() }

// Envelope returns the body of the event's deliveries: {id, type, createdAt, data}.
func Envelope(ev *schema.Event) ([]byte, error) {
	body, err := json.Marshal(client.WebhookEvent{ID: ev.ID, Type: ev.Type, CreatedAt: ev.CreatedAt.UTC(), Data: ev.Data})
	if err != nil {
		return nil, fmt.Errorf("encode event %s: %w", ev.ID, err)
	}
	return body, nil
}

// Result is one attempt's outcome.
type Result struct {
	Attempt
	// RetryAfter is what a 429 or 503 answer asked for.
	RetryAfter time.Duration
}

// Send POSTs the event's envelope to url, signed with secrets (newest first) at the time of sending.
// Any answer but a 2xx within the timeout is a failure, 3xx included; the error of a failure is fit to
// show to the endpoint's owner.
func (s *Sender) Send(ctx context.Context, rawURL string, ev *schema.Event, secrets []string) Result {
	start := s.opts.Now()
	res := Result{Attempt: Attempt{StartedAt: start}}
	fail := func(format string, args ...any) Result {
		res.Error = fmt.Sprintf(format, args...)
		res.Latency = s.opts.Now().Sub(start)
		return res
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && !(u.Scheme == "http" && s.opts.AllowHTTP)) {
		return fail("the endpoint URL must be an absolute https URL")
	}
	body, err := Envelope(ev)
	if err != nil {
		return fail("the event could not be encoded")
	}
	headers, err := client.SignWebhook(secrets, ev.ID, start, body)
	if err != nil {
		return fail("the delivery could not be signed: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return fail("the endpoint URL cannot be requested")
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(client.HeaderSvcEvent, ev.Type)
	req.Header.Set("User-Agent", UserAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		return fail("%s", describe(err, ctx, s.opts.Timeout))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseBytes))
	_ = resp.Body.Close()
	res.Latency = s.opts.Now().Sub(start)
	res.HTTPStatus = resp.StatusCode
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		res.RetryAfter = RetryAfter(resp.Header.Get("Retry-After"), s.opts.Now())
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res.Error = fmt.Sprintf("the endpoint answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return res
}

// describe says why a request got no answer, without the URL (which url.Error repeats).
func describe(err error, ctx context.Context, timeout time.Duration) string {
	var blocked *gateway.BlockedAddressError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &blocked):
		return blocked.Error()
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %s", timeout)
	case errors.As(err, &dnsErr):
		return "the endpoint's host does not resolve: " + dnsErr.Err
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return "the endpoint could not be reached: " + err.Error()
}

// RetryAfter reads a Retry-After value, whole seconds or an HTTP date, as a wait from now; 0 when absent
// or unreadable.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(min(secs, int64(workflows.MaxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now))
	}
	return 0
}
