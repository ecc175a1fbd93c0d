package connection

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testdb"
)

// fixture is a migrated schema with two accounts; account A has two projects.
type fixture struct {
	db     *bun.DB
	store  *Store
	acctA  tenant.Scope // account A, no project
	projA1 tenant.Scope
	projA2 tenant.Scope
	acctB  tenant.Scope
	ctx    context.Context
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db := testdb.New(t)
	_, err := db.ExecContext(ctx, `INSERT INTO accounts (id, name) VALUES ('acct_a', 'a'), ('acct_b', 'b');
		INSERT INTO projects (id, account_id, name) VALUES ('proj_a1', 'acct_a', 'p1'), ('proj_a2', 'acct_a', 'p2')`)
	require.NoError(t, err)
	key := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(key)
	box, err := secretbox.New(key)
	require.NoError(t, err)
	p1, p2 := "proj_a1", "proj_a2"
	return &fixture{
		db: db, store: NewStore(db, box), ctx: ctx,
		acctA: tenant.Scope{AccountID: "acct_a"}, acctB: tenant.Scope{AccountID: "acct_b"},
		projA1: tenant.Scope{AccountID: "acct_a", ProjectID: &p1}, projA2: tenant.Scope{AccountID: "acct_a", ProjectID: &p2},
	}
}

func (f *fixture) create(t *testing.T, scope tenant.Scope, n NewConnection) Connection {
	t.Helper()
	if n.ID == "" {
		n.ID = NewID()
	}
	c, err := f.store.Create(f.ctx, scope, n)
	require.NoError(t, err)
	return c
}

func bearer(name, secret string) NewConnection {
	return NewConnection{Name: name, AuthType: AuthBearer, Secret: secret}
}

func ptr[T any](v T) *T { return &v }

// requireCode asserts err is a svcerr.Error with the code and param.
func requireCode(t *testing.T, err error, code, param string) {
	t.Helper()
	e, ok := svcerr.As(err)
	require.True(t, ok, "want a svcerr.Error, got %v", err)
	require.Equal(t, code, e.Code, "%v", err)
	require.Equal(t, param, e.Param, "%v", err)
}

// TestLifecycle creates, reads, lists, renames, rotates, disables, re-enables and deletes a connection.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.create(t, f.projA1, NewConnection{Name: "imagegen", AuthType: AuthHeader, HeaderName: "x-api-key", Secret: "s3cret-one"})
	require.Equal(t, StatusActive, c.Status)
	require.Equal(t, "X-Api-Key", c.HeaderName, "header names are stored canonical")
	require.Nil(t, c.RotatedAt)
	require.False(t, c.CreatedAt.IsZero())

	got, err := f.store.Get(f.ctx, f.projA1, c.ID)
	require.NoError(t, err)
	require.Equal(t, c.ID, got.ID)
	require.Equal(t, "imagegen", got.Name)

	renamed, err := f.store.Update(f.ctx, f.projA1, c.ID, Patch{Name: ptr("images")})
	require.NoError(t, err)
	require.Equal(t, "images", renamed.Name)
	require.Nil(t, renamed.RotatedAt, "a rename is not a rotation")

	rotated, err := f.store.Update(f.ctx, f.projA1, c.ID, Patch{Secret: ptr("s3cret-two")})
	require.NoError(t, err)
	require.NotNil(t, rotated.RotatedAt)
	cred, err := f.store.Credential(f.ctx, f.projA1, c.ID)
	require.NoError(t, err)
	require.Equal(t, "s3cret-two", applied(cred).Get("X-Api-Key"))

	disabled, err := f.store.Update(f.ctx, f.projA1, c.ID, Patch{Disabled: ptr(true)})
	require.NoError(t, err)
	require.Equal(t, StatusDisabled, disabled.Status)
	_, err = f.store.Credential(f.ctx, f.projA1, c.ID)
	requireCode(t, err, svcerr.Conflict, "connectionId")
	require.Contains(t, err.Error(), "disabled")

	enabled, err := f.store.Update(f.ctx, f.projA1, c.ID, Patch{Disabled: ptr(false)})
	require.NoError(t, err)
	require.Equal(t, StatusActive, enabled.Status)
	_, err = f.store.Credential(f.ctx, f.projA1, c.ID)
	require.NoError(t, err)

	unchanged, err := f.store.Update(f.ctx, f.projA1, c.ID, Patch{})
	require.NoError(t, err)
	require.Equal(t, enabled.UpdatedAt, unchanged.UpdatedAt)

	deleted, err := f.store.Delete(f.ctx, f.projA1, c.ID)
	require.NoError(t, err)
	require.Equal(t, c.ID, deleted.ID)
	_, err = f.store.Get(f.ctx, f.projA1, c.ID)
	requireCode(t, err, svcerr.NotFound, "")
	_, err = f.store.Delete(f.ctx, f.projA1, c.ID)
	requireCode(t, err, svcerr.NotFound, "")
}

// TestListPages lists newest first in pages, and only the scope's connections.
func TestListPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var made []string
	for i := range 3 {
		made = append(made, f.create(t, f.acctA, bearer("c"+string(rune('0'+i)), "tok")).ID)
	}
	f.create(t, f.projA1, bearer("other-scope", "tok"))

	p, err := page.Parse(2, "")
	require.NoError(t, err)
	first, next, err := f.store.List(f.ctx, f.acctA, p)
	require.NoError(t, err)
	require.Len(t, first, 2)
	require.NotNil(t, next)
	p, err = page.Parse(2, *next)
	require.NoError(t, err)
	second, next, err := f.store.List(f.ctx, f.acctA, p)
	require.NoError(t, err)
	require.Len(t, second, 1)
	require.Nil(t, next)
	got := []string{first[0].ID, first[1].ID, second[0].ID}
	require.ElementsMatch(t, made, got)
	require.False(t, first[0].CreatedAt.Before(first[1].CreatedAt), "newest first")
}

// TestCreateRetryAnswersFirstRow creates the same id twice, as a retried request does.
func TestCreateRetryAnswersFirstRow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	n := bearer("retry", "tok-1")
	n.ID = NewID()
	first := f.create(t, f.acctA, n)
	again := f.create(t, f.acctA, n)
	require.Equal(t, first.ID, again.ID)
	require.Equal(t, first.CreatedAt, again.CreatedAt)
}

// TestNamesAreUniquePerScope refuses a second connection of the same name in one scope only.
func TestNamesAreUniquePerScope(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.create(t, f.projA1, bearer("same", "tok"))
	_, err := f.store.Create(f.ctx, f.projA1, NewConnection{ID: NewID(), Name: "same", AuthType: AuthBearer, Secret: "tok"})
	requireCode(t, err, svcerr.Conflict, "name")
	f.create(t, f.projA2, bearer("same", "tok"))
	f.create(t, f.acctA, bearer("same", "tok"))
	f.create(t, f.acctB, bearer("same", "tok"))

	other := f.create(t, f.projA1, bearer("other", "tok"))
	_, err = f.store.Update(f.ctx, f.projA1, other.ID, Patch{Name: ptr("same")})
	requireCode(t, err, svcerr.Conflict, "name")
}

// TestScopeIsolation: another account, another project, and the project-less scope all see not_found.
func TestScopeIsolation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.create(t, f.projA1, bearer("mine", "tok-isolated"))
	for name, scope := range map[string]tenant.Scope{"other account": f.acctB, "other project": f.projA2, "no project": f.acctA} {
		_, err := f.store.Get(f.ctx, scope, c.ID)
		requireCode(t, err, svcerr.NotFound, "")
		_, err = f.store.Credential(f.ctx, scope, c.ID)
		requireCode(t, err, svcerr.NotFound, "")
		_, err = f.store.Update(f.ctx, scope, c.ID, Patch{Disabled: ptr(true)})
		requireCode(t, err, svcerr.NotFound, "")
		_, err = f.store.Delete(f.ctx, scope, c.ID)
		requireCode(t, err, svcerr.NotFound, "")
		p, _ := page.Parse(0, "")
		list, _, err := f.store.List(f.ctx, scope, p)
		require.NoError(t, err)
		require.Empty(t, list, name)
	}
	_, err := f.store.Get(f.ctx, f.projA1, "conn_unknown")
	requireCode(t, err, svcerr.NotFound, "")
	got, err := f.store.Get(f.ctx, f.projA1, c.ID)
	require.NoError(t, err)
	require.Equal(t, StatusActive, got.Status, "foreign updates changed nothing")
}

// TestSealedAtRest: no column of a stored row holds the secret or the basic username, in text or hex,
// and a sealed secret moved to another row does not open (aad binds it to its id).
func TestSealedAtRest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const secret, user = "plaintext-password-123", "plain-user-456"
	c := f.create(t, f.acctA, NewConnection{Name: "basic", AuthType: AuthBasic, Username: user, Secret: secret})
	var asText string
	require.NoError(t, f.db.NewRaw("SELECT row_to_json(c)::text FROM connections c WHERE id = ?", c.ID).Scan(f.ctx, &asText))
	require.Contains(t, asText, c.ID)
	for _, plain := range []string{secret, user} {
		require.NotContains(t, asText, plain)
		require.NotContains(t, asText, hex.EncodeToString([]byte(plain)))
	}

	other := f.create(t, f.acctA, bearer("other", "another-secret"))
	_, err := f.db.ExecContext(f.ctx, "UPDATE connections SET secret_sealed = (SELECT secret_sealed FROM connections WHERE id = ?) WHERE id = ?", c.ID, other.ID)
	require.NoError(t, err)
	_, err = f.store.Credential(f.ctx, f.acctA, other.ID)
	require.Error(t, err)
	_, isSvc := svcerr.As(err)
	require.False(t, isSvc, "a broken seal is an internal error")
	require.NotContains(t, err.Error(), secret)
}

// applied returns the headers a credential sets on a fresh request.
func applied(c Credential) http.Header {
	req, _ := http.NewRequest(http.MethodGet, "http://upstream.invalid/", nil)
	c.Apply(req)
	return req.Header
}

// TestCredentialAppliesEachAuthType opens and applies header, bearer and basic credentials, including a
// basic rotation that keeps the username.
func TestCredentialAppliesEachAuthType(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := f.create(t, f.acctA, NewConnection{Name: "h", AuthType: AuthHeader, HeaderName: "X-Api-Key", Secret: "hdr-secret"})
	b := f.create(t, f.acctA, bearer("b", "bearer-secret"))
	ba := f.create(t, f.acctA, NewConnection{Name: "ba", AuthType: AuthBasic, Username: "alice", Secret: "pw:with:colons"})

	cred, err := f.store.Credential(f.ctx, f.acctA, h.ID)
	require.NoError(t, err)
	require.Equal(t, h.ID, cred.ID())
	require.Equal(t, AuthHeader, cred.AuthType())
	hdr := applied(cred)
	require.Equal(t, "hdr-secret", hdr.Get("X-Api-Key"))
	require.Empty(t, hdr.Get("Authorization"))

	cred, err = f.store.Credential(f.ctx, f.acctA, b.ID)
	require.NoError(t, err)
	require.Equal(t, "Bearer bearer-secret", applied(cred).Get("Authorization"))

	cred, err = f.store.Credential(f.ctx, f.acctA, ba.ID)
	require.NoError(t, err)
	requireBasic(t, cred, "alice", "pw:with:colons")

	_, err = f.store.Update(f.ctx, f.acctA, ba.ID, Patch{Secret: ptr("new-pw")})
	require.NoError(t, err)
	cred, err = f.store.Credential(f.ctx, f.acctA, ba.ID)
	require.NoError(t, err)
	requireBasic(t, cred, "alice", "new-pw")
	_, err = f.store.Update(f.ctx, f.acctA, ba.ID, Patch{Username: ptr("bob")})
	require.NoError(t, err)
	cred, err = f.store.Credential(f.ctx, f.acctA, ba.ID)
	require.NoError(t, err)
	requireBasic(t, cred, "bob", "new-pw")

	require.Empty(t, applied(Credential{}), "a zero credential sets nothing")
}

func requireBasic(t *testing.T, c Credential, user, pass string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://upstream.invalid/", nil)
	c.Apply(req)
	u, p, ok := req.BasicAuth()
	require.True(t, ok)
	require.Equal(t, user, u)
	require.Equal(t, pass, p)
}

// TestValidationNamesField checks each invalid input's param, on create and on update.
func TestValidationNamesField(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	long := strings.Repeat("x", MaxSecretLength+1)
	cases := map[string]struct {
		n     NewConnection
		param string
	}{
		"no name":               {NewConnection{AuthType: AuthBearer, Secret: "s"}, "name"},
		"blank name":            {NewConnection{Name: "  ", AuthType: AuthBearer, Secret: "s"}, "name"},
		"control in name":       {NewConnection{Name: "a\nb", AuthType: AuthBearer, Secret: "s"}, "name"},
		"unknown auth type":     {NewConnection{Name: "n", AuthType: "oauth", Secret: "s"}, "authType"},
		"no auth type":          {NewConnection{Name: "n", Secret: "s"}, "authType"},
		"header without name":   {NewConnection{Name: "n", AuthType: AuthHeader, Secret: "s"}, "headerName"},
		"header name invalid":   {NewConnection{Name: "n", AuthType: AuthHeader, HeaderName: "X Key", Secret: "s"}, "headerName"},
		"header name reserved":  {NewConnection{Name: "n", AuthType: AuthHeader, HeaderName: "host", Secret: "s"}, "headerName"},
		"header name on bearer": {NewConnection{Name: "n", AuthType: AuthBearer, HeaderName: "X-Key", Secret: "s"}, "headerName"},
		"basic without user":    {NewConnection{Name: "n", AuthType: AuthBasic, Secret: "s"}, "username"},
		"basic user with colon": {NewConnection{Name: "n", AuthType: AuthBasic, Username: "a:b", Secret: "s"}, "username"},
		"username on bearer":    {NewConnection{Name: "n", AuthType: AuthBearer, Username: "u", Secret: "s"}, "username"},
		"no secret":             {NewConnection{Name: "n", AuthType: AuthBearer}, "secret"},
		"secret with newline":   {NewConnection{Name: "n", AuthType: AuthBearer, Secret: "abc\r\nX-Evil: 1"}, "secret"},
		"secret too long":       {NewConnection{Name: "n", AuthType: AuthBearer, Secret: long}, "secret"},
	}
	for name, tc := range cases {
		tc.n.ID = NewID()
		_, err := f.store.Create(f.ctx, f.acctA, tc.n)
		requireCode(t, err, svcerr.InvalidRequest, tc.param)
		if tc.n.Secret != "" && tc.n.Secret != "s" {
			require.NotContains(t, err.Error(), tc.n.Secret, name)
		}
	}
	c := f.create(t, f.acctA, bearer("ok", "tok"))
	for param, p := range map[string]Patch{
		"name":     {Name: ptr("")},
		"secret":   {Secret: ptr("")},
		"username": {Username: ptr("u")},
	} {
		_, err := f.store.Update(f.ctx, f.acctA, c.ID, p)
		requireCode(t, err, svcerr.InvalidRequest, param)
	}
}

// TestCachedCredentialsFollowChanges plays two processes with credential caches: a rotation, a
// disabling and a deletion made through one reach the other's cache as soon as the NOTIFY arrives, and
// at once in the process that made them. It runs alone: notifications are database-wide, and every test
// here changes connections of the same account ID (acct_a), which would empty this test's caches.
func TestCachedCredentialsFollowChanges(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	here := NewStore(f.db, f.store.box).CacheCredentials(time.Minute, 100, log)
	there := NewStore(f.db, f.store.box).CacheCredentials(time.Minute, 100, log)
	for _, s := range []*Store{here, there} {
		go s.Listen(ctx, f.db)
		require.Eventually(t, s.named.Listening, 5*time.Second, 5*time.Millisecond)
	}
	c := f.create(t, f.projA1, bearer("gen", "s1"))
	f.create(t, f.acctB, bearer("gen", "other-account"))
	secretOf := func(s *Store, scope tenant.Scope) string {
		cred, err := s.CredentialNamed(ctx, scope, "gen")
		if err != nil {
			return "error: " + err.Error()
		}
		return applied(cred).Get("Authorization")
	}
	require.Equal(t, "Bearer s1", secretOf(there, f.projA1))
	require.Equal(t, "Bearer other-account", secretOf(there, f.acctB))
	require.Contains(t, secretOf(there, f.acctA), "no connection", "another scope of the account does not see it")

	// A change the cache is not told about is not seen: the answer comes from memory.
	_, err := f.db.ExecContext(ctx, "UPDATE connections SET status = 'disabled' WHERE id = ?", c.ID)
	require.NoError(t, err)
	require.Equal(t, "Bearer s1", secretOf(there, f.projA1))
	_, err = f.db.ExecContext(ctx, "UPDATE connections SET status = 'active' WHERE id = ?", c.ID)
	require.NoError(t, err)

	steps := []struct {
		name   string
		change func() error
		want   string
	}{
		{"rotate", func() error { _, err := here.Update(ctx, f.projA1, c.ID, Patch{Secret: ptr("s2")}); return err }, "Bearer s2"},
		{"disable", func() error { _, err := here.Update(ctx, f.projA1, c.ID, Patch{Disabled: ptr(true)}); return err }, "is disabled"},
		{"enable", func() error { _, err := here.Update(ctx, f.projA1, c.ID, Patch{Disabled: ptr(false)}); return err }, "Bearer s2"},
		{"delete", func() error { _, err := here.Delete(ctx, f.projA1, c.ID); return err }, "no connection"},
	}
	for _, st := range steps {
		secretOf(here, f.projA1) // both processes have the credential cached, or its refusal read
		secretOf(there, f.projA1)
		require.NoError(t, st.change(), st.name)
		require.Contains(t, secretOf(here, f.projA1), st.want, "%s: the changing process sees it at once", st.name)
		require.Eventually(t, func() bool { return strings.Contains(secretOf(there, f.projA1), st.want) }, 5*time.Second, 2*time.Millisecond,
			"%s never reached the other process", st.name)
	}
	require.Equal(t, "Bearer other-account", secretOf(there, f.acctB), "another account's credential is untouched")
}
