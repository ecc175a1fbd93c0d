package limit

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHeaders checks the exact header strings of known decisions.
func TestHeaders(t *testing.T) {
	t.Parallel()
	reset := 41200 * time.Millisecond
	ps := []Policy{
		{Operation: "runs.create", Limit: 10, Remaining: 3, Window: time.Minute, Reset: reset},
		{Operation: "*", Limit: 100, Remaining: 97, Window: time.Minute, Reset: reset},
		{Operation: "runs.create", Limit: 50, Remaining: 40, Window: time.Minute, Reset: reset}, // an ancestor's
	}

	h := Headers(Decision{Allowed: true, Policies: ps})
	require.Equal(t, http.Header{
		"Ratelimit-Policy": {`"runs.create";q=10;w=60, "*";q=100;w=60`},
		"Ratelimit":        {`"runs.create";r=3;t=42, "*";r=97;t=42`},
	}, h)
	require.Equal(t, `"runs.create";q=10;w=60, "*";q=100;w=60`, h.Get("RateLimit-Policy"))

	ps[0].Remaining = 0
	h = Headers(Decision{Operation: "runs.create", RetryAfter: reset, Policies: ps})
	require.Equal(t, http.Header{
		"Ratelimit-Policy":      {`"runs.create";q=10;w=60, "*";q=100;w=60`},
		"Ratelimit":             {`"runs.create";r=0;t=42, "*";r=97;t=42`},
		"Retry-After":           {"42"},
		"X-Svc-Limit-Operation": {"runs.create"},
	}, h)

	h = Headers(Decision{Operation: "runs.create.managed-workflows", RetryAfter: 3 * time.Hour})
	require.Equal(t, http.Header{
		"Retry-After":           {"10800"},
		"X-Svc-Limit-Operation": {"runs.create.managed-workflows"},
	}, h)

	require.Empty(t, Headers(Decision{Allowed: true}))
	require.Equal(t, "1", Headers(Decision{Operation: "*", RetryAfter: time.Millisecond}).Get("Retry-After"))
	require.Equal(t, `"a\"b\\c";r=1;t=1`, rateLimitField([]Policy{{Operation: `a"b\c`, Remaining: 1, Reset: time.Second}}))
}
