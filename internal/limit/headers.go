package limit

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names. net/http canonicalises them on the wire as Ratelimit-Policy and Ratelimit; field names
// are case-insensitive.
const (
	HeaderPolicy    = "RateLimit-Policy"
	HeaderRateLimit = "RateLimit"
	HeaderRetry     = "Retry-After"
	HeaderOperation = "X-Svc-Limit-Operation"
)

// Headers returns the response headers of d; see SetHeaders.
func Headers(d Decision) http.Header {
	h := make(http.Header, 4)
	SetHeaders(h, d)
	return h
}

// SetHeaders sets the headers of d on h, following draft-ietf-httpapi-ratelimit-headers-11, where both
// fields are Structured Field Lists (RFC 9651) of policies named by an sf-string, here the limit's
// selector:
//
//	RateLimit-Policy: "runs.create";q=10;w=60, "*";q=100;w=60
//	RateLimit: "runs.create";r=3;t=42, "*";r=97;t=42
//
// q is the quota per window, w the window in seconds, r the quota left and t the seconds until the window
// resets (rounded up). When several owners limit the same selector, the policy with the least quota left
// is shown. A refusal adds Retry-After (whole seconds, rounded up, at least 1) and X-Svc-Limit-Operation
// (the selector that ran out).
func SetHeaders(h http.Header, d Decision) {
	if ps := mostRestrictive(d.Policies); len(ps) > 0 {
		h.Set(HeaderPolicy, policyField(ps))
		h.Set(HeaderRateLimit, rateLimitField(ps))
	}
	if d.Allowed {
		return
	}
	h.Set(HeaderRetry, strconv.FormatInt(max(1, ceilSeconds(d.RetryAfter)), 10))
	if d.Operation != "" {
		h.Set(HeaderOperation, d.Operation)
	}
}

// mostRestrictive keeps one policy per selector, the one with the least quota left, in first-seen order.
func mostRestrictive(ps []Policy) []Policy {
	out := make([]Policy, 0, len(ps))
	for _, p := range ps {
		i := indexOf(out, p.Operation)
		switch {
		case i < 0:
			out = append(out, p)
		case p.Remaining < out[i].Remaining || (p.Remaining == out[i].Remaining && p.Limit < out[i].Limit):
			out[i] = p
		}
	}
	return out
}

func indexOf(ps []Policy, op string) int {
	for i := range ps {
		if ps[i].Operation == op {
			return i
		}
	}
	return -1
}

func policyField(ps []Policy) string {
	var b strings.Builder
	for i, p := range ps {
		item(&b, i, p.Operation)
		b.WriteString(";q=")
		b.WriteString(strconv.FormatInt(p.Limit, 10))
		b.WriteString(";w=")
		b.WriteString(strconv.FormatInt(ceilSeconds(p.Window), 10))
	}
	return b.String()
}

func rateLimitField(ps []Policy) string {
	var b strings.Builder
	for i, p := range ps {
		item(&b, i, p.Operation)
		b.WriteString(";r=")
		b.WriteString(strconv.FormatInt(max(0, p.Remaining), 10))
		b.WriteString(";t=")
		b.WriteString(strconv.FormatInt(ceilSeconds(p.Reset), 10))
	}
	return b.String()
}

// item writes the i-th list member's separator and its sf-string name.
func item(b *strings.Builder, i int, name string) {
	if i > 0 {
		b.WriteString(", ")
	}
	b.WriteByte('"')
	for j := 0; j < len(name); j++ {
		if name[j] == '"' || name[j] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(name[j])
	}
	b.WriteByte('"')
}

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
