// Package account creates accounts and issues the signed, single-use credit tokens (JWT, HS256) that
// authorise an account's first API key.
package account

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// DefaultTokenTTL is how long a credit token stays valid unless told otherwise.
const DefaultTokenTTL = 24 * time.Hour

const (
	tokenIssuer   = "svc"
	tokenAudience = "svc:first-key"
)

// Service creates accounts and signs and checks credit tokens.
type Service struct {
	db      bun.IDB
	signKey []byte
	now     func() time.Time
}

// New returns a Service; signKey signs credit tokens (derive it from the master key).
func New(db bun.IDB, signKey []byte) *Service {
	return &Service{db: db, signKey: signKey, now: time.Now}
}

// Created is what creating an account answers, printed as one JSON line by `svcd accounts create`.
type Created struct {
	AccountID   string `json:"accountId"`
	CreditToken string `json:"creditToken"`
}

// Create makes an account with an optional grant of starting credits, and a credit token for its first key.
func (s *Service) Create(ctx context.Context, name string, credits int64, ttl time.Duration) (Created, error) {
	if credits < 0 {
		return Created{}, svcerr.Invalid("credits", "starting credits cannot be negative")
	}
	var acct *schema.Account
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if acct, err = Open(ctx, tx, name); err != nil {
			return err
		}
		if credits == 0 {
			return nil
		}
		if err := ledger.New(tx).Grant(ctx, tx, acct.ID, credits*catalog.MillicreditsPerCredit, "account-create"); err != nil {
			return fmt.Errorf("grant starting credits: %w", err)
		}
		return nil
	})
	if err != nil {
		return Created{}, err
	}
	token, err := s.IssueToken(acct.ID, ttl)
	if err != nil {
		return Created{}, err
	}
	return Created{AccountID: acct.ID, CreditToken: token}, nil
}

// Open inserts an account named name (trimmed, 1 to 200 characters) and its empty credit balance through
// db, which should be a transaction the caller commits with whatever else makes the account (a grant of
// credits, the address it signs in with).
func Open(ctx context.Context, db bun.IDB, name string) (*schema.Account, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return nil, svcerr.Invalid("name", "an account needs a name of 1 to 200 characters")
	}
	acct := &schema.Account{ID: ids.New(ids.Account), Name: name}
	if _, err := db.NewInsert().Model(acct).Exec(ctx); err != nil {
		return nil, fmt.Errorf("insert account: %w", err)
	}
	if _, err := db.NewRaw("INSERT INTO credit_balances (account_id) VALUES (?)", acct.ID).Exec(ctx); err != nil {
		return nil, fmt.Errorf("open balance: %w", err)
	}
	return acct, nil
}

// IssueToken signs a credit token for an existing account.
func (s *Service) IssueToken(accountID string, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		ttl = DefaultTokenTTL
	}
	now := s.now()
	claims := jwt.RegisteredClaims{
		Issuer: tokenIssuer, Subject: accountID, Audience: jwt.ClaimStrings{tokenAudience},
		ID: ids.New("ctk"), IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.signKey)
	if err != nil {
		return "", fmt.Errorf("sign credit token: %w", err)
	}
	return signed, nil
}

// Token is a verified credit token: the account it names and its unique id.
type Token struct {
	AccountID string
	ID        string
}

// VerifyToken checks a credit token's signature, issuer, audience and expiry and that its account exists.
// Whether it was already spent is decided when the key is created, in the same transaction.
func (s *Service) VerifyToken(ctx context.Context, raw string) (Token, error) {
	claims := new(jwt.RegisteredClaims)
	_, err := jwt.ParseWithClaims(raw, claims, func(*jwt.Token) (any, error) { return s.signKey, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithIssuer(tokenIssuer),
		jwt.WithAudience(tokenAudience), jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.now))
	if err != nil {
		msg := "the credit token is invalid"
		if errors.Is(err, jwt.ErrTokenExpired) {
			msg = "the credit token has expired"
		}
		return Token{}, svcerr.New(svcerr.Unauthenticated, "%s", msg)
	}
	if claims.ID == "" || !ids.HasPrefix(claims.Subject, ids.Account) {
		return Token{}, svcerr.New(svcerr.Unauthenticated, "the credit token is invalid")
	}
	exists, err := s.Exists(ctx, claims.Subject)
	if err != nil {
		return Token{}, err
	}
	if !exists {
		return Token{}, svcerr.New(svcerr.Unauthenticated, "the credit token names no account")
	}
	return Token{AccountID: claims.Subject, ID: claims.ID}, nil
}

// Exists reports whether the account exists.
func (s *Service) Exists(ctx context.Context, accountID string) (bool, error) {
	n, err := s.db.NewSelect().Model((*schema.Account)(nil)).Where("id = ?", accountID).Count(ctx)
	if err != nil {
		return false, fmt.Errorf("check account: %w", err)
	}
	return n > 0, nil
}
