package apprun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/gateway"
)

// MaxFetchBody bounds the response body http.fetch reads, in bytes.
const MaxFetchBody = 256 << 10

// fetchOptions are http.fetch's second argument.
type fetchOptions struct {
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    *string           `json:"body"`
}

// fetchAnswer is what http.fetch answers the script.
type fetchAnswer struct {
	Status  int               `json:"status"`
	OK      bool              `json:"ok"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// httpFetch performs an HTTP request through the platform's outbound guard: every dialled address is
// checked after DNS (private, loopback, link-local and metadata addresses are refused; loopback only
// when the platform allows it, in dev and tests), no proxy, at most 5 redirects.
func (h *Host) httpFetch(ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
	raw, err := stringArg(args, 0, "url")
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return nil, errors.New("url must be an http or https URL without credentials")
	}
	var opts fetchOptions
	if len(args) > 1 && string(args[1]) != "null" {
		if err := json.Unmarshal(args[1], &opts); err != nil {
			return nil, fmt.Errorf("argument 2 (options) must be {method, headers, body}: %w", err)
		}
	}
	req, err := fetchRequest(ctx, u, opts)
	if err != nil {
		return nil, err
	}
	resp, err := guardedClient(h.deps.AllowLoopback).Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxFetchBody))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", u.Redacted(), err)
	}
	ans := fetchAnswer{Status: resp.StatusCode, OK: resp.StatusCode < 300, Headers: map[string]string{}, Body: string(body)}
	for k := range resp.Header {
		ans.Headers[strings.ToLower(k)] = resp.Header.Get(k)
	}
	return json.Marshal(ans)
}

// fetchRequest builds http.fetch's request from its options.
func fetchRequest(ctx context.Context, u *url.URL, opts fetchOptions) (*http.Request, error) {
	m := strings.ToUpper(opts.Method)
	if m == "" {
		m = http.MethodGet
	}
	var body io.Reader
	if opts.Body != nil {
		body = strings.NewReader(*opts.Body)
	}
	req, err := http.NewRequestWithContext(ctx, m, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("build the request: %w", err)
	}
	req.Header.Set("User-Agent", "svc-appscript/1")
	for k, v := range opts.Headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// guardedClient dials through the outbound guard.
func guardedClient(allowLoopback bool) *http.Client {
	dialer := gateway.GuardedDialer(false, allowLoopback)
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext, Proxy: nil,
		TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: 15 * time.Second},
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			return nil
		}}
}
