// Package webhook keeps webhook endpoints: where an account's events are delivered, which event types
// each endpoint receives, and the secret deliveries are signed with. The secret (whsec_ + base64 of 32
// random bytes) is sealed with AES-256-GCM (secretbox, aad = the webhook id); it is answered only by
// Create and RotateSecret. After a rotation the previous secret keeps signing beside the new one for
// PreviousSecretTTL.
//
// URLs are checked at creation and update: absolute, https (http with Options.AllowHTTP), no userinfo,
// and a host that resolves only to addresses the outbound guard of internal/gateway admits (public
// addresses; loopback with Options.AllowLoopback; private, shared and link-local with
// Options.AllowPrivate; cloud metadata never). The dispatcher checks again at delivery time.
package webhook

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/svcerr"
)

// IDPrefix is the prefix of webhook ids (whk_...).
const IDPrefix = "whk"

// SecretPrefix starts every webhook secret.
const SecretPrefix = client.WebhookSecretPrefix

// AllEvents subscribes an endpoint to every event type, as the only element of Events.
const AllEvents = "*"

// PreviousSecretTTL is how long the secret replaced by a rotation keeps signing.
const PreviousSecretTTL = 24 * time.Hour

// Limits of the validated fields.
const (
	MaxDescriptionLength = 1000
	MaxURLLength         = 2048
)

// DisabledByRequest is the disabled reason of an endpoint disabled through the API (DELETE, or PATCH with
// enabled false).
const DisabledByRequest = "disabled by request"

// NewID returns a fresh webhook id.
func NewID() string { return ids.New(IDPrefix) }

// Webhook is a stored endpoint without its secrets.
type Webhook struct {
	ID             string
	AccountID      string
	ProjectID      *string
	URL            string
	Events         []string
	Description    string
	Enabled        bool
	DisabledReason string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	// PreviousSecretExpiresAt is when the secret replaced by the last rotation stops signing; nil when
	// there is none.
	PreviousSecretExpiresAt *time.Time
	// Secret is the current signing secret, set only in the answers of Create and RotateSecret.
	Secret string
}

// ToWire converts an endpoint to the API's shape (with its secret when w has it).
func ToWire(w Webhook) client.Webhook {
	out := client.Webhook{ID: w.ID, URL: w.URL, Events: w.Events, Description: w.Description, Enabled: w.Enabled,
		DisabledReason: w.DisabledReason, CreatedAt: w.CreatedAt.UTC(), UpdatedAt: w.UpdatedAt.UTC(), Secret: w.Secret}
	if out.Events == nil {
		out.Events = []string{}
	}
	if w.PreviousSecretExpiresAt != nil {
		t := w.PreviousSecretExpiresAt.UTC()
		out.PreviousSecretExpiresAt = &t
	}
	return out
}

// NewWebhook is a request to create an endpoint.
type NewWebhook struct {
	// ID is the webhook id; derived from the idempotency record so a retried request finds its row.
	ID          string
	URL         string
	Events      []string
	Description string
}

// Patch changes an endpoint; nil fields stay as they are.
type Patch struct {
	URL         *string
	Events      *[]string
	Description *string
	Enabled     *bool
}

// Resolver looks up the addresses of a host name.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// Options tune the store.
type Options struct {
	// AllowHTTP admits http:// URLs (development).
	AllowHTTP bool
	// AllowLoopback admits URLs whose host is a loopback address (development).
	AllowLoopback bool
	// AllowPrivate admits private, shared, link-local and loopback addresses (never cloud metadata).
	AllowPrivate bool
	// Resolve looks up host names; nil means the system resolver.
	Resolve Resolver
	// Now is the clock of secret rotation; nil means time.Now.
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if o.Resolve != nil {
		return o.Resolve(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// newSecret returns a fresh signing secret (whsec_ + base64 of 32 random bytes), made by the SDK's
// generator so the server and SDK agree on its shape.
func newSecret() (string, error) {
	secret, err := client.NewWebhookSecret()
	if err != nil {
		return "", fmt.Errorf("new webhook secret: %w", err)
	}
	return secret, nil
}

// validateURL checks an endpoint URL and the addresses its host resolves to; errors name the field url.
func (o Options) validateURL(ctx context.Context, raw string) error {
	if raw == "" {
		return svcerr.Invalid("url", "url is required")
	}
	if len(raw) > MaxURLLength {
		return svcerr.Invalid("url", "url is longer than %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return svcerr.Invalid("url", "url must be an absolute https URL")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !o.AllowHTTP {
			return svcerr.Invalid("url", "url must use https")
		}
	default:
		return svcerr.Invalid("url", "url must use https, not %q", u.Scheme)
	}
	if u.User != nil {
		return svcerr.Invalid("url", "url must not carry a user name or password")
	}
	if u.Fragment != "" {
		return svcerr.Invalid("url", "url must not carry a fragment")
	}
	host := u.Hostname()
	if host == "" {
		return svcerr.Invalid("url", "url has no host")
	}
	addrs, err := o.addrs(ctx, host)
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if class := gateway.ClassifyAddr(a); !gateway.Admits(class, o.AllowPrivate, o.AllowLoopback) {
			return svcerr.Invalid("url", "url host %s resolves to a %s address (%s), which webhooks may not reach", host, class, a.Unmap())
		}
	}
	return nil
}

// addrs returns the addresses of host: itself when it is an IP literal, else what it resolves to.
func (o Options) addrs(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")); err == nil {
		return []netip.Addr{a.WithZone("")}, nil
	}
	addrs, err := o.resolve(ctx, host)
	if err != nil || len(addrs) == 0 {
		return nil, svcerr.Invalid("url", "url host %s does not resolve", host)
	}
	return addrs, nil
}

// validateEvents checks an event list: one or more known types, or exactly ["*"].
func validateEvents(events []string) error {
	if len(events) == 0 {
		return svcerr.Invalid("events", "events must list at least one event type, or be [\"*\"]")
	}
	if len(events) == 1 && events[0] == AllEvents {
		return nil
	}
	seen := map[string]bool{}
	for _, e := range events {
		if e == AllEvents {
			return svcerr.Invalid("events", "\"*\" must be the only element of events")
		}
		if !known(e) {
			return svcerr.Invalid("events", "unknown event type %q; known: %s", e, strings.Join(outbox.Types, ", "))
		}
		if seen[e] {
			return svcerr.Invalid("events", "event type %q is listed twice", e)
		}
		seen[e] = true
	}
	return nil
}

func known(t string) bool {
	for _, k := range outbox.Types {
		if k == t {
			return true
		}
	}
	return false
}

func validateDescription(d string) error {
	if !utf8.ValidString(d) {
		return svcerr.Invalid("description", "description is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(d); n > MaxDescriptionLength {
		return svcerr.Invalid("description", "description is %d characters; at most %d", n, MaxDescriptionLength)
	}
	return nil
}

// validate checks a new endpoint; errors name the field.
func (o Options) validate(ctx context.Context, n NewWebhook) error {
	if err := o.validateURL(ctx, n.URL); err != nil {
		return err
	}
	if err := validateEvents(n.Events); err != nil {
		return err
	}
	if err := validateDescription(n.Description); err != nil {
		return err
	}
	if !ids.HasPrefix(n.ID, IDPrefix) {
		return fmt.Errorf("create webhook: id %q lacks the %s_ prefix", n.ID, IDPrefix)
	}
	return nil
}

// Subscribed reports whether an endpoint with the events receives an event of type t.
func Subscribed(events []string, t string) bool {
	for _, e := range events {
		if e == AllEvents || e == t {
			return true
		}
	}
	return false
}
