package siwe

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/golang-jwt/jwt/v5"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Defaults of Options.
const (
	DefaultNonceTTL   = 5 * time.Minute
	DefaultSessionTTL = time.Hour
	// DefaultClockSkew is how far in the future a message's issued-at (or past its expiry) may be.
	DefaultClockSkew = time.Minute
)

const (
	sessionIssuer   = "svc"
	sessionAudience = "svc-web-session"
	nonceAlphabet   = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	nonceLength     = 24
)

// Options configure a Service.
type Options struct {
	// Domain is the host[:port] a message must name (SVC_SIWE_DOMAIN; default the API's listen address).
	Domain string
	// ChainID is the platform chain's numeric id (eip155:<id>) a message must name.
	ChainID int64
	// NonceTTL, SessionTTL and ClockSkew default to the constants above.
	NonceTTL   time.Duration
	SessionTTL time.Duration
	ClockSkew  time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Service issues nonces, verifies sign-ins and links addresses, and signs and checks session tokens.
type Service struct {
	db   bun.IDB
	key  []byte
	opts Options
}

// New returns a Service on db whose session tokens are signed (HS256) with key, a purpose-bound key
// derived from the platform's master key.
func New(db bun.IDB, key []byte, o Options) *Service {
	if o.NonceTTL <= 0 {
		o.NonceTTL = DefaultNonceTTL
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = DefaultSessionTTL
	}
	if o.ClockSkew <= 0 {
		o.ClockSkew = DefaultClockSkew
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{db: db, key: key, opts: o}
}

// Domain is the domain messages must name.
func (s *Service) Domain() string { return s.opts.Domain }

// ChainID is the chain id messages must name.
func (s *Service) ChainID() int64 { return s.opts.ChainID }

// Nonce is an issued nonce and when it stops being accepted.
type Nonce struct {
	Nonce     string
	ExpiresAt time.Time
}

// NewNonce stores and returns a fresh single-use nonce. Nonces that expired an hour ago are deleted on
// the way, so the table holds only recent ones.
func (s *Service) NewNonce(ctx context.Context) (Nonce, error) {
	b := make([]byte, nonceLength)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(nonceAlphabet))))
		if err != nil {
			return Nonce{}, fmt.Errorf("draw a nonce: %w", err)
		}
		b[i] = nonceAlphabet[n.Int64()]
	}
	now := s.opts.Now().UTC()
	n := Nonce{Nonce: string(b), ExpiresAt: now.Add(s.opts.NonceTTL)}
	if _, err := s.db.NewRaw("DELETE FROM siwe_nonces WHERE expires_at < ?", now.Add(-time.Hour)).Exec(ctx); err != nil {
		return Nonce{}, fmt.Errorf("purge old nonces: %w", err)
	}
	if _, err := s.db.NewRaw("INSERT INTO siwe_nonces (nonce, expires_at) VALUES (?, ?)", n.Nonce, n.ExpiresAt).Exec(ctx); err != nil {
		return Nonce{}, fmt.Errorf("store a nonce: %w", err)
	}
	return n, nil
}

// check verifies everything about a signed message but its nonce: the format, domain, chain, times,
// and that signature recovers to the message's address.
func (s *Service) check(text, signature string) (*Message, error) {
	m, err := Parse(text)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(m.Domain, s.opts.Domain) {
		return nil, invalid("domain", "%q is not this service's domain (%s)", m.Domain, s.opts.Domain)
	}
	if m.ChainID != s.opts.ChainID {
		return nil, invalid("chainId", "chain %d is not the platform chain (%d)", m.ChainID, s.opts.ChainID)
	}
	now := s.opts.Now()
	if m.IssuedAt.After(now.Add(s.opts.ClockSkew)) {
		return nil, invalid("issuedAt", "%s is in the future", m.IssuedAt.UTC().Format(time.RFC3339))
	}
	if m.ExpirationTime != nil && !now.Before(m.ExpirationTime.Add(s.opts.ClockSkew)) {
		return nil, invalid("expirationTime", "the message expired at %s", m.ExpirationTime.UTC().Format(time.RFC3339))
	}
	if m.NotBefore != nil && now.Add(s.opts.ClockSkew).Before(*m.NotBefore) {
		return nil, invalid("notBefore", "the message is not valid before %s", m.NotBefore.UTC().Format(time.RFC3339))
	}
	signer, err := Recover(text, signature)
	if err != nil {
		return nil, err
	}
	if signer != m.Address {
		return nil, badSignature("the signature was made by %s, not by the message's address %s", signer.Hex(), m.Address.Hex())
	}
	return m, nil
}

// consume spends the message's nonce: one statement, so two concurrent sign-ins with one nonce cannot
// both pass. A failure says whether the nonce is unknown, used or expired.
func (s *Service) consume(ctx context.Context, db bun.IDB, nonce string) error {
	now := s.opts.Now().UTC()
	res, err := db.NewRaw("UPDATE siwe_nonces SET used_at = ? WHERE nonce = ? AND used_at IS NULL AND expires_at > ?", now, nonce, now).Exec(ctx)
	if err != nil {
		return fmt.Errorf("consume a nonce: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var used bool
	err = db.NewRaw("SELECT used_at IS NOT NULL FROM siwe_nonces WHERE nonce = ?", nonce).Scan(ctx, &used)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return invalid("nonce", "this service did not issue nonce %q (ask POST /auth/siwe/nonce)", nonce)
	case err != nil:
		return fmt.Errorf("look up a nonce: %w", err)
	case used:
		return invalid("nonce", "the nonce was already used: sign a new message with a new nonce")
	}
	return invalid("nonce", "the nonce expired: ask POST /auth/siwe/nonce for a new one")
}

// Session is a signed-in address and the account it belongs to.
type Session struct {
	// ID is the session token's unique id (jti).
	ID        string
	AccountID string
	// Address is the EIP-55 address that signed in.
	Address   string
	ExpiresAt time.Time
}

// SignIn verifies a signed message, spends its nonce and answers a session with its token. The address
// must be linked to an account (Link); an unlinked address is a 401 naming message.address.
func (s *Service) SignIn(ctx context.Context, text, signature string) (*Session, string, error) {
	m, err := s.check(text, signature)
	if err != nil {
		return nil, "", err
	}
	if err := s.consume(ctx, s.db, m.Nonce); err != nil {
		return nil, "", err
	}
	var accountID string
	err = s.db.NewRaw("SELECT account_id FROM siwe_addresses WHERE address = ?", m.Address.Hex()).Scan(ctx, &accountID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", invalid("address", "%s is not linked to an account: link it with POST /auth/siwe/link and an API key of the account's owner", m.Address.Hex())
	}
	if err != nil {
		return nil, "", fmt.Errorf("look up a linked address: %w", err)
	}
	return s.issue(accountID, m.Address)
}

// Link verifies a signed message, spends its nonce and links its address to accountID, made by keyID.
// Linking an address to the account it already belongs to answers it unchanged; another account's
// address is a 409.
func (s *Service) Link(ctx context.Context, accountID, keyID, text, signature string) (common.Address, error) {
	m, err := s.check(text, signature)
	if err != nil {
		return common.Address{}, err
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := s.consume(ctx, tx, m.Nonce); err != nil {
			return err
		}
		var owner string
		err := tx.NewRaw(`INSERT INTO siwe_addresses (address, account_id, key_id) VALUES (?, ?, ?)
			ON CONFLICT (address) DO UPDATE SET address = EXCLUDED.address RETURNING account_id`,
			m.Address.Hex(), accountID, keyID).Scan(ctx, &owner)
		if err != nil {
			return fmt.Errorf("link an address: %w", err)
		}
		if owner != accountID {
			return &svcerr.Error{Code: svcerr.Conflict, Param: "message.address",
				Message: fmt.Sprintf("%s is linked to another account", m.Address.Hex())}
		}
		return nil
	})
	return m.Address, err
}

type sessionClaims struct {
	jwt.RegisteredClaims
	Address string `json:"addr"`
}

func (s *Service) issue(accountID string, addr common.Address) (*Session, string, error) {
	now := s.opts.Now()
	ses := &Session{ID: ids.New("ses"), AccountID: accountID, Address: addr.Hex(), ExpiresAt: now.Add(s.opts.SessionTTL).UTC().Truncate(time.Second)}
	claims := sessionClaims{Address: ses.Address, RegisteredClaims: jwt.RegisteredClaims{
		Issuer: sessionIssuer, Subject: accountID, Audience: jwt.ClaimStrings{sessionAudience}, ID: ses.ID,
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(ses.ExpiresAt),
	}}
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.key)
	if err != nil {
		return nil, "", fmt.Errorf("sign a session token: %w", err)
	}
	return ses, token, nil
}

// LooksLikeToken reports whether a bearer credential has a JWT's shape (an API key never has).
func LooksLikeToken(bearer string) bool {
	return strings.HasPrefix(bearer, "eyJ") && strings.Count(bearer, ".") == 2
}

// Authenticate checks a session token's signature, issuer, audience and expiry, and that its address
// is still linked to its account.
func (s *Service) Authenticate(ctx context.Context, token string) (*Session, error) {
	claims := new(sessionClaims)
	_, err := jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return s.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithIssuer(sessionIssuer),
		jwt.WithAudience(sessionAudience), jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.opts.Now))
	if err != nil {
		msg := "the session token is invalid"
		if errors.Is(err, jwt.ErrTokenExpired) {
			msg = "the session token has expired: sign in again (POST /auth/siwe/verify)"
		}
		return nil, svcerr.New(svcerr.Unauthenticated, "%s", msg)
	}
	if claims.ID == "" || !ids.HasPrefix(claims.Subject, ids.Account) || !common.IsHexAddress(claims.Address) {
		return nil, svcerr.New(svcerr.Unauthenticated, "the session token is invalid")
	}
	var n int
	err = s.db.NewRaw("SELECT count(*) FROM siwe_addresses WHERE address = ? AND account_id = ?", claims.Address, claims.Subject).Scan(ctx, &n)
	if err != nil {
		return nil, fmt.Errorf("check a session's address: %w", err)
	}
	if n == 0 {
		return nil, svcerr.New(svcerr.Unauthenticated, "the session's address is no longer linked to its account")
	}
	return &Session{ID: claims.ID, AccountID: claims.Subject, Address: claims.Address, ExpiresAt: claims.ExpiresAt.Time}, nil
}
