package gateway

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
)

// seen is what the upstream received.
type seen struct {
	method, path, rawQuery string
	header                 http.Header
	body                   string
}

// upstream starts a real HTTP server on 127.0.0.1 that records each request and answers with h.
func upstream(t *testing.T, h http.HandlerFunc) (*httptest.Server, chan seen) {
	t.Helper()
	got := make(chan seen, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- seen{method: r.Method, path: r.URL.Path, rawQuery: r.URL.RawQuery, header: r.Header.Clone(), body: string(body)}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// service is a service at base with one operation.
func service(t *testing.T, base string, op Operation) Service {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	return Service{ID: "up", Name: "up", BaseURL: u, Timeout: 5 * time.Second, Operations: []Operation{op}}
}

// devInvoker allows loopback, as `svcd dev` does.
func devInvoker(t *testing.T, opts Options) *Invoker {
	t.Helper()
	opts.AllowLoopback = true
	inv := NewInvoker(opts)
	t.Cleanup(inv.Close)
	return inv
}

// credFunc is a Credential made of a function.
type credFunc func(*http.Request)

func (f credFunc) Apply(r *http.Request) { f(r) }

// requireSvcErr asserts err carries a svcerr.Error with the code and returns it.
func requireSvcErr(t *testing.T, err error, code string) *svcerr.Error {
	t.Helper()
	require.Error(t, err)
	e, ok := svcerr.As(err)
	require.True(t, ok, "want a svcerr.Error, got %v", err)
	require.Equal(t, code, e.Code, "%v", err)
	return e
}

var post = Operation{ID: "generate", Method: http.MethodPost, Path: "/v1/images"}

// TestInvokeForwardsPost sends method, path (below the base path), body and headers, and parses the answer.
func TestInvokeForwardsPost(t *testing.T) {
	t.Parallel()
	srv, got := upstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(HeaderCreditsCharged, "1.5")
		w.Header().Set(HeaderUpstreamRequestID, "up-123")
		w.Header().Set(HeaderRequestID, "ignored-when-the-svc-header-is-there")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"image":"abc","n":2}`)
	})
	inv := devInvoker(t, Options{})
	res, err := inv.Invoke(context.Background(), InvokeRequest{
		Service: service(t, srv.URL+"/api/", post), Operation: post,
		Input: json.RawMessage(`{"prompt":"a cat"}`), RequestID: "req_abc",
	})
	require.NoError(t, err)
	r := <-got
	require.Equal(t, http.MethodPost, r.method)
	require.Equal(t, "/api/v1/images", r.path)
	require.JSONEq(t, `{"prompt":"a cat"}`, r.body)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	require.Equal(t, "req_abc", r.header.Get("X-Request-Id"))
	require.Empty(t, r.header.Values("Authorization"), "nothing is sent without a credential")

	require.Equal(t, http.StatusCreated, res.Status)
	require.JSONEq(t, `{"image":"abc","n":2}`, string(res.Result))
	require.True(t, res.ChargeReported)
	require.Equal(t, int64(1500), res.ChargedMillicredits)
	require.Equal(t, "up-123", res.UpstreamRequestID)
	require.Equal(t, "application/json", res.ContentType)

	put := Operation{ID: "put", Method: http.MethodPut, Path: "/p"}
	_, err = inv.Invoke(context.Background(), InvokeRequest{Service: service(t, srv.URL, put), Operation: put})
	require.NoError(t, err)
	r = <-got
	require.Equal(t, http.MethodPut, r.method)
	require.Equal(t, "{}", r.body, "an empty input is an empty object")
}

// TestInvokeSendsQuery turns a flat input object into query parameters for GET and DELETE.
func TestInvokeSendsQuery(t *testing.T) {
	t.Parallel()
	srv, got := upstream(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	inv := devInvoker(t, Options{})
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		op := Operation{ID: "q", Method: method, Path: "/v1/search"}
		res, err := inv.Invoke(context.Background(), InvokeRequest{
			Service: service(t, srv.URL, op), Operation: op,
			Input: json.RawMessage(`{"q":"a cat & dog","n":3,"t":0.5,"hd":true,"tags":["a","b"],"skip":null}`),
		})
		require.NoError(t, err)
		require.Equal(t, http.StatusNoContent, res.Status)
		require.JSONEq(t, "null", string(res.Result))
		r := <-got
		require.Equal(t, method, r.method)
		require.Empty(t, r.body)
		require.Empty(t, r.header.Get("Content-Type"))
		q, err := url.ParseQuery(r.rawQuery)
		require.NoError(t, err)
		require.Equal(t, url.Values{"q": {"a cat & dog"}, "n": {"3"}, "t": {"0.5"}, "hd": {"true"}, "tags": {"a", "b"}}, q)
	}

	get := Operation{ID: "q", Method: http.MethodGet, Path: "/v1/search"}
	for input, param := range map[string]string{
		`{"nested":{"a":1}}`:    "input.nested",
		`{"list":[{"a":1}]}`:    "input.list",
		`{"list":[["a"]]}`:      "input.list",
		`{"list":[null]}`:       "input.list",
		`["not","an","object"]`: "input",
		`"text"`:                "input",
	} {
		_, err := inv.Invoke(context.Background(), InvokeRequest{Service: service(t, srv.URL, get), Operation: get, Input: json.RawMessage(input)})
		e := requireSvcErr(t, err, svcerr.InvalidRequest)
		require.Equal(t, param, e.Param, input)
	}
	_, err := inv.Invoke(context.Background(), InvokeRequest{Service: service(t, srv.URL, post), Operation: post, Input: json.RawMessage(`{bad`)})
	e := requireSvcErr(t, err, svcerr.InvalidRequest)
	require.Equal(t, "input", e.Param)
	require.Empty(t, got, "invalid input never reaches the upstream")
}

// TestInvokeInjectsCredentials applies each kind of credential and nothing else.
func TestInvokeInjectsCredentials(t *testing.T) {
	t.Parallel()
	srv, got := upstream(t, func(w http.ResponseWriter, _ *http.Request) {})
	inv := devInvoker(t, Options{})
	svc := service(t, srv.URL, post)
	call := func(c Credential) http.Header {
		_, err := inv.Invoke(context.Background(), InvokeRequest{Service: svc, Operation: post, Credential: c, RequestID: "req_1"})
		require.NoError(t, err)
		return (<-got).header
	}

	h := call(credFunc(func(r *http.Request) { r.Header.Set("X-Api-Key", "hdr-secret") }))
	require.Equal(t, "hdr-secret", h.Get("X-Api-Key"))
	require.Empty(t, h.Values("Authorization"), "a header credential sends no Authorization")

	h = call(credFunc(func(r *http.Request) { r.Header.Set("Authorization", "Bearer tok") }))
	require.Equal(t, []string{"Bearer tok"}, h.Values("Authorization"))

	h = call(credFunc(func(r *http.Request) { r.SetBasicAuth("alice", "pw") }))
	req := &http.Request{Header: h}
	user, pass, ok := req.BasicAuth()
	require.True(t, ok)
	require.Equal(t, "alice", user)
	require.Equal(t, "pw", pass)
	require.Equal(t, "req_1", h.Get("X-Request-Id"))

	h = call(nil)
	require.Empty(t, h.Values("Authorization"))
}

// TestInvokeChargeHeader parses X-Svc-Credits-Charged exactly and treats a bad one as a protocol error.
func TestInvokeChargeHeader(t *testing.T) {
	t.Parallel()
	srv, _ := upstream(t, func(w http.ResponseWriter, r *http.Request) {
		for _, v := range r.URL.Query()["charge"] {
			w.Header().Add(HeaderCreditsCharged, v)
		}
		w.Header().Set(HeaderRequestID, "upstream-own-id")
	})
	inv := devInvoker(t, Options{})
	get := Operation{ID: "c", Method: http.MethodGet, Path: "/c"}
	invoke := func(input string) (InvokeResult, error) {
		return inv.Invoke(context.Background(), InvokeRequest{Service: service(t, srv.URL, get), Operation: get, Input: json.RawMessage(input)})
	}
	for charge, want := range map[string]int64{"1.5": 1500, "0": 0, "2": 2000, "0.125": 125} {
		res, err := invoke(`{"charge":"` + charge + `"}`)
		require.NoError(t, err, charge)
		require.True(t, res.ChargeReported)
		require.Equal(t, want, res.ChargedMillicredits, charge)
		require.Equal(t, "upstream-own-id", res.UpstreamRequestID, "the upstream's X-Request-Id is the fallback")
	}
	res, err := invoke(`{}`)
	require.NoError(t, err)
	require.False(t, res.ChargeReported)
	require.Zero(t, res.ChargedMillicredits)

	for _, input := range []string{`{"charge":"abc"}`, `{"charge":"-1"}`, `{"charge":"1.2345"}`, `{"charge":"1e2"}`, `{"charge":""}`, `{"charge":["1","2"]}`} {
		_, err := invoke(input)
		e := requireSvcErr(t, err, CodeUpstreamInvalidResponse)
		require.Contains(t, e.Message, HeaderCreditsCharged, input)
		require.Equal(t, http.StatusOK, e.Details["upstreamStatus"])
		require.Equal(t, "upstream-own-id", e.Details["upstreamRequestId"])
	}
}

// TestInvokeAnswerShapes returns non-JSON bodies as strings and error statuses as answers, drops unsafe
// upstream ids, and refuses bodies over the cap.
func TestInvokeAnswerShapes(t *testing.T) {
	t.Parallel()
	srv, _ := upstream(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/text":
			w.Header().Set(HeaderUpstreamRequestID, "bad id with spaces")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "upstream broke")
		case "/big":
			_, _ = io.WriteString(w, strings.Repeat("x", 2048))
		case "/exact":
			_, _ = io.WriteString(w, `"`+strings.Repeat("y", 1022)+`"`)
		}
	})
	inv := devInvoker(t, Options{MaxResponseBytes: 1024})
	call := func(path string) (InvokeResult, error) {
		op := Operation{ID: "o", Method: http.MethodGet, Path: path}
		return inv.Invoke(context.Background(), InvokeRequest{Service: service(t, srv.URL, op), Operation: op})
	}
	res, err := call("/text")
	require.NoError(t, err)
	require.Equal(t, http.StatusBadGateway, res.Status)
	require.JSONEq(t, `"upstream broke"`, string(res.Result))
	require.Empty(t, res.UpstreamRequestID)

	res, err = call("/exact")
	require.NoError(t, err)
	require.Len(t, res.Result, 1024)

	_, err = call("/big")
	requireSvcErr(t, err, CodeUpstreamInvalidResponse)
}

// TestInvokeTimeout answers upstream_timeout when the upstream does not answer within the service timeout.
func TestInvokeTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv, _ := upstream(t, func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // runs before srv.Close
	inv := devInvoker(t, Options{})
	svc := service(t, srv.URL, post)
	svc.Timeout = 100 * time.Millisecond
	_, err := inv.Invoke(context.Background(), InvokeRequest{Service: svc, Operation: post})
	e := requireSvcErr(t, err, CodeUpstreamTimeout)
	require.Equal(t, "up", e.Details["serviceId"])
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestInvokeCallerCancels returns the context's error, not an upstream error, when the caller goes away.
func TestInvokeCallerCancels(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	srv, _ := upstream(t, func(_ http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	})
	inv := devInvoker(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := inv.Invoke(ctx, InvokeRequest{Service: service(t, srv.URL, post), Operation: post})
	require.ErrorIs(t, err, context.Canceled)
	_, isSvc := svcerr.As(err)
	require.False(t, isSvc)
}

// TestInvokeUnreachable answers upstream_unreachable for a closed port and an untrusted TLS certificate.
func TestInvokeUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	inv := devInvoker(t, Options{})
	_, err = inv.Invoke(context.Background(), InvokeRequest{Service: service(t, closed, post), Operation: post})
	e := requireSvcErr(t, err, CodeUpstreamUnreachable)
	require.NotContains(t, e.Message, "127.0.0.1", "callers are not told internal addresses")

	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	_, err = inv.Invoke(context.Background(), InvokeRequest{Service: service(t, tlsSrv.URL, post), Operation: post})
	requireSvcErr(t, err, CodeUpstreamUnreachable)
}

// TestGuardLoopback refuses a loopback upstream (by address or by name) without an allowance, before
// any byte reaches it, and admits it with AllowLoopback or allowPrivate.
func TestGuardLoopback(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv, _ := upstream(t, func(http.ResponseWriter, *http.Request) { hits.Add(1) })
	const secret = "very-secret-token-value"
	cred := credFunc(func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+secret) })
	strict := NewInvoker(Options{})
	t.Cleanup(strict.Close)

	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	for _, base := range []string{srv.URL, "http://localhost:" + port} {
		_, err := strict.Invoke(context.Background(), InvokeRequest{Service: service(t, base, post), Operation: post, Credential: cred})
		e := requireSvcErr(t, err, CodeUpstreamBlocked)
		require.Equal(t, ClassLoopback, e.Details["addressClass"], base)
		require.Contains(t, e.Message, "loopback")
		require.NotContains(t, err.Error(), secret)
		var blocked *BlockedAddressError
		require.ErrorAs(t, err, &blocked)
	}
	require.Zero(t, hits.Load(), "a refused connection never reached the upstream")

	_, err := devInvoker(t, Options{}).Invoke(context.Background(), InvokeRequest{Service: service(t, srv.URL, post), Operation: post})
	require.NoError(t, err)
	private := service(t, srv.URL, post)
	private.AllowPrivate = true
	_, err = strict.Invoke(context.Background(), InvokeRequest{Service: private, Operation: post})
	require.NoError(t, err)
	require.Equal(t, int32(2), hits.Load())
}

// TestGuardPrivateAndMetadata refuses private and metadata IP literals at dial time; AllowLoopback does
// not admit them, allowPrivate admits private but never metadata.
func TestGuardPrivateAndMetadata(t *testing.T) {
	t.Parallel()
	inv := devInvoker(t, Options{})
	for base, class := range map[string]string{
		"http://10.0.0.1:9":          ClassPrivate,
		"http://192.168.1.1:9":       ClassPrivate,
		"http://[fd00::1]:9":         ClassPrivate,
		"http://169.254.169.254:80":  ClassMetadata,
		"http://169.254.1.1:80":      ClassLinkLocal,
		"http://0.0.0.0:9":           ClassUnspecified,
		"http://[::ffff:10.1.2.3]:9": ClassPrivate,
	} {
		_, err := inv.Invoke(context.Background(), InvokeRequest{Service: service(t, base, post), Operation: post})
		e := requireSvcErr(t, err, CodeUpstreamBlocked)
		require.Equal(t, class, e.Details["addressClass"], base)
	}
	meta := service(t, "http://169.254.169.254:80", post)
	meta.AllowPrivate = true
	_, err := inv.Invoke(context.Background(), InvokeRequest{Service: meta, Operation: post})
	e := requireSvcErr(t, err, CodeUpstreamBlocked)
	require.Equal(t, ClassMetadata, e.Details["addressClass"])
}

// TestGuardRedirects follows a same-origin redirect with the credential, and refuses one to another
// host (even one resolving to the same address) or to a metadata address without following it.
func TestGuardRedirects(t *testing.T) {
	t.Parallel()
	var port string
	srv, got := upstream(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		case "/other-host":
			http.Redirect(w, r, "http://localhost:"+port+"/final", http.StatusFound)
		case "/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/final":
			_, _ = io.WriteString(w, `{"done":true}`)
		}
	})
	_, port, _ = net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	inv := devInvoker(t, Options{})
	cred := credFunc(func(r *http.Request) { r.Header.Set("X-Api-Key", "k") })
	call := func(path string) (InvokeResult, error) {
		op := Operation{ID: "o", Method: http.MethodPost, Path: path}
		return inv.Invoke(context.Background(), InvokeRequest{Service: service(t, srv.URL, op), Operation: op, Credential: cred})
	}

	res, err := call("/same")
	require.NoError(t, err)
	require.JSONEq(t, `{"done":true}`, string(res.Result))
	require.Equal(t, "/same", (<-got).path)
	final := <-got
	require.Equal(t, "/final", final.path)
	require.Equal(t, "k", final.header.Get("X-Api-Key"))

	for _, path := range []string{"/other-host", "/metadata"} {
		_, err = call(path)
		requireSvcErr(t, err, CodeUpstreamBlocked)
		require.Equal(t, path, (<-got).path)
		require.Empty(t, got, "the redirect of %s was not followed", path)
	}
}

// TestClassifyAddr checks the guard's address classes.
func TestClassifyAddr(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"8.8.8.8": "", "2606:4700::1111": "", "100.63.255.255": "", "172.32.0.1": "",
		"127.0.0.1": ClassLoopback, "127.8.9.10": ClassLoopback, "::1": ClassLoopback, "::ffff:127.0.0.1": ClassLoopback,
		"10.1.2.3": ClassPrivate, "172.16.0.1": ClassPrivate, "192.168.0.1": ClassPrivate, "fc00::1": ClassPrivate, "fd12::1": ClassPrivate,
		"100.64.0.1": ClassShared, "100.127.255.254": ClassShared,
		"169.254.10.10": ClassLinkLocal, "fe80::1": ClassLinkLocal,
		"169.254.169.254": ClassMetadata, "fd00:ec2::254": ClassMetadata,
		"0.0.0.0": ClassUnspecified, "::": ClassUnspecified,
		"224.0.0.1": ClassMulticast, "ff02::1": ClassMulticast,
		"0.1.2.3": ClassReserved, "240.0.0.1": ClassReserved, "255.255.255.255": ClassReserved, "198.18.0.1": ClassReserved,
		"64:ff9b::a00:1": ClassPrivate, "64:ff9b::7f00:1": ClassLoopback, "2002:a9fe:a9fe::": ClassMetadata,
		"64:ff9b::808:808": "",
	} {
		require.Equal(t, want, ClassifyAddr(mustAddr(t, addr)), addr)
	}
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	require.NoError(t, err, s)
	return a
}
