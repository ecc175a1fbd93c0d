package client

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Webhook delivery headers (CONTRACT.md, Webhooks). Go canonicalises the Standard Webhooks names
// (webhook-id becomes Webhook-Id) in an http.Header; Get, Set and Values find them either way.
const (
	// HeaderWebhookEvent carries the event type of a delivery (run.succeeded, ...).
	HeaderWebhookEvent = "X-Svc-Event"
	// HeaderSvcSignature carries the Stripe-style signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...].
	HeaderSvcSignature = "X-Svc-Signature"
	// HeaderWebhookID carries the event id (Standard Webhooks); it stays the same across retries and replays.
	HeaderWebhookID = "webhook-id"
	// HeaderWebhookTimestamp carries the signing time in unix seconds (Standard Webhooks).
	HeaderWebhookTimestamp = "webhook-timestamp"
	// HeaderWebhookSignature carries the Standard Webhooks signatures: v1,<base64>[ v1,<base64>...].
	HeaderWebhookSignature = "webhook-signature"
)

// WebhookSecretPrefix starts every webhook signing secret; the rest is standard base64 of the key bytes.
const WebhookSecretPrefix = "whsec_"

// webhookSecretBytes is the number of random key bytes in a secret made by NewWebhookSecret.
const webhookSecretBytes = 32

// DefaultWebhookTolerance is how far a delivery's timestamp may be from the verifier's clock, in either
// direction, when VerifyOptions.Tolerance is not positive.
const DefaultWebhookTolerance = 5 * time.Minute

// Errors of webhook signing and verification. VerifyWebhook and ParseWebhook wrap exactly one of them
// with a message naming what failed; test with errors.Is.
var (
	// ErrWebhookSecret: the secret is not "whsec_" followed by non-empty standard base64.
	ErrWebhookSecret = errors.New("webhook: malformed secret")
	// ErrWebhookMissingHeader: a signature header (or a Standard Webhooks companion header) is absent.
	ErrWebhookMissingHeader = errors.New("webhook: missing header")
	// ErrWebhookBadTimestamp: a timestamp is absent from X-Svc-Signature, is not unix seconds, or the two
	// schemes carry different timestamps.
	ErrWebhookBadTimestamp = errors.New("webhook: bad timestamp")
	// ErrWebhookOutsideTolerance: the timestamp is further from now than the tolerance allows.
	ErrWebhookOutsideTolerance = errors.New("webhook: timestamp outside tolerance")
	// ErrWebhookNoMatchingSignature: no signature in either scheme matches the secret and body.
	ErrWebhookNoMatchingSignature = errors.New("webhook: no matching signature")
	// ErrWebhookInvalidPayload: the verified body is not an event envelope (ParseWebhook only).
	ErrWebhookInvalidPayload = errors.New("webhook: invalid event payload")
)

// VerifyOptions tunes VerifyWebhook and ParseWebhook. The zero value is ready to use.
type VerifyOptions struct {
	// Tolerance is the largest accepted distance between the delivery's timestamp and Now, in either
	// direction. Not positive means DefaultWebhookTolerance (5 minutes).
	Tolerance time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// WebhookEvent is the event envelope a webhook delivery carries as its body.
type WebhookEvent struct {
	// ID is the event id (evt_...), also sent in the webhook-id header.
	ID string `json:"id"`
	// Type is the event type (run.succeeded, ...), also sent in X-Svc-Event.
	Type string `json:"type"`
	// CreatedAt is when the event was recorded.
	CreatedAt time.Time `json:"createdAt"`
	// Data is the event's subject (a run, an approval, ...) as the API shows it.
	Data json.RawMessage `json:"data"`
}

// NewWebhookSecret returns a new random signing secret: "whsec_" followed by the standard base64 of 32
// random bytes.
func NewWebhookSecret() (string, error) {
	key := make([]byte, webhookSecretBytes)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("webhook: generating a secret: %w", err)
	}
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// webhookKey returns the Standard Webhooks HMAC key of secret: the base64-decoded part after "whsec_".
func webhookKey(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, WebhookSecretPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: it must start with %q", ErrWebhookSecret, WebhookSecretPrefix)
	}
	key, err := base64.StdEncoding.Strict().DecodeString(rest)
	if err != nil {
		return nil, fmt.Errorf("%w: the part after %q is not standard base64", ErrWebhookSecret, WebhookSecretPrefix)
	}
	if len(key) == 0 {
		return nil, fmt.Errorf("%w: the key after %q is empty", ErrWebhookSecret, WebhookSecretPrefix)
	}
	return key, nil
}

// svcSignature is the X-Svc-Signature HMAC: hex HMAC-SHA256 keyed by the whole secret over "<t>.<body>".
func svcSignature(secret string, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// standardSignature is the Standard Webhooks HMAC: HMAC-SHA256 keyed by key over "<id>.<t>.<body>".
func standardSignature(key []byte, id, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// SignWebhook returns the signature headers of one delivery attempt of event eventID with body, signed at
// timestamp (truncated to unix seconds) with each of secrets: X-Svc-Signature (one v1= per secret),
// webhook-id, webhook-timestamp and webhook-signature (one v1,<sig> per secret, space-separated). Pass
// the newest secret first; during a rotation pass both. Content-Type and X-Svc-Event are left to the
// caller. It fails when secrets is empty, a secret is malformed, or eventID is empty or contains
// whitespace or control characters.
func SignWebhook(secrets []string, eventID string, timestamp time.Time, body []byte) (http.Header, error) {
	if len(secrets) == 0 {
		return nil, fmt.Errorf("%w: no secret to sign with", ErrWebhookSecret)
	}
	if eventID == "" || strings.ContainsFunc(eventID, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return nil, fmt.Errorf("webhook: event id %q is empty or contains whitespace or control characters", eventID)
	}
	ts := strconv.FormatInt(timestamp.Unix(), 10)
	svc := []string{"t=" + ts}
	std := make([]string, 0, len(secrets))
	for i, s := range secrets {
		key, err := webhookKey(s)
		if err != nil {
			return nil, fmt.Errorf("secret %d: %w", i, err)
		}
		svc = append(svc, "v1="+hex.EncodeToString(svcSignature(s, ts, body)))
		std = append(std, "v1,"+base64.StdEncoding.EncodeToString(standardSignature(key, eventID, ts, body)))
	}
	h := http.Header{}
	h.Set(HeaderSvcSignature, strings.Join(svc, ","))
	h.Set(HeaderWebhookID, eventID)
	h.Set(HeaderWebhookTimestamp, ts)
	h.Set(HeaderWebhookSignature, strings.Join(std, " "))
	return h, nil
}

// parseWebhookTimestamp parses unix seconds as sent in t= and webhook-timestamp.
func parseWebhookTimestamp(name, v string) (int64, error) {
	if v == "" || strings.TrimLeft(v, "0123456789") != "" {
		return 0, fmt.Errorf("%w: %s %q is not unix seconds", ErrWebhookBadTimestamp, name, v)
	}
	t, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s %q is not unix seconds", ErrWebhookBadTimestamp, name, v)
	}
	return t, nil
}

// VerifyWebhook checks that a delivery (its request headers and raw body, read in full and unchanged) was
// signed with secret. It verifies every signature scheme present, X-Svc-Signature and the Standard
// Webhooks headers, and accepts the delivery when any signature of either scheme matches, so it keeps
// working while a rotation adds a second signature. Signatures are compared in constant time. The
// timestamp must lie within opts.Tolerance of opts.Now in either direction; when both schemes are present
// their timestamps must agree. The error wraps ErrWebhookSecret, ErrWebhookMissingHeader,
// ErrWebhookBadTimestamp, ErrWebhookOutsideTolerance or ErrWebhookNoMatchingSignature.
//
//	body, _ := io.ReadAll(r.Body)
//	if err := client.VerifyWebhook(secret, r.Header, body, client.VerifyOptions{}); err != nil {
//		http.Error(w, err.Error(), http.StatusBadRequest)
//		return
//	}
func VerifyWebhook(secret string, header http.Header, body []byte, opts VerifyOptions) error {
	key, err := webhookKey(secret)
	if err != nil {
		return err
	}
	svcHeader := strings.TrimSpace(header.Get(HeaderSvcSignature))
	stdID := header.Get(HeaderWebhookID)
	stdTS := strings.TrimSpace(header.Get(HeaderWebhookTimestamp))
	stdSig := strings.TrimSpace(strings.Join(header.Values(HeaderWebhookSignature), " "))
	hasSvc := svcHeader != ""
	hasStd := stdID != "" || stdTS != "" || stdSig != ""
	if !hasSvc && !hasStd {
		return fmt.Errorf("%w: neither %s nor %s is present", ErrWebhookMissingHeader, HeaderSvcSignature, HeaderWebhookSignature)
	}

	var ts int64
	var svcTS string
	var svcSigs [][]byte
	if hasSvc {
		var tsSeen bool
		for _, part := range strings.Split(svcHeader, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
			switch k {
			case "t":
				if tsSeen {
					return fmt.Errorf("%w: %s has more than one t=", ErrWebhookBadTimestamp, HeaderSvcSignature)
				}
				tsSeen = true
				if ts, err = parseWebhookTimestamp(HeaderSvcSignature+" t=", v); err != nil {
					return err
				}
				svcTS = v
			case "v1":
				if sig, err := hex.DecodeString(v); err == nil {
					svcSigs = append(svcSigs, sig)
				}
			}
		}
		if !tsSeen {
			return fmt.Errorf("%w: %s has no t=", ErrWebhookBadTimestamp, HeaderSvcSignature)
		}
	}

	var stdSigs [][]byte
	if hasStd {
		for _, h := range []struct{ name, v string }{
			{HeaderWebhookID, stdID}, {HeaderWebhookTimestamp, stdTS}, {HeaderWebhookSignature, stdSig},
		} {
			if h.v == "" {
				return fmt.Errorf("%w: %s (the other Standard Webhooks headers are present)", ErrWebhookMissingHeader, h.name)
			}
		}
		t, err := parseWebhookTimestamp(HeaderWebhookTimestamp, stdTS)
		if err != nil {
			return err
		}
		if hasSvc && t != ts {
			return fmt.Errorf("%w: %s %d differs from %s t=%d", ErrWebhookBadTimestamp, HeaderWebhookTimestamp, t, HeaderSvcSignature, ts)
		}
		ts = t
		for _, item := range strings.Fields(stdSig) {
			version, sig, ok := strings.Cut(item, ",")
			if !ok || version != "v1" {
				continue
			}
			if b, err := base64.StdEncoding.DecodeString(sig); err == nil {
				stdSigs = append(stdSigs, b)
			}
		}
	}

	tolerance := opts.Tolerance
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	signedAt := time.Unix(ts, 0)
	diff := now().Sub(signedAt)
	if diff > tolerance || diff < -tolerance {
		return fmt.Errorf("%w: signed at %s, %s from now, tolerance %s", ErrWebhookOutsideTolerance,
			signedAt.UTC().Format(time.RFC3339), diff.Round(time.Second), tolerance)
	}

	matched := false
	if len(svcSigs) > 0 {
		want := svcSignature(secret, svcTS, body)
		for _, sig := range svcSigs {
			if hmac.Equal(sig, want) {
				matched = true
			}
		}
	}
	if len(stdSigs) > 0 {
		want := standardSignature(key, stdID, stdTS, body)
		for _, sig := range stdSigs {
			if hmac.Equal(sig, want) {
				matched = true
			}
		}
	}
	if !matched {
		return fmt.Errorf("%w: checked %d %s and %d %s signature(s) against this secret and body",
			ErrWebhookNoMatchingSignature, len(svcSigs), HeaderSvcSignature, len(stdSigs), HeaderWebhookSignature)
	}
	return nil
}

// ParseWebhook verifies a delivery like VerifyWebhook and then decodes its body as a WebhookEvent. The
// body must be an event envelope with an id and a type (else the error wraps ErrWebhookInvalidPayload);
// when the webhook-id header is present it must equal the envelope's id.
func ParseWebhook(secret string, header http.Header, body []byte, opts VerifyOptions) (WebhookEvent, error) {
	if err := VerifyWebhook(secret, header, body, opts); err != nil {
		return WebhookEvent{}, err
	}
	var ev WebhookEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return WebhookEvent{}, fmt.Errorf("%w: %v", ErrWebhookInvalidPayload, err)
	}
	if ev.ID == "" || ev.Type == "" {
		return WebhookEvent{}, fmt.Errorf("%w: the envelope has no id or no type", ErrWebhookInvalidPayload)
	}
	if id := header.Get(HeaderWebhookID); id != "" && id != ev.ID {
		return WebhookEvent{}, fmt.Errorf("%w: envelope id %q differs from %s %q", ErrWebhookInvalidPayload, ev.ID, HeaderWebhookID, id)
	}
	return ev, nil
}
