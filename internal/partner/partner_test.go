package partner

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// TestPartnerKeyLifecycle: a created key authenticates as its account and keeps only the secret's hash;
// a wrong, malformed or revoked key is 401; an unknown account is 404; revoking twice is harmless.
func TestPartnerKeyLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	acct := ids.New(ids.Account)
	_, err := db.NewInsert().Model(&schema.Account{ID: acct, Name: "org"}).Exec(ctx)
	require.NoError(t, err)
	s := NewStore(db)

	created, err := s.Create(ctx, acct, "  Launchpad Inc  ")
	require.NoError(t, err)
	require.True(t, apikey.WellFormedWith(SecretPrefix, created.Secret))
	require.Equal(t, "Launchpad Inc", created.Partner.Name)
	require.Equal(t, created.Secret[:len(created.Partner.Prefix)], created.Partner.Prefix)
	var stored []byte
	require.NoError(t, db.NewRaw("SELECT secret_hash FROM partners WHERE id = ?", created.Partner.ID).Scan(ctx, &stored))
	require.Equal(t, apikey.Hash(created.Secret), stored, "only the hash is kept")

	p, err := s.Authenticate(ctx, created.Secret)
	require.NoError(t, err)
	require.Equal(t, acct, p.AccountID)
	for _, bad := range []string{apikey.NewSecretWith(SecretPrefix), apikey.NewSecret(), created.Secret[:20], ""} {
		_, err := s.Authenticate(ctx, bad)
		require.True(t, svcerr.Is(err, svcerr.Unauthenticated), "%q: %v", bad, err)
	}

	list, err := s.List(ctx, acct)
	require.NoError(t, err)
	require.Len(t, list, 1)
	_, err = s.Revoke(ctx, created.Partner.ID)
	require.NoError(t, err)
	again, err := s.Revoke(ctx, created.Partner.ID)
	require.NoError(t, err)
	require.NotNil(t, again.RevokedAt)
	_, err = s.Authenticate(ctx, created.Secret)
	require.ErrorContains(t, err, "revoked")

	_, err = s.Create(ctx, "acct_missing", "x")
	require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
	_, err = s.Create(ctx, acct, " ")
	require.True(t, svcerr.Is(err, svcerr.InvalidRequest), "%v", err)
	_, err = s.Revoke(ctx, "ptn_missing")
	require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
}
