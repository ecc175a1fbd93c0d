package apikey

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

func TestSecretShapeAndChecksum(t *testing.T) {
	t.Parallel()
	s := NewSecret()
	require.True(t, strings.HasPrefix(s, SecretPrefix))
	require.Len(t, s, len(SecretPrefix)+bodyLen+checksumLen)
	require.True(t, WellFormed(s))
	require.NotEqual(t, s, NewSecret())
	// Every single-character typo in the body is caught by the checksum (or the alphabet).
	body := []byte(s)
	for i := len(SecretPrefix); i < len(SecretPrefix)+bodyLen; i++ {
		orig := body[i]
		body[i] = alphabet[(strings.IndexByte(alphabet, orig)+1)%len(alphabet)]
		require.False(t, WellFormed(string(body)), "typo at %d accepted", i)
		body[i] = orig
	}
	require.False(t, WellFormed("svc_sk_short"))
	require.Len(t, Hash(s), 32)
}

func TestScopeCountMatchesSpec(t *testing.T) {
	t.Parallel()
	require.Len(t, client.AllScopes, 28)
	seen := map[string]bool{}
	for _, s := range client.AllScopes {
		require.False(t, seen[s], "duplicate scope %s", s)
		seen[s] = true
	}
}

func TestNarrowInheritsAndRefuses(t *testing.T) {
	t.Parallel()
	parent := Grants{Scopes: []string{"runs:read", "runs:write"}, Services: []string{"managed-workflows"},
		Limits: []schema.Limit{{Operation: "runs.create", CreditsPerDay: 100}}}
	child, err := Narrow(catalog.Builtin(), parent, Request{})
	require.NoError(t, err)
	require.Equal(t, parent.Scopes, child.Scopes)
	require.Equal(t, parent.Services, child.Services)
	require.Equal(t, parent.Limits, child.Limits)

	_, err = Narrow(catalog.Builtin(), parent, Request{Scopes: []string{"webhooks:read"}})
	require.True(t, svcerr.Is(err, svcerr.ScopeMissing))

	// A requestsPerMinute limit does not stand in for the parent's creditsPerDay limit: both are kept.
	child, err = Narrow(catalog.Builtin(), parent, Request{Limits: []schema.Limit{{Operation: "runs.create", RequestsPerMinute: 1000}}})
	require.NoError(t, err)
	require.Len(t, child.Limits, 2)

	_, err = Narrow(catalog.Builtin(), parent, Request{Limits: []schema.Limit{{Operation: "runs.create", CreditsPerDay: 101}}})
	require.True(t, svcerr.Is(err, svcerr.LimitWiderThanParent))

	_, err = Narrow(catalog.Builtin(), parent, Request{Limits: []schema.Limit{{Operation: "runs.read", RequestsPerMinute: 1}, {Operation: "runs.read", RequestsPerMinute: 2}}})
	require.True(t, svcerr.Is(err, svcerr.InvalidRequest), "duplicate limits are refused")
}

func TestSelectors(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"*", "runs.create", "services.invoke.managed-wallets", "runs.create.managed-workflows.echo",
		"services.invoke.managed-workflows.sleep", "webhookDeliveries.replay"} {
		require.NoError(t, ValidateLimits(catalog.Builtin(), []schema.Limit{{Operation: ok, RequestsPerMinute: 1}}), ok)
	}
	for _, bad := range []string{"", "runs", "runs.create.nope", "runs.create.managed-workflows.nope", "runs.create.managed-wallets.wallets.create"} {
		require.Error(t, ValidateLimits(catalog.Builtin(), []schema.Limit{{Operation: bad, RequestsPerMinute: 1}}), bad)
	}
	require.NoError(t, ValidateLimits(catalog.Builtin(), []schema.Limit{{Operation: "runs.create.managed-workflows", CreditsPerDay: 5}}))
	require.Error(t, ValidateLimits(catalog.Builtin(), []schema.Limit{{Operation: "runs.read", CreditsPerDay: 5}}))
}
