package client_test

import (
	"bytes"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/svcplatform/svc/client"
)

// webhookErrors are the errors VerifyWebhook may wrap.
var webhookErrors = []error{client.ErrWebhookSecret, client.ErrWebhookMissingHeader, client.ErrWebhookBadTimestamp,
	client.ErrWebhookOutsideTolerance, client.ErrWebhookNoMatchingSignature}

// FuzzVerifyWebhook feeds any signature headers and body to VerifyWebhook: it never panics, every
// refusal wraps one of the documented errors, a delivery verifies only when it carries a signature the
// secret made over that body, and what SignWebhook signs verifies (and fails once the body changes).
func FuzzVerifyWebhook(f *testing.F) {
	const secret, otherSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_dGhlIG90aGVyIHNlY3JldA=="
	at := time.Unix(1_800_000_000, 0)
	opts := client.VerifyOptions{Now: func() time.Time { return at }}
	body := []byte(`{"id":"evt_1","type":"run.succeeded","createdAt":"2027-01-15T08:00:00Z","data":{}}`)
	h, err := client.SignWebhook([]string{secret}, "evt_1", at, body)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(h.Get(client.HeaderSvcSignature), h.Get(client.HeaderWebhookID), h.Get(client.HeaderWebhookTimestamp), h.Get(client.HeaderWebhookSignature), body)
	f.Add(h.Get(client.HeaderSvcSignature), "", "", "", body)
	f.Add("", h.Get(client.HeaderWebhookID), h.Get(client.HeaderWebhookTimestamp), h.Get(client.HeaderWebhookSignature), body)
	f.Add("t=1800000000,t=1800000000,v1=zz", "evt_1", "1800000001", "v1,!!! v2,abc", []byte("x"))
	f.Add("t=-1,v1=", "", "99999999999999999999", "v1", []byte{})
	f.Add("v1=00", "\x00", "1800000000", "v1,"+string(bytes.Repeat([]byte("A"), 44)), []byte(nil))
	f.Fuzz(func(t *testing.T, svcSig, id, ts, stdSig string, body []byte) {
		header := http.Header{}
		for name, v := range map[string]string{client.HeaderSvcSignature: svcSig, client.HeaderWebhookID: id,
			client.HeaderWebhookTimestamp: ts, client.HeaderWebhookSignature: stdSig} {
			if v != "" {
				header.Set(name, v)
			}
		}
		err := client.VerifyWebhook(secret, header, body, opts)
		if err != nil {
			wrapped := 0
			for _, e := range webhookErrors {
				if errors.Is(err, e) {
					wrapped++
				}
			}
			if wrapped != 1 {
				t.Fatalf("error wraps %d documented errors: %v", wrapped, err)
			}
		} else {
			// It verified, so it carries the secret's signature of exactly this body: neither another
			// body nor another secret verifies with the same headers.
			other := append(bytes.Clone(body), '!')
			if err := client.VerifyWebhook(secret, header, other, opts); !errors.Is(err, client.ErrWebhookNoMatchingSignature) {
				t.Fatalf("verified for another body too: %v", err)
			}
			if err := client.VerifyWebhook(otherSecret, header, body, opts); !errors.Is(err, client.ErrWebhookNoMatchingSignature) {
				t.Fatalf("verified with another secret too: %v", err)
			}
		}

		// What SignWebhook signs verifies, and stops verifying once the body changes.
		signed, err := client.SignWebhook([]string{secret}, "evt_fuzz", at, body)
		if err != nil {
			t.Fatalf("sign: %v", err)
		}
		if err := client.VerifyWebhook(secret, signed, body, opts); err != nil {
			t.Fatalf("own signature refused: %v", err)
		}
		changed := append(bytes.Clone(body), '!')
		if err := client.VerifyWebhook(secret, signed, changed, opts); !errors.Is(err, client.ErrWebhookNoMatchingSignature) {
			t.Fatalf("changed body: %v", err)
		}
	})
}
