package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/testnode"
)

// interopNeedsNode says why the interop test needs Node.js 20+ and npm.
const interopNeedsNode = "the webhook interop test verifies signatures with the standardwebhooks and stripe npm packages " +
	"(stripe requires Node.js 20+)"

// npmInstallTimeout bounds the npm install of the interop test.
const npmInstallTimeout = 3 * time.Minute

// interopScript verifies each case read from stdin with the standardwebhooks and stripe packages and
// prints one result per case as JSON. It is CommonJS, so it runs as verify.cjs.
const interopScript = `'use strict';
const { Webhook } = require('standardwebhooks');
const StripeLib = require('stripe');
const Stripe = StripeLib.Stripe || StripeLib.default || StripeLib;
const stripe = new Stripe('sk_test_interop');

function attempt(f) {
  try {
    const ev = f();
    return { ok: true, id: ev && ev.id ? ev.id : '' };
  } catch (e) {
    return { ok: false, error: String(e && e.message ? e.message : e).split('\n')[0] };
  }
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { input += c; });
process.stdin.on('end', () => {
  const cases = JSON.parse(input);
  const out = cases.map((c) => {
    const body = Buffer.from(c.body, 'utf8');
    return {
      name: c.name,
      standard: attempt(() => new Webhook(c.secret).verify(body, c.headers)),
      stripe: attempt(() => stripe.webhooks.constructEvent(body, c.svcSignature, c.secret)),
    };
  });
  process.stdout.write(JSON.stringify(out));
});
`

type interopCase struct {
	Name         string            `json:"name"`
	Secret       string            `json:"secret"`
	Headers      map[string]string `json:"headers"`
	SvcSignature string            `json:"svcSignature"`
	Body         string            `json:"body"`
	accept       bool
}

type interopVerdict struct {
	OK    bool   `json:"ok"`
	ID    string `json:"id"`
	Error string `json:"error"`
}

type interopResult struct {
	Name     string         `json:"name"`
	Standard interopVerdict `json:"standard"`
	Stripe   interopVerdict `json:"stripe"`
}

// TestWebhookInteropNode: the reference JavaScript verifiers, standardwebhooks' Webhook.verify and
// stripe's webhooks.constructEvent, accept what SignWebhook produces (one secret, and a rotation checked
// with each secret) and reject a tampered body or a wrong secret. Missing node or npm fails the test.
func TestWebhookInteropNode(t *testing.T) {
	t.Parallel()
	testnode.Require(t, interopNeedsNode)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), npmInstallTimeout)
	defer cancel()
	took, err := testnode.Install(ctx, dir, "standardwebhooks", "stripe")
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("npm install standardwebhooks stripe did not finish within %s (is the npm registry reachable?): %v", npmInstallTimeout, err)
	}
	require.NoError(t, err, "npm install standardwebhooks stripe (is the npm registry reachable?)")
	t.Logf("npm install standardwebhooks stripe took %s", took.Round(time.Millisecond))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "verify.cjs"), []byte(interopScript), 0o600))

	older, newer, stranger := newSecret(t), newSecret(t), newSecret(t)
	body := `{"id":"evt_interop","type":"run.succeeded","createdAt":"2024-05-01T12:00:00Z","data":{"id":"run_1","note":"héllo ✓"}}`
	now := time.Now() // stripe's tolerance is 300 s and standardwebhooks' 5 min: sign with the current time
	single, err := client.SignWebhook([]string{newer}, "evt_interop", now, []byte(body))
	require.NoError(t, err)
	rotation, err := client.SignWebhook([]string{newer, older}, "evt_interop", now, []byte(body))
	require.NoError(t, err)

	mk := func(name, secret string, h map[string][]string, b string, accept bool) interopCase {
		return interopCase{
			Name:   name,
			Secret: secret,
			Headers: map[string]string{
				"webhook-id":        h["Webhook-Id"][0],
				"webhook-timestamp": h["Webhook-Timestamp"][0],
				"webhook-signature": h["Webhook-Signature"][0],
			},
			SvcSignature: h["X-Svc-Signature"][0],
			Body:         b,
			accept:       accept,
		}
	}
	tampered := strings.Replace(body, "run_1", "run_2", 1)
	cases := []interopCase{
		mk("single secret", newer, single, body, true),
		mk("rotation, new secret", newer, rotation, body, true),
		mk("rotation, old secret", older, rotation, body, true),
		mk("tampered body", newer, single, tampered, false),
		mk("rotation, tampered body", older, rotation, tampered, false),
		mk("wrong secret", stranger, rotation, body, false),
	}
	for _, c := range cases { // Go's own verifier agrees with the expectations
		h := http.Header{}
		for k, v := range c.Headers {
			h.Set(k, v)
		}
		h.Set("X-Svc-Signature", c.SvcSignature)
		err := client.VerifyWebhook(c.Secret, h, []byte(c.Body), client.VerifyOptions{})
		require.Equal(t, c.accept, err == nil, "%s: Go VerifyWebhook: %v", c.Name, err)
	}

	input, err := json.Marshal(cases)
	require.NoError(t, err)
	out := testnode.RunWithInput(t, dir, "verify.cjs", input)

	var results []interopResult
	require.NoError(t, json.Unmarshal(out, &results), "node output: %s", out)
	require.Len(t, results, len(cases))
	for i, c := range cases {
		r := results[i]
		require.Equal(t, c.Name, r.Name)
		require.Equal(t, c.accept, r.Standard.OK, "%s: standardwebhooks Webhook.verify: %+v", c.Name, r.Standard)
		require.Equal(t, c.accept, r.Stripe.OK, "%s: stripe.webhooks.constructEvent: %+v", c.Name, r.Stripe)
		if c.accept {
			require.Equal(t, "evt_interop", r.Standard.ID, c.Name)
			require.Equal(t, "evt_interop", r.Stripe.ID, c.Name)
		} else { // rejected for the signature, not for anything else
			require.Contains(t, strings.ToLower(r.Standard.Error), "signature", c.Name)
			require.Contains(t, strings.ToLower(r.Stripe.Error), "signature", c.Name)
		}
	}
}
