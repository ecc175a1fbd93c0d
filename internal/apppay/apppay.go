// Package apppay is x402 pay-per-call for apps (issue 26, seed 002): an app's x402.fetch pays an x402
// v2 server from the owner's managed wallet, only to the manifest's allowedHosts, never above
// min(maxPaymentUsdPerCall, the caller's maxPaymentUsd), within 10 calls a minute and 10 USD a day per
// visitor and app, each call recorded in app_x402_payments and each payment counted by the wallet's
// policy (wallet_spends). Outbound requests go through the SSRF guard and do not follow redirects.
package apppay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/internal/x402"
)

// Seed 002's limits of app x402 calls, per visitor and app.
const (
	// CallsPerMinute is how many x402.fetch calls a visitor may make to one app in a rolling minute.
	CallsPerMinute = 10
	// DailyCents is how much a visitor's calls to one app may pay in a rolling 24 hours (10 USD).
	DailyCents = 1000
)

// Rules a refusal names (svcerr details "rule").
const (
	RuleAllowedHosts = "x402.allowedHosts"
	RulePerCall      = "x402.maxPaymentUsdPerCall"
	RuleCallsMinute  = "app x402 calls: 10 per minute per visitor and app"
	RuleDaily        = "app x402 calls: 10 USD per day per visitor and app"
	RuleOffer        = "x402 offer"
)

// usdcDecimals is the dev and production USDC's number of decimals.
const usdcDecimals = 6

// DefaultTimeout bounds one call (both requests), long enough for a server that settles before answering.
const DefaultTimeout = 90 * time.Second

// MaxBody bounds the answer body an app receives.
const MaxBody = 1 << 20

// idPrefix prefixes the ids of app_x402_payments rows.
const idPrefix = "x4p"

// Config is what a Service needs from the composition root.
type Config struct {
	// DB holds app_x402_payments and the wallets.
	DB *bun.DB
	// Wallets signs with the owners' managed wallets and counts their spend.
	Wallets *wallet.Store
	// Network (CAIP-2) and USDC are the only chain and token an app pays with (the platform's x402 config).
	Network string
	USDC    common.Address
	// AllowLoopback lets outbound calls reach loopback addresses (tests, local development only).
	AllowLoopback bool
	// Timeout bounds one call (0: DefaultTimeout).
	Timeout time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Log receives one line per payment (never a key or a header value); nil discards.
	Log *slog.Logger
}

// Service makes apps' x402 calls.
type Service struct {
	cfg  Config
	http *http.Client
}

// New returns a Service on cfg.
func New(cfg Config) (*Service, error) {
	if cfg.DB == nil || cfg.Wallets == nil {
		return nil, errors.New("apppay: a database and a wallet store are required")
	}
	if _, err := x402.ParseNetwork(cfg.Network); err != nil {
		return nil, fmt.Errorf("apppay: network: %w", err)
	}
	if cfg.USDC == (common.Address{}) {
		return nil, errors.New("apppay: the USDC address is required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	dialer := gateway.GuardedDialer(false, cfg.AllowLoopback)
	hc := &http.Client{
		Transport:     &http.Transport{DialContext: dialer.DialContext, Proxy: nil, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 4},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       cfg.Timeout,
	}
	return &Service{cfg: cfg, http: hc}, nil
}

// Request is one x402.fetch call of an app.
type Request struct {
	AccountID string
	ProjectID *string
	AppSlug   string
	// Visitor is the viewer's id, or "anonymous:<ip-hash>".
	Visitor string
	// WalletID is the owner's managed wallet that pays.
	WalletID string
	// MaxPaymentUsdPerCall and AllowedHosts are the app manifest's x402 settings.
	MaxPaymentUsdPerCall float64
	AllowedHosts         []string
	// URL, Method (GET, POST, PUT or DELETE), Headers and Body are the request to make.
	URL     string
	Method  string
	Headers map[string]string
	Body    []byte
	// MaxPaymentUsd is the caller's own cap (0: none beyond the manifest's).
	MaxPaymentUsd float64
}

// Result is the answer an app receives.
type Result struct {
	Status  int      `json:"status"`
	OK      bool     `json:"ok"`
	Body    string   `json:"body"`
	Payment *Payment `json:"payment,omitempty"`
}

// Payment is what a call paid.
type Payment struct {
	AmountUsd float64 `json:"amountUsd"`
	Network   string  `json:"network"`
	PayTo     string  `json:"payTo"`
	// Transaction is the settlement's transaction hash, when the server sent one.
	Transaction string `json:"transaction,omitempty"`
}

// call is a validated request.
type call struct {
	Request
	scope     tenant.Scope
	target    *url.URL
	capAtomic *big.Int
	capUSD    float64
	header    http.Header
}

// Fetch makes r's call, paying the server's x402 offer from r.WalletID when it answers 402. Refusals
// (nothing paid) are svcerr errors naming the rule: a host outside AllowedHosts or a price above the
// cap 403, the per-minute and per-day limits 429, a malformed request 400.
func (s *Service) Fetch(ctx context.Context, r Request) (*Result, error) {
	c, err := validate(r)
	if err != nil {
		return nil, err
	}
	signer, err := s.cfg.Wallets.PaymentSigner(ctx, c.scope, r.WalletID)
	if err != nil {
		return nil, err
	}
	if signer.Chain() != s.cfg.Network {
		return nil, svcerr.Invalid("walletId", "wallet %s lives on %s; app payments are made on %s", r.WalletID, signer.Chain(), s.cfg.Network)
	}
	id, err := s.begin(ctx, c)
	if err != nil {
		return nil, err
	}
	client := &x402.Client{HTTP: s.http, Signer: signer, Network: s.cfg.Network, Asset: s.cfg.USDC, MaxAtomic: c.capAtomic,
		Now: s.cfg.Now, MaxBody: MaxBody, Approve: func(ctx context.Context, o x402.Offer) error { return s.approve(ctx, c, id, o) }}
	res, err := client.Do(ctx, c.Method, c.target.String(), c.header, c.Body)
	return s.finish(ctx, c, id, res, err)
}

// validate checks r and works out the cap; errors name the field or the rule.
func validate(r Request) (*call, error) {
	for _, f := range []struct{ name, v string }{{"accountId", r.AccountID}, {"appSlug", r.AppSlug}, {"visitor", r.Visitor}, {"walletId", r.WalletID}} {
		if strings.TrimSpace(f.v) == "" {
			return nil, svcerr.Invalid(f.name, "%s is required", f.name)
		}
	}
	method := strings.ToUpper(r.Method)
	if method == "" {
		method = http.MethodGet
	}
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete:
	default:
		return nil, svcerr.Invalid("method", "method is GET, POST, PUT or DELETE, not %q", r.Method)
	}
	if method == http.MethodGet && len(r.Body) > 0 {
		return nil, svcerr.Invalid("body", "a GET carries no body")
	}
	target, err := parseTarget(r.URL, r.AllowedHosts)
	if err != nil {
		return nil, err
	}
	capUSD, capAtomic, err := capOf(r.MaxPaymentUsdPerCall, r.MaxPaymentUsd)
	if err != nil {
		return nil, err
	}
	header, err := headersOf(r.Headers)
	if err != nil {
		return nil, err
	}
	r.Method = method
	return &call{Request: r, scope: tenant.Scope{AccountID: r.AccountID, ProjectID: r.ProjectID}, target: target,
		capAtomic: capAtomic, capUSD: capUSD, header: header}, nil
}

// parseTarget reads an absolute http(s) URL whose host is among allowed (a hostname, or host:port).
func parseTarget(raw string, allowed []string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" || u.User != nil {
		return nil, svcerr.Invalid("url", "url must be an absolute http or https URL without credentials")
	}
	host := strings.ToLower(u.Hostname())
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(a))
		if a != "" && (a == host || a == strings.ToLower(u.Host)) {
			return u, nil
		}
	}
	return nil, svcerr.New(svcerr.Forbidden, "host %s is not among the app's x402.allowedHosts: nothing was called or paid", host).
		WithDetails("rule", RuleAllowedHosts).WithDetails("host", host)
}

// capOf is min(perCall, caller) in USD and in USDC atomic units (perCall must be positive; caller 0 is none).
func capOf(perCall, caller float64) (float64, *big.Int, error) {
	if !(perCall > 0) || math.IsInf(perCall, 0) {
		return 0, nil, svcerr.Invalid("maxPaymentUsdPerCall", "the app's x402.maxPaymentUsdPerCall must be a positive number")
	}
	if caller < 0 || math.IsNaN(caller) || math.IsInf(caller, 0) {
		return 0, nil, svcerr.Invalid("maxPaymentUsd", "maxPaymentUsd must be a positive number (or left out)")
	}
	limit := perCall
	if caller > 0 && caller < limit {
		limit = caller
	}
	atomic := int64(math.Floor(limit*math.Pow10(usdcDecimals) + 1e-6))
	return limit, big.NewInt(atomic), nil
}

// forbiddenHeaders are request headers an app may not set: the payment is the platform's to make, and
// the transport owns framing.
var forbiddenHeaders = map[string]bool{
	"Payment-Signature": true, "X-Payment": true, "Host": true, "Content-Length": true, "Transfer-Encoding": true,
	"Connection": true, "Upgrade": true, "Te": true, "Trailer": true, "Proxy-Authorization": true,
}

func headersOf(in map[string]string) (http.Header, error) {
	h := http.Header{}
	for k, v := range in {
		ck := http.CanonicalHeaderKey(strings.TrimSpace(k))
		if forbiddenHeaders[ck] {
			return nil, svcerr.Invalid("headers", "the header %s cannot be set by an app", ck)
		}
		h.Set(ck, v)
	}
	return h, nil
}

// approve is asked by the x402 client before it signs: the visitor's daily limit, then the wallet's
// policy. On success the row is paying, with the amount reserved in both.
func (s *Service) approve(ctx context.Context, c *call, id string, o x402.Offer) error {
	cents := centsOf(o.Atomic)
	if err := s.reserveDaily(ctx, c, id, o, cents); err != nil {
		return err
	}
	err := s.cfg.Wallets.ReservePayment(ctx, c.scope, c.WalletID, wallet.Payment{Ref: id, To: common.HexToAddress(o.Requirements.PayTo),
		Token: s.cfg.USDC, Atomic: o.Atomic, USDCents: cents}, s.cfg.Now())
	if err != nil {
		return fmt.Errorf("apppay: %w", err)
	}
	return nil
}

// centsOf is atomic USDC in cents, rounded up.
func centsOf(atomic *big.Int) int64 {
	per := big.NewInt(10_000) // atomic units per cent
	q, m := new(big.Int).QuoRem(atomic, per, new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return math.MaxInt64
	}
	return q.Int64()
}

// usdOf is cents as a USD amount.
func usdOf(cents int64) float64 { return float64(cents) / 100 }
