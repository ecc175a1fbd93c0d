package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/svcplatform/svc/internal/svcerr"
)

// Error codes of failed invocations, with the HTTP status each answers.
const (
	// CodeUpstreamTimeout (504): the service did not answer within its timeout.
	CodeUpstreamTimeout = svcerr.UpstreamTimeout
	// CodeUpstreamUnreachable (502): connection refused or reset, DNS or TLS failure.
	CodeUpstreamUnreachable = svcerr.UpstreamUnreachable
	// CodeUpstreamBlocked (502): the outbound guard refused the address, or a redirect to another origin.
	CodeUpstreamBlocked = svcerr.UpstreamBlocked
	// CodeUpstreamInvalidResponse (502): the answer broke the protocol (bad charge header, body too large).
	CodeUpstreamInvalidResponse = svcerr.UpstreamInvalid
)

// Response headers an upstream may set.
const (
	HeaderCreditsCharged    = "X-Svc-Credits-Charged"
	HeaderUpstreamRequestID = "X-Svc-Upstream-Request-Id"
	HeaderRequestID         = "X-Request-Id"
)

// Defaults of Options.
const (
	DefaultMaxResponseBytes = 10 << 20
	DefaultPreflightTimeout = 5 * time.Second
	maxRedirects            = 5
	maxUpstreamIDLength     = 200
)

// Credential sets a connection's secret on an outgoing request (connection.Credential is one).
type Credential interface {
	Apply(req *http.Request)
}

// Options configure an Invoker.
type Options struct {
	// AllowLoopback admits loopback targets for every service (development mode).
	AllowLoopback bool
	// MaxResponseBytes caps an upstream body (default 10 MiB); a longer one is an error.
	MaxResponseBytes int64
	// PreflightTimeout bounds each preflight call (default 5s, never more than the service's timeout).
	PreflightTimeout time.Duration
	// UserAgent is sent upstream (default "svc-gateway").
	UserAgent string
}

// Invoker sends operations to external services through the outbound guard. It is safe for concurrent
// use and keeps connections alive between calls.
type Invoker struct {
	opts    Options
	strict  *http.Client // services without allowPrivate
	private *http.Client // services with allowPrivate
}

// NewInvoker returns an Invoker.
func NewInvoker(opts Options) *Invoker {
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.PreflightTimeout <= 0 {
		opts.PreflightTimeout = DefaultPreflightTimeout
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "svc-gateway"
	}
	return &Invoker{
		opts:    opts,
		strict:  newClient(policy{allowLoopback: opts.AllowLoopback}),
		private: newClient(policy{allowLoopback: opts.AllowLoopback, allowPrivate: true}),
	}
}

// Close releases idle connections.
func (inv *Invoker) Close() {
	inv.strict.CloseIdleConnections()
	inv.private.CloseIdleConnections()
}

// newClient is an HTTP client whose every connection passes the policy at dial time. It ignores proxy
// settings, which would make the guard see the proxy instead of the target.
func newClient(p policy) *http.Client {
	dialer := p.dialer()
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    256, // keep a connection per concurrent call; re-dialling costs more than an idle socket
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	return &http.Client{Transport: transport, CheckRedirect: sameOriginRedirect}
}

// errCrossOriginRedirect refuses a redirect that leaves the service's origin.
var errCrossOriginRedirect = errors.New("redirect to another origin refused")

// sameOriginRedirect follows at most maxRedirects redirects, all within the first request's origin, so an
// injected credential never reaches another host.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if origin(req.URL) != origin(via[0].URL) {
		return errCrossOriginRedirect
	}
	return nil
}

// origin is scheme://host:port with the scheme's default port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(net.JoinHostPort(u.Hostname(), port))
}

func (inv *Invoker) clientFor(svc Service) *http.Client {
	if svc.AllowPrivate {
		return inv.private
	}
	return inv.strict
}

// InvokeRequest is one call of an operation.
type InvokeRequest struct {
	Service   Service
	Operation Operation
	// Input is the JSON input: the body of POST, PUT and PATCH; a flat object of query parameters for
	// GET and DELETE. Empty means none.
	Input json.RawMessage
	// Credential is injected when set (the service's connection); nil sends none.
	Credential Credential
	// RequestID is our request id, sent as X-Request-Id.
	RequestID string
	// IdempotencyKey, when set, is sent as Idempotency-Key, so a service that honours it performs a
	// retried call (a run's activity retrying after a timeout) once.
	IdempotencyKey string
}

// InvokeResult is the upstream's answer.
type InvokeResult struct {
	// Status is the upstream HTTP status; any status is an answer, not an error.
	Status int
	// Result is the body as JSON: the body itself when it is JSON, a JSON string otherwise, null if empty.
	Result      json.RawMessage
	ContentType string
	// ChargedMillicredits is the charge reported in X-Svc-Credits-Charged; ChargeReported says whether
	// the header was there at all.
	ChargedMillicredits int64
	ChargeReported      bool
	// UpstreamRequestID is X-Svc-Upstream-Request-Id, or the upstream's X-Request-Id; "" when neither is
	// a visible-ASCII value of at most 200 characters.
	UpstreamRequestID string
	// RetryAfter is the wait the service asked for in Retry-After (seconds or an HTTP date); 0 when none.
	RetryAfter time.Duration
	// Body is the answer's body as it came (Result is its JSON form).
	Body []byte
}

// Invoke sends the operation to the service and returns its answer. Failures to get an answer are
// svcerr errors with the Code* codes above (wrapping the cause for logs); invalid input is
// invalid_request naming input or input.<key>; a cancelled ctx returns its error.
func (inv *Invoker) Invoke(ctx context.Context, r InvokeRequest) (InvokeResult, error) {
	target, body, err := buildTarget(r)
	if err != nil {
		return InvokeResult{}, err
	}
	callCtx, cancel := context.WithTimeout(ctx, timeoutOf(r.Service))
	defer cancel()
	out := outbound{method: r.Operation.Method, url: target, body: body, cred: r.Credential, requestID: r.RequestID, idempotencyKey: r.IdempotencyKey}
	ex, err := inv.exchange(callCtx, r.Service, out, inv.opts.MaxResponseBytes)
	if err != nil {
		return InvokeResult{}, failure(ctx, callCtx, r.Service, err)
	}
	return resultOf(ex)
}

// timeoutOf is the service's timeout, or DefaultTimeout when it has none (a Service built in code).
func timeoutOf(svc Service) time.Duration {
	if svc.Timeout <= 0 {
		return DefaultTimeout
	}
	return svc.Timeout
}

// outbound is one request to send.
type outbound struct {
	method, url    string
	body           []byte // nil for none
	cred           Credential
	requestID      string
	idempotencyKey string
}

// exchanged is a read response.
type exchanged struct {
	status int
	header http.Header
	body   []byte
}

// exchange sends one request through the service's client and reads the body up to limit bytes.
func (inv *Invoker) exchange(ctx context.Context, svc Service, out outbound, limit int64) (exchanged, error) {
	var reader io.Reader
	if out.body != nil {
		reader = bytes.NewReader(out.body)
	}
	req, err := http.NewRequestWithContext(ctx, out.method, out.url, reader)
	if err != nil {
		return exchanged{}, fmt.Errorf("build upstream request: %w", err)
	}
	inv.setHeaders(req, out)
	resp, err := inv.clientFor(svc).Do(req)
	if err != nil {
		return exchanged{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return exchanged{}, err
	}
	if int64(len(data)) > limit {
		return exchanged{}, errTooLarge{limit: limit}
	}
	return exchanged{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// setHeaders sets what the gateway sends: nothing of the caller's request, the credential last.
func (inv *Invoker) setHeaders(req *http.Request, out outbound) {
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", inv.opts.UserAgent)
	if out.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if out.requestID != "" {
		req.Header.Set(HeaderRequestID, out.requestID)
	}
	if out.idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", out.idempotencyKey)
	}
	if out.cred != nil {
		out.cred.Apply(req)
	}
}

// errTooLarge is an upstream body over the cap.
type errTooLarge struct{ limit int64 }

func (e errTooLarge) Error() string {
	return fmt.Sprintf("upstream body exceeds %d bytes", e.limit)
}

// buildTarget returns the URL and the body of the request.
func buildTarget(r InvokeRequest) (string, []byte, error) {
	if r.Service.BaseURL == nil {
		return "", nil, fmt.Errorf("invoke %s: service has no base URL", r.Service.ID)
	}
	u := *r.Service.BaseURL
	u.Path = strings.TrimSuffix(u.Path, "/") + r.Operation.Path
	u.RawPath = ""
	switch r.Operation.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		body, err := jsonBody(r.Input)
		return u.String(), body, err
	default:
		q, err := queryOf(r.Input)
		if err != nil {
			return "", nil, err
		}
		u.RawQuery = q.Encode()
		return u.String(), nil, nil
	}
}

// jsonBody is the input as a request body; empty input is {}.
func jsonBody(input json.RawMessage) ([]byte, error) {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 {
		return []byte("{}"), nil
	}
	if !json.Valid(trimmed) {
		return nil, svcerr.Invalid("input", "input must be JSON")
	}
	return trimmed, nil
}

// queryOf turns a flat JSON object into query parameters (see the package doc).
func queryOf(input json.RawMessage) (url.Values, error) {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return url.Values{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || dec.More() {
		return nil, svcerr.Invalid("input", "input of this operation must be a flat JSON object (sent as query parameters)")
	}
	q := url.Values{}
	for k, v := range obj {
		if err := addQuery(q, k, v, true); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// addQuery adds one input value as query parameters; arrays are allowed one level deep.
func addQuery(q url.Values, key string, v any, arrayOK bool) error {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		q.Add(key, x)
	case json.Number:
		q.Add(key, x.String())
	case bool:
		q.Add(key, strconv.FormatBool(x))
	case []any:
		if !arrayOK {
			return svcerr.Invalid("input."+key, "a query parameter list may hold only strings, numbers and booleans")
		}
		for _, item := range x {
			if item == nil {
				return svcerr.Invalid("input."+key, "a query parameter list may hold only strings, numbers and booleans")
			}
			if err := addQuery(q, key, item, false); err != nil {
				return err
			}
		}
	default:
		return svcerr.Invalid("input."+key, "nested objects cannot be sent as query parameters")
	}
	return nil
}

// resultOf checks the protocol headers and shapes the answer.
func resultOf(ex exchanged) (InvokeResult, error) {
	res := InvokeResult{
		Status: ex.status, ContentType: ex.header.Get("Content-Type"),
		UpstreamRequestID: upstreamRequestID(ex.header), Result: resultJSON(ex.body),
		RetryAfter: retryAfter(ex.header.Get("Retry-After")), Body: ex.body,
	}
	values := ex.header.Values(HeaderCreditsCharged)
	if len(values) == 0 {
		return res, nil
	}
	m, err := ParseCredits(strings.TrimSpace(values[0]))
	if err != nil || len(values) > 1 {
		e := svcerr.New(CodeUpstreamInvalidResponse, "the service reported an invalid charge in %s", HeaderCreditsCharged).
			WithDetails("upstreamStatus", ex.status)
		if res.UpstreamRequestID != "" {
			e = e.WithDetails("upstreamRequestId", res.UpstreamRequestID)
		}
		return InvokeResult{}, e
	}
	res.ChargedMillicredits, res.ChargeReported = m, true
	return res, nil
}

// retryAfter reads a Retry-After value: whole seconds or an HTTP date; 0 when absent or unreadable.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

// IsFile reports whether the answer is a file rather than JSON or text: a body of another media type
// than JSON or text (an image, audio), which a run keeps as an artifact.
func (r InvokeResult) IsFile() bool {
	if len(r.Body) == 0 {
		return false
	}
	mt, _, err := mime.ParseMediaType(r.ContentType)
	if err != nil {
		return !utf8.Valid(r.Body)
	}
	return !(mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasPrefix(mt, "text/"))
}

// resultJSON is the body when it is JSON, else the body as a JSON string; null when empty.
func resultJSON(body []byte) json.RawMessage {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(trimmed) {
		return json.RawMessage(trimmed)
	}
	s, _ := json.Marshal(string(body)) // a string always encodes
	return s
}

// upstreamRequestID picks the upstream's correlation id, dropping values unsafe to echo in a header.
func upstreamRequestID(h http.Header) string {
	for _, name := range []string{HeaderUpstreamRequestID, HeaderRequestID} {
		if v := strings.TrimSpace(h.Get(name)); v != "" && len(v) <= maxUpstreamIDLength && visibleASCII(v) {
			return v
		}
	}
	return ""
}

func visibleASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x21 || r > 0x7e })
}

// failure classifies a failed exchange made under callCtx, a child of the caller's ctx. The message is
// safe for callers (it never names an address or a secret); the cause stays wrapped for logs.
func failure(ctx, callCtx context.Context, svc Service, err error) error {
	var blocked *BlockedAddressError
	var tooLarge errTooLarge
	var e *svcerr.Error
	switch {
	case errors.As(err, &blocked):
		e = svcerr.New(CodeUpstreamBlocked, "the address of service %q is not allowed: a %s address", svc.ID, blocked.Class).
			WithDetails("addressClass", blocked.Class)
	case errors.Is(err, errCrossOriginRedirect):
		e = svcerr.New(CodeUpstreamBlocked, "service %q redirected to another origin; the redirect was not followed", svc.ID)
	case errors.As(err, &tooLarge):
		e = svcerr.New(CodeUpstreamInvalidResponse, "the answer of service %q is larger than %d bytes", svc.ID, tooLarge.limit)
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("invoke %s: %w", svc.ID, ctx.Err()) // the caller went away
	case errors.Is(callCtx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		e = svcerr.New(CodeUpstreamTimeout, "service %q did not answer within %s", svc.ID, timeoutOf(svc))
	default:
		e = svcerr.New(CodeUpstreamUnreachable, "service %q could not be reached", svc.ID)
	}
	return fmt.Errorf("%w: %w", e.WithDetails("serviceId", svc.ID), err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
