package appfront

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Token lifetimes: an open link is followed at once; a viewer cookie lasts a working day.
const (
	LinkTTL   = 2 * time.Minute
	CookieTTL = 12 * time.Hour
	// ConfirmTTL is how long a transaction waits for its owner's Confirm.
	ConfirmTTL = 15 * time.Minute
)

// Token kinds, each its own audience so that one can never stand in for the other.
const (
	kindLink    = "app-open"
	kindCookie  = "app-view"
	kindConfirm = "app-confirm"
	issuer      = "svc-appfront"
)

// Signer signs and verifies viewer tokens (HS256 JWTs): a short-lived open link made for a signed-in
// caller, and the HttpOnly cookie the link sets. Both name one app (owner and slug) in their audience:
// a token for one app is refused by every other.
type Signer struct {
	key []byte
	now func() time.Time
}

// NewSigner returns a Signer on key (a server secret, e.g. secretbox.Box.Derive("app-viewer")); now is
// the clock (time.Now when nil).
func NewSigner(key []byte, now func() time.Time) *Signer {
	if now == nil {
		now = time.Now
	}
	return &Signer{key: key, now: now}
}

func audience(kind, owner, slug string) string { return kind + ":" + owner + "/" + slug }

// IssueLink signs the open link token of viewer accountID for the app owner/slug.
func (s *Signer) IssueLink(owner, slug, accountID string) (string, time.Time, error) {
	return s.issue(kindLink, owner, slug, accountID, LinkTTL)
}

// IssueCookie signs the viewer cookie of accountID for the app owner/slug.
func (s *Signer) IssueCookie(owner, slug, accountID string) (string, time.Time, error) {
	return s.issue(kindCookie, owner, slug, accountID, CookieTTL)
}

func (s *Signer) issue(kind, owner, slug, accountID string, ttl time.Duration) (string, time.Time, error) {
	now := s.now()
	exp := now.Add(ttl)
	claims := jwt.RegisteredClaims{Issuer: issuer, Subject: accountID, Audience: jwt.ClaimStrings{audience(kind, owner, slug)},
		ID: ids.New("avt"), IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp)}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.key)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign the %s token of app %s/%s: %w", kind, owner, slug, err)
	}
	return signed, exp, nil
}

// VerifyLink answers the account an open link token of the app owner/slug names.
func (s *Signer) VerifyLink(raw, owner, slug string) (string, error) {
	return s.verify(kindLink, raw, owner, slug)
}

// VerifyCookie answers the account a viewer cookie of the app owner/slug names.
func (s *Signer) VerifyCookie(raw, owner, slug string) (string, error) {
	return s.verify(kindCookie, raw, owner, slug)
}

func (s *Signer) verify(kind, raw, owner, slug string) (string, error) {
	claims := new(jwt.RegisteredClaims)
	_, err := jwt.ParseWithClaims(raw, claims, func(*jwt.Token) (any, error) { return s.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithIssuer(issuer),
		jwt.WithAudience(audience(kind, owner, slug)), jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.now))
	if err != nil {
		msg := "the app's viewer token is invalid (open the app again: svc apps open)"
		if errors.Is(err, jwt.ErrTokenExpired) {
			msg = "the app's viewer token has expired (open the app again: svc apps open)"
		}
		return "", svcerr.New(svcerr.Unauthenticated, "%s", msg)
	}
	if !ids.HasPrefix(claims.Subject, ids.Account) {
		return "", svcerr.New(svcerr.Unauthenticated, "the app's viewer token names no account")
	}
	return claims.Subject, nil
}

// confirmClaims are a confirmation token's claims: the transaction and its description, for one viewer
// (Subject) of one app (Audience), its id the confirmation's.
type confirmClaims struct {
	jwt.RegisteredClaims
	Tx          Tx     `json:"tx"`
	Description string `json:"description,omitempty"`
}

// Confirmation is a verified confirmation token's content.
type Confirmation struct {
	ID          string
	Tx          Tx
	Description string
}

// IssueConfirmation signs the confirmation id of tx for viewer accountID of the app owner/slug.
func (s *Signer) IssueConfirmation(owner, slug, accountID, id string, tx Tx, description string) (string, time.Time, error) {
	now := s.now()
	exp := now.Add(ConfirmTTL)
	claims := confirmClaims{RegisteredClaims: jwt.RegisteredClaims{Issuer: issuer, Subject: accountID,
		Audience: jwt.ClaimStrings{audience(kindConfirm, owner, slug)}, ID: id, IssuedAt: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp)}, Tx: tx, Description: description}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.key)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign confirmation %s of app %s/%s: %w", id, owner, slug, err)
	}
	return signed, exp, nil
}

// VerifyConfirmation answers the confirmation a token of the app owner/slug holds for viewer accountID.
func (s *Signer) VerifyConfirmation(raw, owner, slug, accountID string) (*Confirmation, error) {
	claims := new(confirmClaims)
	_, err := jwt.ParseWithClaims(raw, claims, func(*jwt.Token) (any, error) { return s.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithIssuer(issuer), jwt.WithSubject(accountID),
		jwt.WithAudience(audience(kindConfirm, owner, slug)), jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.now))
	if err != nil {
		msg := "params.token is not a confirmation of this app for this viewer"
		if errors.Is(err, jwt.ErrTokenExpired) {
			msg = "the confirmation has expired: the app asks again"
		}
		return nil, svcerr.Invalid("params.token", "%s", msg)
	}
	if !ids.HasPrefix(claims.ID, ConfirmationPrefix) {
		return nil, svcerr.Invalid("params.token", "params.token names no confirmation")
	}
	return &Confirmation{ID: claims.ID, Tx: claims.Tx, Description: claims.Description}, nil
}
