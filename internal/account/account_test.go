package account

import (
	"context"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
)

func TestCreditTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := New(testdb.New(t), []byte("0123456789abcdef0123456789abcdef"))
	created, err := svc.Create(ctx, "acme", 5, time.Hour)
	require.NoError(t, err)
	tok, err := svc.VerifyToken(ctx, created.CreditToken)
	require.NoError(t, err)
	require.Equal(t, created.AccountID, tok.AccountID)
	require.NotEmpty(t, tok.ID)

	other, err := svc.IssueToken(created.AccountID, time.Hour)
	require.NoError(t, err)
	tok2, err := svc.VerifyToken(ctx, other)
	require.NoError(t, err)
	require.NotEqual(t, tok.ID, tok2.ID, "every token has its own jti")

	refuse := func(name, raw string) {
		_, err := svc.VerifyToken(ctx, raw)
		require.True(t, svcerr.Is(err, svcerr.Unauthenticated), "%s: %v", name, err)
	}
	stranger := New(svc.db, []byte("another key, another deployment!"))
	foreign, err := stranger.IssueToken(created.AccountID, time.Hour)
	require.NoError(t, err)
	refuse("signed with another key", foreign)

	svc.now = func() time.Time { return time.Now().Add(-2 * time.Hour) }
	expired, err := svc.IssueToken(created.AccountID, time.Hour)
	require.NoError(t, err)
	svc.now = time.Now
	refuse("expired", expired)

	wrongAud, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Issuer: tokenIssuer, Subject: created.AccountID,
		Audience: jwt.ClaimStrings{"something-else"}, ID: "x", ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}).SignedString(svc.signKey)
	require.NoError(t, err)
	refuse("wrong audience", wrongAud)

	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.RegisteredClaims{Issuer: tokenIssuer, Subject: created.AccountID,
		Audience: jwt.ClaimStrings{tokenAudience}, ID: "x", ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	require.NoError(t, err)
	refuse("alg none", none)

	ghost, err := svc.IssueToken("acct_doesnotexist", time.Hour)
	require.NoError(t, err)
	refuse("unknown account", ghost)
	refuse("garbage", "not.a.jwt")

	_, err = svc.Create(ctx, "  ", 0, 0)
	require.True(t, svcerr.Is(err, svcerr.InvalidRequest))
	_, err = svc.Create(ctx, "neg", -1, 0)
	require.True(t, svcerr.Is(err, svcerr.InvalidRequest))
}
