package client_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// fixedNow returns VerifyOptions whose clock reads now.
func fixedNow(now time.Time) client.VerifyOptions {
	return client.VerifyOptions{Now: func() time.Time { return now }}
}

func newSecret(t *testing.T) string {
	t.Helper()
	s, err := client.NewWebhookSecret()
	require.NoError(t, err)
	return s
}

const testEventBody = `{"id":"evt_1","type":"run.succeeded","createdAt":"2024-05-01T12:00:00Z","data":{"id":"run_1"}}`

// TestNewWebhookSecretFormat: whsec_ + standard base64 of 32 bytes, different every time.
func TestNewWebhookSecretFormat(t *testing.T) {
	t.Parallel()
	a, b := newSecret(t), newSecret(t)
	require.NotEqual(t, a, b)
	for _, s := range []string{a, b} {
		require.True(t, strings.HasPrefix(s, "whsec_"), s)
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		require.NoError(t, err)
		require.Len(t, key, 32)
	}
}

// TestSignWebhookKnownAnswer pins the exact header formats of CONTRACT.md with HMACs computed here
// independently, so any change of the signed content or the encoding is caught.
func TestSignWebhookKnownAnswer(t *testing.T) {
	t.Parallel()
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	secret := "whsec_" + base64.StdEncoding.EncodeToString(key)
	require.Equal(t, "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", secret)
	body := []byte(testEventBody)
	at := time.Unix(1714564800, 999_000_000) // sub-second part is dropped

	h, err := client.SignWebhook([]string{secret}, "evt_1", at, body)
	require.NoError(t, err)

	svcMAC := hmac.New(sha256.New, []byte(secret))
	svcMAC.Write([]byte("1714564800." + testEventBody))
	stdMAC := hmac.New(sha256.New, key)
	stdMAC.Write([]byte("evt_1.1714564800." + testEventBody))

	require.Equal(t, "t=1714564800,v1="+hex.EncodeToString(svcMAC.Sum(nil)), h.Get("X-Svc-Signature"))
	require.Equal(t, "evt_1", h.Get("webhook-id"))
	require.Equal(t, "1714564800", h.Get("webhook-timestamp"))
	require.Equal(t, "v1,"+base64.StdEncoding.EncodeToString(stdMAC.Sum(nil)), h.Get("webhook-signature"))
	require.Len(t, h, 4, "exactly the four signature headers: %v", h)

	require.NoError(t, client.VerifyWebhook(secret, h, body, fixedNow(at)))
}

// TestWebhookRoundTrip: a signed delivery verifies and parses into its envelope.
func TestWebhookRoundTrip(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	now := time.Now()
	body := []byte(testEventBody)
	h, err := client.SignWebhook([]string{secret}, "evt_1", now, body)
	require.NoError(t, err)

	require.NoError(t, client.VerifyWebhook(secret, h, body, client.VerifyOptions{}))
	ev, err := client.ParseWebhook(secret, h, body, client.VerifyOptions{})
	require.NoError(t, err)
	require.Equal(t, "evt_1", ev.ID)
	require.Equal(t, "run.succeeded", ev.Type)
	require.True(t, ev.CreatedAt.Equal(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)))
	require.JSONEq(t, `{"id":"run_1"}`, string(ev.Data))
}

// TestWebhookRotationEachSecretVerifies: signed with the new and the old secret, newest first, a delivery
// verifies with either; a third secret fails.
func TestWebhookRotationEachSecretVerifies(t *testing.T) {
	t.Parallel()
	newer, older, other := newSecret(t), newSecret(t), newSecret(t)
	now := time.Now()
	body := []byte(testEventBody)
	h, err := client.SignWebhook([]string{newer, older}, "evt_1", now, body)
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(h.Get("X-Svc-Signature"), ",v1="))
	require.Len(t, strings.Fields(h.Get("webhook-signature")), 2)

	require.NoError(t, client.VerifyWebhook(newer, h, body, client.VerifyOptions{}))
	require.NoError(t, client.VerifyWebhook(older, h, body, client.VerifyOptions{}))
	require.ErrorIs(t, client.VerifyWebhook(other, h, body, client.VerifyOptions{}), client.ErrWebhookNoMatchingSignature)

	single, err := client.SignWebhook([]string{newer}, "evt_1", now, body)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(h.Get("X-Svc-Signature"), single.Get("X-Svc-Signature")+","), "newest first")
	require.True(t, strings.HasPrefix(h.Get("webhook-signature"), single.Get("webhook-signature")+" "), "newest first")
}

// TestWebhookEitherSchemeAlone: a delivery carrying only one of the schemes still verifies.
func TestWebhookEitherSchemeAlone(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	body := []byte(testEventBody)
	h, err := client.SignWebhook([]string{secret}, "evt_1", time.Now(), body)
	require.NoError(t, err)

	svcOnly := h.Clone()
	svcOnly.Del("webhook-id")
	svcOnly.Del("webhook-timestamp")
	svcOnly.Del("webhook-signature")
	require.NoError(t, client.VerifyWebhook(secret, svcOnly, body, client.VerifyOptions{}))

	stdOnly := h.Clone()
	stdOnly.Del("X-Svc-Signature")
	require.NoError(t, client.VerifyWebhook(secret, stdOnly, body, client.VerifyOptions{}))

	// One scheme wrong, the other right: any matching signature accepts.
	mixed := h.Clone()
	mixed.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(make([]byte, 32)))
	require.NoError(t, client.VerifyWebhook(secret, mixed, body, client.VerifyOptions{}))
}

// TestWebhookRejections: wrong secret, tampered body or id, timestamps outside the tolerance, missing
// and malformed headers each fail with the matching error.
func TestWebhookRejections(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	body := []byte(testEventBody)
	at := time.Unix(1714564800, 0)
	h, err := client.SignWebhook([]string{secret}, "evt_1", at, body)
	require.NoError(t, err)
	opts := fixedNow(at)

	edit := func(f func(http.Header)) http.Header {
		c := h.Clone()
		f(c)
		return c
	}
	cases := []struct {
		name   string
		secret string
		header http.Header
		body   string
		opts   client.VerifyOptions
		want   error
		msg    string
	}{
		{"wrong secret", newSecret(t), h, testEventBody, opts, client.ErrWebhookNoMatchingSignature, "no matching signature"},
		{"tampered body", secret, h, strings.Replace(testEventBody, "run_1", "run_2", 1), opts, client.ErrWebhookNoMatchingSignature, "no matching signature"},
		{"tampered id", secret, edit(func(c http.Header) {
			c.Del("X-Svc-Signature")
			c.Set("webhook-id", "evt_2")
		}), testEventBody, opts, client.ErrWebhookNoMatchingSignature, "no matching signature"},
		{"too old", secret, h, testEventBody, fixedNow(at.Add(5*time.Minute + time.Second)), client.ErrWebhookOutsideTolerance, "outside tolerance"},
		{"too new", secret, h, testEventBody, fixedNow(at.Add(-5*time.Minute - time.Second)), client.ErrWebhookOutsideTolerance, "outside tolerance"},
		{"custom tolerance", secret, h, testEventBody, client.VerifyOptions{Tolerance: time.Second, Now: func() time.Time { return at.Add(2 * time.Second) }}, client.ErrWebhookOutsideTolerance, "tolerance 1s"},
		{"no headers", secret, http.Header{}, testEventBody, opts, client.ErrWebhookMissingHeader, "X-Svc-Signature"},
		{"std without id", secret, edit(func(c http.Header) { c.Del("webhook-id") }), testEventBody, opts, client.ErrWebhookMissingHeader, "webhook-id"},
		{"svc without t", secret, edit(func(c http.Header) {
			c.Set("X-Svc-Signature", strings.SplitN(c.Get("X-Svc-Signature"), ",", 2)[1])
		}), testEventBody, opts, client.ErrWebhookBadTimestamp, "no t="},
		{"bad timestamp", secret, edit(func(c http.Header) { c.Set("webhook-timestamp", "soon") }), testEventBody, opts, client.ErrWebhookBadTimestamp, "not unix seconds"},
		{"timestamps disagree", secret, edit(func(c http.Header) { c.Set("webhook-timestamp", "1714564801") }), testEventBody, opts, client.ErrWebhookBadTimestamp, "differs"},
		{"malformed secret", "whsec_???", h, testEventBody, opts, client.ErrWebhookSecret, "base64"},
		{"secret without prefix", strings.TrimPrefix(secret, "whsec_"), h, testEventBody, opts, client.ErrWebhookSecret, "whsec_"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := client.VerifyWebhook(tc.secret, tc.header, []byte(tc.body), tc.opts)
			require.ErrorIs(t, err, tc.want)
			require.Contains(t, err.Error(), tc.msg)
		})
	}

	// The edges of the tolerance are inside it.
	require.NoError(t, client.VerifyWebhook(secret, h, body, fixedNow(at.Add(5*time.Minute))))
	require.NoError(t, client.VerifyWebhook(secret, h, body, fixedNow(at.Add(-5*time.Minute))))
}

// TestSignWebhookRejectsBadInput: no secret, a malformed secret, or an unusable event id is an error.
func TestSignWebhookRejectsBadInput(t *testing.T) {
	t.Parallel()
	good := newSecret(t)
	for name, secrets := range map[string][]string{
		"none":      nil,
		"no prefix": {strings.TrimPrefix(good, "whsec_")},
		"bad b64":   {good, "whsec_not base64!"},
		"empty key": {"whsec_"},
	} {
		_, err := client.SignWebhook(secrets, "evt_1", time.Now(), []byte("{}"))
		require.ErrorIs(t, err, client.ErrWebhookSecret, name)
	}
	for _, id := range []string{"", "evt 1", "evt_1\r\nX-Evil: 1"} {
		_, err := client.SignWebhook([]string{good}, id, time.Now(), []byte("{}"))
		require.Error(t, err, "%q", id)
	}
}

// TestParseWebhookRejectsNonEnvelope: a verified body that is not an event envelope, or whose id differs
// from webhook-id, is ErrWebhookInvalidPayload; an unverified one never gets decoded.
func TestParseWebhookRejectsNonEnvelope(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	for _, body := range []string{`not json`, `{"type":"run.created"}`, `{"id":"evt_2","type":"run.created"}`} {
		h, err := client.SignWebhook([]string{secret}, "evt_1", time.Now(), []byte(body))
		require.NoError(t, err)
		_, err = client.ParseWebhook(secret, h, []byte(body), client.VerifyOptions{})
		require.ErrorIs(t, err, client.ErrWebhookInvalidPayload, body)
	}
	h, err := client.SignWebhook([]string{secret}, "evt_1", time.Now(), []byte(testEventBody))
	require.NoError(t, err)
	_, err = client.ParseWebhook(newSecret(t), h, []byte(testEventBody), client.VerifyOptions{})
	require.ErrorIs(t, err, client.ErrWebhookNoMatchingSignature)
}
