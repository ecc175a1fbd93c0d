// Package client is the Go SDK of the svc platform API.
//
// A Client speaks the versioned HTTPS JSON API below {host_url}/v1. Every method returns a Response and
// never an error: the SDK returns the same envelopes as the HTTPS API and never panics or fails with a Go
// error for an ordinary API failure.
//
//	c := client.New(client.WithAPIKey(os.Getenv("SVC_API_KEY")))
//	resp := c.CreateRun(ctx, client.CreateRunRequest{ServiceID: client.ServiceManagedWorkflows, OperationID: client.OperationEcho})
//	if !resp.OK {
//		log.Fatalf("%s [%s]", resp.Error, resp.RequestID)
//	}
//	fmt.Println(resp.Body.Run.ID)
//
// # Failures
//
// A Response is OK when the server answered 2xx with a success envelope. Otherwise Response.Error is set:
//
//   - An API failure carries the server's error envelope as is (Code, Message, RequestID, Param, Details)
//     and the real HTTP status in StatusCode. A non-2xx answer without an error object (for example /health
//     answering 503 while degraded) gets an Error whose Code is derived from the status; Body still holds
//     whatever the answer decoded to.
//   - A transport failure (connection refused, DNS, TLS, timeout, a cancelled context, a body cut short)
//     has Code CodeTransportError and StatusCode 0: no complete response was received.
//   - An answer whose body is not the JSON the SDK expects has Code CodeInvalidResponse; StatusCode, Header
//     and Raw then describe what the server (or a proxy in front of it) actually sent.
//   - An argument the SDK can reject without asking the server (an empty path id, an input that cannot be
//     encoded as JSON) has Code CodeInvalidRequest, Param naming the argument, and StatusCode 0.
//
// # Idempotency and retries
//
// Every route that requires an Idempotency-Key (CreateAPIKey, RevokeAPIKey, CreateRun) takes CallOptions.
// Pass WithIdempotencyKey to choose the key; without one the SDK generates a random UUID-shaped key per
// call. The key actually sent is returned in Response.IdempotencyKey. The SDK does not retry on its own:
// to retry a call safely (after a transport error, 409 idempotency_in_flight, 429 or 503), call the method
// again with WithIdempotencyKey(resp.IdempotencyKey) and the same arguments. The server then either
// performs the request once or replays its first answer (Response.Replayed is true).
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// SDKVersion is the version of this SDK, sent in the default User-Agent.
const SDKVersion = "0.1.0"

// DefaultUserAgent is the User-Agent sent unless WithUserAgent replaces it.
const DefaultUserAgent = "svc-go/" + SDKVersion

// DefaultTimeout bounds each request of a Client built without WithHTTPClient.
const DefaultTimeout = 60 * time.Second

// DefaultPollInterval is the WaitRun interval used when a non-positive interval is given.
const DefaultPollInterval = time.Second

// maxResponseBody caps how much of an answer the SDK reads.
const maxResponseBody = 32 << 20

// Request and response headers of the API.
const (
	HeaderAuthorization  = "Authorization"
	HeaderIdempotencyKey = "Idempotency-Key"
	HeaderProject        = "X-Svc-Project"
	HeaderCreditToken    = "X-Svc-Credit-Token"
	HeaderRequestID      = "X-Request-Id"
	HeaderReplayed       = "Idempotent-Replayed"
	HeaderRetryAfter     = "Retry-After"
	HeaderLimitOperation = "X-Svc-Limit-Operation"
)

// Client calls the platform API. It is safe for concurrent use; build it with New.
type Client struct {
	baseURL     string
	apiKey      string
	creditToken string
	project     string
	userAgent   string
	http        *http.Client
}

// Option configures a Client in New.
type Option func(*Client)

// WithBaseURL sets the API address. Both the host root (https://api.example.com) and the versioned base
// (https://api.example.com/v1) are accepted; a trailing slash is ignored. Default DefaultBaseURL.
func WithBaseURL(u string) Option {
	return func(c *Client) { c.baseURL = NormalizeBaseURL(u) }
}

// WithAPIKey sets the secret sent as Authorization: Bearer <key> on every authenticated request.
func WithAPIKey(key string) Option {
	return func(c *Client) { c.apiKey = strings.TrimSpace(key) }
}

// WithCreditToken sets the first-key credit token. CreateAPIKey sends it in X-Svc-Credit-Token when the
// client has no API key; no other call sends it.
func WithCreditToken(token string) Option {
	return func(c *Client) { c.creditToken = strings.TrimSpace(token) }
}

// WithProject selects the active project (X-Svc-Project) for an account-level key on every authenticated
// request.
func WithProject(projectID string) Option {
	return func(c *Client) { c.project = strings.TrimSpace(projectID) }
}

// WithHTTPClient replaces the HTTP client (default: a client with DefaultTimeout). A nil client is ignored.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithUserAgent replaces the User-Agent header (default DefaultUserAgent).
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua }
}

// New returns a Client configured by opts.
func New(opts ...Option) *Client {
	c := &Client{
		baseURL:   DefaultBaseURL,
		userAgent: DefaultUserAgent,
		http:      &http.Client{Timeout: DefaultTimeout},
	}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// NormalizeBaseURL turns a host root or a versioned base into the versioned base URL: surrounding space and
// trailing slashes are dropped and /v1 is appended unless the path already ends in it. An empty string
// gives DefaultBaseURL.
func NormalizeBaseURL(u string) string {
	u = strings.TrimRight(strings.TrimSpace(u), "/")
	if u == "" {
		return DefaultBaseURL
	}
	if !strings.HasSuffix(u, "/"+APIVersion) {
		u += "/" + APIVersion
	}
	return u
}

// BaseURL is the versioned base URL every route is resolved against.
func (c *Client) BaseURL() string { return c.baseURL }

// HasAPIKey reports whether the client sends an API key.
func (c *Client) HasAPIKey() bool { return c.apiKey != "" }

// Response is the outcome of one call. Exactly one of these holds: OK is true and Body is the decoded
// success envelope, or OK is false and Error says why (see the package documentation for the SDK's own
// codes). Body is also filled, as far as the answer decodes, for failures that carry a body.
type Response[T any] struct {
	// OK is true for a 2xx answer with a decodable success envelope.
	OK bool
	// StatusCode is the HTTP status, or 0 when no complete response was received.
	StatusCode int
	// Header holds the response headers (nil when no response was received).
	Header http.Header
	// RequestID is X-Request-Id, or the error body's requestId when the header is missing.
	RequestID string
	// Replayed is true when the server replayed an earlier answer (Idempotent-Replayed: true).
	Replayed bool
	// IdempotencyKey is the Idempotency-Key sent (given or generated), "" on routes that take none.
	// Reuse it with WithIdempotencyKey to retry the call safely.
	IdempotencyKey string
	// Error is the failure, nil when OK.
	Error *Error
	// Body is the decoded answer.
	Body T
	// Raw is the undecoded response body, e.g. to print the envelope exactly as received.
	Raw []byte
}

// Err returns Error as an error, or nil when the response is OK.
func (r Response[T]) Err() error {
	if r.Error == nil {
		return nil
	}
	return r.Error
}

// RetryAfter is the Retry-After header as a duration, 0 when absent or not a number of seconds.
func (r Response[T]) RetryAfter() time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(r.Header.Get(HeaderRetryAfter)))
	if err != nil || s < 0 {
		return 0
	}
	return time.Duration(s) * time.Second
}

// CallOption adjusts one call.
type CallOption func(*callConfig)

type callConfig struct {
	idempotencyKey string
	header         http.Header
}

// WithIdempotencyKey sets the Idempotency-Key (1..255 visible ASCII characters) of an idempotent call.
// Retrying with the same key and the same arguments is safe. Ignored by calls that take no key.
func WithIdempotencyKey(key string) CallOption {
	return func(cc *callConfig) { cc.idempotencyKey = key }
}

// WithHeader adds a request header to one call, e.g. for a header this SDK version does not model.
func WithHeader(name, value string) CallOption {
	return func(cc *callConfig) {
		if cc.header == nil {
			cc.header = http.Header{}
		}
		cc.header.Add(name, value)
	}
}

// NewIdempotencyKey returns a random version-4 UUID from crypto/rand, suitable as an Idempotency-Key.
func NewIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it aborts the program instead)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// ListParams pages through a list: Limit 1..200 (0 means the server's default, 50) and Cursor, the
// NextCursor of the previous page ("" for the first page).
type ListParams struct {
	Limit  int
	Cursor string
}

// setFilters sets each name/value pair whose value is not empty, and from/to when they are set.
func setFilters(q url.Values, from, to time.Time, pairs ...[2]string) url.Values {
	for _, f := range pairs {
		if f[1] != "" {
			q.Set(f[0], f[1])
		}
	}
	if !from.IsZero() {
		q.Set("from", from.UTC().Format(time.RFC3339Nano))
	}
	if !to.IsZero() {
		q.Set("to", to.UTC().Format(time.RFC3339Nano))
	}
	return q
}

func (p ListParams) query() url.Values {
	q := url.Values{}
	if p.Limit != 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	return q
}

// authMode says which credentials a call sends.
type authMode int

const (
	authNone authMode = iota
	authKey
	authKeyOrCreditToken
)

// call describes one HTTP request relative to the base URL.
type call struct {
	method string
	path   string // already escaped, starting with "/"
	query  url.Values
	body   any
	// raw, when not nil, is sent as the body as it is (streamed), with rawLen as Content-Length and
	// rawType as Content-Type; body is then ignored.
	raw     io.Reader
	rawLen  int64
	rawType string
	auth    authMode
	idem    bool
	opts    []CallOption
	// root resolves path against the host root instead of the versioned base (seed 002's routes).
	root bool
}

// send performs c and decodes the answer into a Response[T].
func send[T any](ctx context.Context, cl *Client, c call) Response[T] {
	var out Response[T]
	cc := callConfig{}
	for _, o := range c.opts {
		if o != nil {
			o(&cc)
		}
	}
	if c.idem {
		out.IdempotencyKey = cc.idempotencyKey
		if out.IdempotencyKey == "" {
			out.IdempotencyKey = NewIdempotencyKey()
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}

	u := cl.baseURL + c.path
	if c.root {
		u = strings.TrimSuffix(cl.baseURL, "/"+APIVersion) + c.path
	}
	if len(c.query) > 0 {
		u += "?" + c.query.Encode()
	}
	var body io.Reader
	if c.body != nil {
		b, err := json.Marshal(c.body)
		if err != nil {
			out.Error = &Error{Code: CodeInvalidRequest, Param: "body", Message: "the request body cannot be encoded as JSON: " + err.Error()}
			return out
		}
		body = bytes.NewReader(b)
	}
	if c.raw != nil {
		body = c.raw
	}
	req, err := http.NewRequestWithContext(ctx, c.method, u, body)
	if err != nil {
		out.Error = &Error{Code: CodeTransportError, Message: "build request: " + err.Error()}
		return out
	}
	if c.raw != nil {
		req.ContentLength = c.rawLen
		req.Header.Set("Content-Type", c.rawType)
	}
	req.Header.Set("Accept", "application/json")
	if cl.userAgent != "" {
		req.Header.Set("User-Agent", cl.userAgent)
	}
	if c.body != nil && c.raw == nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.auth != authNone {
		switch {
		case cl.apiKey != "":
			req.Header.Set(HeaderAuthorization, "Bearer "+cl.apiKey)
		case c.auth == authKeyOrCreditToken && cl.creditToken != "":
			req.Header.Set(HeaderCreditToken, cl.creditToken)
		}
		if cl.project != "" {
			req.Header.Set(HeaderProject, cl.project)
		}
	}
	if c.idem {
		req.Header.Set(HeaderIdempotencyKey, out.IdempotencyKey)
	}
	for k, vs := range cc.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}

	resp, err := cl.http.Do(req)
	if err != nil {
		out.Error = &Error{Code: CodeTransportError, Message: transportMessage(ctx, err)}
		return out
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
	if err != nil {
		out.Error = &Error{Code: CodeTransportError, Message: "read response: " + transportMessage(ctx, err)}
		return out
	}
	out.StatusCode = resp.StatusCode
	out.Header = resp.Header
	out.RequestID = resp.Header.Get(HeaderRequestID)
	out.Replayed = strings.EqualFold(resp.Header.Get(HeaderReplayed), "true")
	out.Raw = data
	if len(data) > maxResponseBody {
		out.Raw = nil
		out.Error = &Error{Code: CodeInvalidResponse, RequestID: out.RequestID,
			Message: fmt.Sprintf("HTTP %d: the response body is larger than %d bytes", resp.StatusCode, maxResponseBody)}
		return out
	}
	decode(&out, resp.StatusCode, data)
	if out.Error != nil {
		if out.Error.RequestID == "" {
			out.Error.RequestID = out.RequestID
		}
		if out.RequestID == "" {
			out.RequestID = out.Error.RequestID
		}
	}
	return out
}

// probe is the part of every envelope the SDK inspects before decoding the body.
type probe struct {
	OK    *bool           `json:"ok"`
	Error json.RawMessage `json:"error"`
}

// decode fills out.OK, out.Body and out.Error from an answer.
func decode[T any](out *Response[T], status int, data []byte) {
	success := status >= 200 && status < 300
	var p probe
	if len(bytes.TrimSpace(data)) == 0 || json.Unmarshal(data, &p) != nil {
		out.Error = &Error{Code: CodeInvalidResponse, Message: fmt.Sprintf("HTTP %d: the response body is not a JSON object%s",
			status, snippet(data))}
		return
	}
	hasError := len(p.Error) > 0 && string(p.Error) != "null"
	if success && !hasError && (p.OK == nil || *p.OK) {
		if err := json.Unmarshal(data, &out.Body); err != nil {
			out.Error = &Error{Code: CodeInvalidResponse, Message: fmt.Sprintf("HTTP %d: cannot decode the response: %v", status, err)}
			return
		}
		out.OK = true
		return
	}
	_ = json.Unmarshal(data, &out.Body) // best effort: some failures (a degraded /health) carry a body
	if hasError {
		var e Error
		if json.Unmarshal(p.Error, &e) == nil && e.Code != "" {
			out.Error = &e
			return
		}
	}
	out.Error = &Error{Code: codeForStatus(status), Message: fmt.Sprintf("HTTP %d %s without an error object in the body",
		status, http.StatusText(status))}
}

// codeForStatus names a failure that arrived without an error object, following CONTRACT.md.
func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return CodeInvalidRequest
	case http.StatusUnauthorized:
		return CodeUnauthenticated
	case http.StatusPaymentRequired:
		return CodePaymentRequired
	case http.StatusForbidden:
		return CodeForbidden
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusMethodNotAllowed:
		return CodeMethodNotAllowed
	case http.StatusConflict:
		return CodeConflict
	case http.StatusRequestEntityTooLarge:
		return CodePayloadTooLarge
	case http.StatusUnsupportedMediaType:
		return CodeUnsupportedMediaType
	case http.StatusUnprocessableEntity:
		return CodeIdempotencyKeyReused
	case http.StatusTooManyRequests:
		return CodeLimitExceeded
	case http.StatusServiceUnavailable:
		return CodeUnavailable
	}
	if status >= 500 {
		return CodeInternal
	}
	if status >= 200 && status < 300 {
		return CodeInvalidResponse // a 2xx that says ok: false without an error object
	}
	return CodeHTTPError
}

func snippet(data []byte) string {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return " (empty body)"
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf(" (%q)", s)
}

func transportMessage(ctx context.Context, err error) string {
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return ctxErr.Error()
	}
	return err.Error()
}

// invalidArg is the Response of a call rejected before it was sent.
func invalidArg[T any](param, msg string) Response[T] {
	return Response[T]{Error: &Error{Code: CodeInvalidRequest, Param: param, Message: msg}}
}

// Health reads GET {base_url}/health: the service status and API version. A degraded service answers 503;
// the Response is then not OK, Error.Code is "unavailable" and Body still holds the checks.
func (c *Client) Health(ctx context.Context) Response[Health] {
	return send[Health](ctx, c, call{method: http.MethodGet, path: "/health"})
}

// OpenAPI reads the OpenAPI 3.1 document, GET {base_url}/openapi.json.
func (c *Client) OpenAPI(ctx context.Context) Response[map[string]any] {
	return send[map[string]any](ctx, c, call{method: http.MethodGet, path: "/openapi.json"})
}
