package webhook

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testdb"
)

// clock is an injectable, settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

type fixture struct {
	db    *bun.DB
	store *Store
	clock *clock
	acctA tenant.Scope
	projA tenant.Scope
	acctB tenant.Scope
	ctx   context.Context
}

// resolver answers fixed addresses for a few names, and fails for the rest.
func resolver(_ context.Context, host string) ([]netip.Addr, error) {
	switch host {
	case "hooks.example.com":
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	case "internal.example.com":
		return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.1.2.3")}, nil
	}
	return nil, errors.New("no such host")
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	ctx := context.Background()
	db := testdb.New(t)
	_, err := db.ExecContext(ctx, `INSERT INTO accounts (id, name) VALUES ('acct_a', 'a'), ('acct_b', 'b');
		INSERT INTO projects (id, account_id, name) VALUES ('proj_a1', 'acct_a', 'p1')`)
	require.NoError(t, err)
	key := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(key)
	box, err := secretbox.New(key)
	require.NoError(t, err)
	c := &clock{now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	opts.Now, opts.Resolve = c.Now, resolver
	p := "proj_a1"
	return &fixture{db: db, store: NewStore(db, box, opts), clock: c, ctx: ctx,
		acctA: tenant.Scope{AccountID: "acct_a"}, acctB: tenant.Scope{AccountID: "acct_b"},
		projA: tenant.Scope{AccountID: "acct_a", ProjectID: &p}}
}

func (f *fixture) create(t *testing.T, scope tenant.Scope, url string, events ...string) Webhook {
	t.Helper()
	w, err := f.store.Create(f.ctx, scope, NewWebhook{ID: NewID(), URL: url, Events: events, Description: "d"})
	require.NoError(t, err)
	return w
}

func (f *fixture) count(t *testing.T) int {
	t.Helper()
	n, err := f.db.NewSelect().Table("webhooks").Count(f.ctx)
	require.NoError(t, err)
	return int(n)
}

func requireInvalid(t *testing.T, err error, param string) {
	t.Helper()
	e, ok := svcerr.As(err)
	require.True(t, ok, "want a svcerr.Error, got %v", err)
	require.Equal(t, svcerr.InvalidRequest, e.Code, "%v", err)
	require.Equal(t, param, e.Param, "%v", err)
}

func requireSecret(t *testing.T, s string) {
	t.Helper()
	require.True(t, strings.HasPrefix(s, SecretPrefix), s)
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
	require.NoError(t, err)
	require.Len(t, raw, 32)
}

func ptr[T any](v T) *T { return &v }

// TestLifecycle creates, reads, lists, updates, rotates, disables and re-enables an endpoint; the secret
// is answered by creation and rotation only.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	w := f.create(t, f.acctA, "https://hooks.example.com/in", outbox.RunSucceeded, outbox.RunFailed)
	requireSecret(t, w.Secret)
	require.True(t, w.Enabled)
	require.Nil(t, w.PreviousSecretExpiresAt)

	got, err := f.store.Get(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	require.Empty(t, got.Secret)
	require.Equal(t, []string{outbox.RunSucceeded, outbox.RunFailed}, got.Events)
	list, next, err := f.store.List(f.ctx, f.acctA, page.Params{Limit: 10})
	require.NoError(t, err)
	require.Nil(t, next)
	require.Len(t, list, 1)
	require.Empty(t, list[0].Secret)

	up, err := f.store.Update(f.ctx, f.acctA, w.ID, Patch{URL: ptr("https://93.184.216.34/x"), Events: ptr([]string{"*"}),
		Description: ptr("new"), Enabled: ptr(false)})
	require.NoError(t, err)
	require.Equal(t, "https://93.184.216.34/x", up.URL)
	require.Equal(t, []string{"*"}, up.Events)
	require.Equal(t, "new", up.Description)
	require.False(t, up.Enabled)
	require.Equal(t, DisabledByRequest, up.DisabledReason)
	require.Empty(t, up.Secret)
	up, err = f.store.Update(f.ctx, f.acctA, w.ID, Patch{Enabled: ptr(true)})
	require.NoError(t, err)
	require.True(t, up.Enabled)
	require.Empty(t, up.DisabledReason)

	rot, err := f.store.RotateSecret(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	requireSecret(t, rot.Secret)
	require.NotEqual(t, w.Secret, rot.Secret)
	require.Equal(t, f.clock.Now().Add(PreviousSecretTTL), rot.PreviousSecretExpiresAt.UTC())

	dis, err := f.store.Disable(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	require.False(t, dis.Enabled)
	require.Equal(t, DisabledByRequest, dis.DisabledReason)
	require.Empty(t, dis.Secret)
	again, err := f.store.Disable(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	require.Equal(t, dis.UpdatedAt, again.UpdatedAt, "disabling a disabled endpoint changes nothing")
}

// TestSecretsFollowRotation: right after a rotation both secrets sign, newest first; once the previous
// one expires only the current one does; a second rotation drops the oldest.
func TestSecretsFollowRotation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	w := f.create(t, f.acctA, "https://hooks.example.com/in", "*")
	row, err := f.store.Load(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	secrets, err := f.store.Secrets(row, f.clock.Now())
	require.NoError(t, err)
	require.Equal(t, []string{w.Secret}, secrets)

	rot, err := f.store.RotateSecret(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	row, err = f.store.Load(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	secrets, err = f.store.Secrets(row, f.clock.Now())
	require.NoError(t, err)
	require.Equal(t, []string{rot.Secret, w.Secret}, secrets)
	secrets, err = f.store.Secrets(row, f.clock.Now().Add(PreviousSecretTTL-time.Second))
	require.NoError(t, err)
	require.Len(t, secrets, 2)
	secrets, err = f.store.Secrets(row, f.clock.Now().Add(PreviousSecretTTL))
	require.NoError(t, err)
	require.Equal(t, []string{rot.Secret}, secrets)

	f.clock.Set(f.clock.Now().Add(time.Hour))
	rot2, err := f.store.RotateSecret(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	row, err = f.store.Load(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	secrets, err = f.store.Secrets(row, f.clock.Now())
	require.NoError(t, err)
	require.Equal(t, []string{rot2.Secret, rot.Secret}, secrets)
}

// TestSealedAtRest: neither secret appears in the table in plaintext.
func TestSealedAtRest(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	w := f.create(t, f.acctA, "https://hooks.example.com/in", "*")
	rot, err := f.store.RotateSecret(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	var dump []byte
	require.NoError(t, f.db.NewRaw("SELECT convert_to(w::text, 'UTF8') FROM webhooks w WHERE id = ?", w.ID).Scan(f.ctx, &dump))
	row, err := f.store.Load(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	sealed, prev := row.SecretSealed, row.PreviousSecretSealed
	require.NotEmpty(t, prev)
	for _, s := range []string{w.Secret, rot.Secret} {
		raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
		for _, b := range [][]byte{dump, sealed, prev} {
			require.False(t, bytes.Contains(b, []byte(s)))
			require.False(t, bytes.Contains(b, raw))
			require.False(t, bytes.Contains(b, []byte(strings.TrimPrefix(s, SecretPrefix))))
		}
	}
}

// TestCreateRetryAnswersFirstRow: creating the same id again answers the first row with its secret.
func TestCreateRetryAnswersFirstRow(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	n := NewWebhook{ID: NewID(), URL: "https://hooks.example.com/in", Events: []string{"*"}}
	first, err := f.store.Create(f.ctx, f.acctA, n)
	require.NoError(t, err)
	second, err := f.store.Create(f.ctx, f.acctA, n)
	require.NoError(t, err)
	require.Equal(t, first.Secret, second.Secret)
	require.Equal(t, first.ID, second.ID)
	require.Equal(t, 1, f.count(t))
}

// TestScopeIsolation: another account or project sees not_found and changes nothing.
func TestScopeIsolation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	w := f.create(t, f.acctA, "https://hooks.example.com/in", "*")
	for _, scope := range []tenant.Scope{f.acctB, f.projA} {
		_, err := f.store.Get(f.ctx, scope, w.ID)
		require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
		_, err = f.store.Update(f.ctx, scope, w.ID, Patch{Enabled: ptr(false)})
		require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
		_, err = f.store.RotateSecret(f.ctx, scope, w.ID)
		require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
		_, err = f.store.Disable(f.ctx, scope, w.ID)
		require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
		list, _, err := f.store.List(f.ctx, scope, page.Params{Limit: 10})
		require.NoError(t, err)
		require.Empty(t, list)
	}
	got, err := f.store.Get(f.ctx, f.acctA, w.ID)
	require.NoError(t, err)
	require.True(t, got.Enabled)
	require.Nil(t, got.PreviousSecretExpiresAt)
}

// TestListPages pages through endpoints newest first.
func TestListPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	var made []string
	for i := 0; i < 5; i++ {
		made = append(made, f.create(t, f.acctA, "https://hooks.example.com/in", "*").ID)
	}
	var seen []string
	p := page.Params{Limit: 2}
	for {
		rows, next, err := f.store.List(f.ctx, f.acctA, p)
		require.NoError(t, err)
		for _, r := range rows {
			seen = append(seen, r.ID)
		}
		if next == nil {
			break
		}
		p, err = page.Parse(2, *next)
		require.NoError(t, err)
	}
	require.ElementsMatch(t, made, seen)
	require.Len(t, seen, 5)
}

// TestValidationNamesFieldAndStoresNothing: each bad input names its field; nothing is stored, and an
// update with bad input leaves the endpoint as it was.
func TestValidationNamesFieldAndStoresNothing(t *testing.T) {
	t.Parallel()
	strict := newFixture(t, Options{})
	dev := newFixture(t, Options{AllowHTTP: true, AllowLoopback: true})
	good := NewWebhook{URL: "https://hooks.example.com/in", Events: []string{outbox.RunSucceeded}}
	with := func(change func(*NewWebhook)) NewWebhook {
		n := good
		n.ID = NewID()
		change(&n)
		return n
	}
	url := func(u string) NewWebhook { return with(func(n *NewWebhook) { n.URL = u }) }
	cases := []struct {
		name  string
		f     *fixture
		n     NewWebhook
		param string
	}{
		{"not a url", strict, url("not a url"), "url"},
		{"empty url", strict, url(""), "url"},
		{"ftp", strict, url("ftp://x"), "url"},
		{"ftp in dev", dev, url("ftp://x"), "url"},
		{"http", strict, url("http://example.com"), "url"},
		{"userinfo", strict, url("https://u:p@hooks.example.com/in"), "url"},
		{"metadata", strict, url("https://169.254.169.254/x"), "url"},
		{"metadata in dev", dev, url("https://169.254.169.254/x"), "url"},
		{"private", strict, url("https://10.0.0.1/x"), "url"},
		{"private in dev", dev, url("https://10.0.0.1/x"), "url"},
		{"loopback", strict, url("https://127.0.0.1/x"), "url"},
		{"ipv6 loopback", strict, url("https://[::1]/x"), "url"},
		{"mapped metadata", dev, url("https://[::ffff:169.254.169.254]/x"), "url"},
		{"link-local", strict, url("https://169.254.1.1/x"), "url"},
		{"name resolving to private", strict, url("https://internal.example.com/x"), "url"},
		{"unresolvable", strict, url("https://nowhere.invalid/x"), "url"},
		{"unknown event", strict, with(func(n *NewWebhook) { n.Events = []string{"run.exploded"} }), "events"},
		{"empty events", strict, with(func(n *NewWebhook) { n.Events = nil }), "events"},
		{"star among others", strict, with(func(n *NewWebhook) { n.Events = []string{"*", outbox.RunFailed} }), "events"},
		{"duplicate event", strict, with(func(n *NewWebhook) { n.Events = []string{outbox.RunFailed, outbox.RunFailed} }), "events"},
		{"long description", strict, with(func(n *NewWebhook) { n.Description = strings.Repeat("x", MaxDescriptionLength+1) }), "description"},
	}
	for _, c := range cases {
		_, err := c.f.store.Create(c.f.ctx, c.f.acctA, c.n)
		requireInvalid(t, err, c.param)
		require.Zero(t, c.f.count(t), c.name)
	}

	w := strict.create(t, strict.acctA, good.URL, good.Events...)
	for _, p := range []struct {
		patch Patch
		param string
	}{
		{Patch{URL: ptr("https://10.0.0.1/x"), Description: ptr("changed")}, "url"},
		{Patch{Events: ptr([]string{}), Description: ptr("changed")}, "events"},
		{Patch{Events: ptr([]string{"nope"})}, "events"},
		{Patch{Description: ptr(strings.Repeat("y", MaxDescriptionLength+1))}, "description"},
	} {
		_, err := strict.store.Update(strict.ctx, strict.acctA, w.ID, p.patch)
		requireInvalid(t, err, p.param)
	}
	got, err := strict.store.Get(strict.ctx, strict.acctA, w.ID)
	require.NoError(t, err)
	require.Equal(t, good.URL, got.URL)
	require.Equal(t, good.Events, got.Events)
	require.Equal(t, "d", got.Description)
}

// TestDevModeAdmitsLoopbackHTTP: with AllowHTTP and AllowLoopback an http loopback URL is accepted; with
// AllowPrivate a private one is too, but cloud metadata never is.
func TestDevModeAdmitsLoopbackHTTP(t *testing.T) {
	t.Parallel()
	dev := newFixture(t, Options{AllowHTTP: true, AllowLoopback: true})
	w := dev.create(t, dev.acctA, "http://127.0.0.1:8080/hook", "*")
	require.Equal(t, "http://127.0.0.1:8080/hook", w.URL)
	dev.create(t, dev.acctA, "http://[::1]:8080/hook", "*")

	private := newFixture(t, Options{AllowPrivate: true})
	private.create(t, private.acctA, "https://10.0.0.1/x", "*")
	private.create(t, private.acctA, "https://internal.example.com/x", "*")
	_, err := private.store.Create(private.ctx, private.acctA, NewWebhook{ID: NewID(), URL: "https://169.254.169.254/x", Events: []string{"*"}})
	requireInvalid(t, err, "url")
}

// TestSubscribed matches event types against an endpoint's events.
func TestSubscribed(t *testing.T) {
	t.Parallel()
	require.True(t, Subscribed([]string{"*"}, outbox.RunFailed))
	require.True(t, Subscribed([]string{outbox.RunFailed}, outbox.RunFailed))
	require.False(t, Subscribed([]string{outbox.RunSucceeded}, outbox.RunFailed))
}
