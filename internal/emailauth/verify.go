package emailauth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/account"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// VerifyRequest is what a verification carries.
type VerifyRequest struct {
	Email       string
	Code        string
	AcceptTerms bool
	// KeyName is the new key's name; empty is CLI-<yyyy-mm-dd>.
	KeyName string
	Flags   client.KeyFlags
}

// SignIn is a verified sign-in: the account and its new key with the secret, shown once.
type SignIn struct {
	AccountID  string
	Email      string
	NewAccount bool
	Key        *schema.APIKey
	Secret     string
}

// attempt is the row a verification judges.
type attempt struct {
	ID         string     `bun:"id"`
	CodeHash   []byte     `bun:"code_hash"`
	ExpiresAt  time.Time  `bun:"expires_at"`
	Attempts   int        `bun:"attempts"`
	ConsumedAt *time.Time `bun:"consumed_at"`
}

// Verify checks req.Code against the address's latest attempt. Everything happens in one transaction
// with the attempt's row locked: the code is spent, the account found or created (the first sign-in
// needs AcceptTerms) and the key made, or nothing is. A wrong code counts (and is committed) before the
// refusal; the MaxAttempts-th locks the attempt, which then refuses even the right code.
func (s *Service) Verify(ctx context.Context, req VerifyRequest) (*SignIn, error) {
	email, err := NormalizeEmail(req.Email)
	if err != nil {
		return nil, err
	}
	if !wellFormedCode(req.Code) {
		return nil, svcerr.Invalid("code", "a sign-in code is %d digits", CodeDigits)
	}
	now := s.opts.Now().UTC()
	name := strings.TrimSpace(req.KeyName)
	if name == "" {
		name = "CLI-" + now.Format(time.DateOnly)
	}
	if len(name) > 200 {
		return nil, svcerr.Invalid("keyName", "a key name has at most 200 characters")
	}
	var out *SignIn
	var refusal *svcerr.Error // a wrong code: committed, then answered
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		a, err := latestAttempt(ctx, tx, email)
		if err != nil {
			return err
		}
		if err := judge(a, now); err != nil {
			return err
		}
		if !CodeMatches(s.key, a.ID, req.Code, a.CodeHash) {
			refusal, err = countWrong(ctx, tx, a)
			return err
		}
		out, err = s.signIn(ctx, tx, a.ID, email, name, req, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if refusal != nil {
		return nil, refusal
	}
	return out, nil
}

// latestAttempt locks and reads the address's latest attempt.
func latestAttempt(ctx context.Context, tx bun.Tx, email string) (*attempt, error) {
	a := new(attempt)
	err := tx.NewRaw(`SELECT id, code_hash, expires_at, attempts, consumed_at FROM email_signin_attempts
		WHERE email = ? ORDER BY created_at DESC LIMIT 1 FOR UPDATE`, email).Scan(ctx, a)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &svcerr.Error{Code: svcerr.Unauthenticated, Param: "email",
			Message: "no sign-in code was sent to this address: ask for one with POST /auth/email/start"}
	}
	if err != nil {
		return nil, fmt.Errorf("read the sign-in attempt: %w", err)
	}
	return a, nil
}

// judge refuses a used, locked or expired attempt, whatever the code.
func judge(a *attempt, now time.Time) error {
	switch {
	case a.ConsumedAt != nil:
		return codeRefused(a, "this code was already used: ask for a new one with POST /auth/email/start")
	case a.Attempts >= MaxAttempts:
		return codeRefused(a, fmt.Sprintf("this code is locked after %d wrong answers: ask for a new one with POST /auth/email/start", MaxAttempts))
	case !now.Before(a.ExpiresAt):
		return codeRefused(a, "this code expired at "+a.ExpiresAt.UTC().Format(time.RFC3339)+": ask for a new one with POST /auth/email/start").
			WithDetails("expiresAt", a.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// codeRefused is the 401 naming code, with the attempt's id and the attempts left.
func codeRefused(a *attempt, msg string) *svcerr.Error {
	return (&svcerr.Error{Code: svcerr.Unauthenticated, Param: "code", Message: msg}).
		WithDetails("attemptId", a.ID).WithDetails("attemptsLeft", max(0, MaxAttempts-a.Attempts))
}

// countWrong records a wrong code and answers its refusal.
func countWrong(ctx context.Context, tx bun.Tx, a *attempt) (*svcerr.Error, error) {
	if _, err := tx.NewRaw("UPDATE email_signin_attempts SET attempts = attempts + 1 WHERE id = ?", a.ID).Exec(ctx); err != nil {
		return nil, fmt.Errorf("count a wrong code: %w", err)
	}
	a.Attempts++
	if a.Attempts >= MaxAttempts {
		return codeRefused(a, fmt.Sprintf("wrong code; that was the %dth wrong answer, so this code is locked: ask for a new one with POST /auth/email/start", MaxAttempts)), nil
	}
	return codeRefused(a, fmt.Sprintf("wrong code: %d attempts left", MaxAttempts-a.Attempts)), nil
}

// signIn spends the attempt, finds or creates the account and makes the key.
func (s *Service) signIn(ctx context.Context, tx bun.Tx, attemptID, email, keyName string, req VerifyRequest, now time.Time) (*SignIn, error) {
	accountID, created, err := accountFor(ctx, tx, email, req.AcceptTerms, now)
	if err != nil {
		return nil, err
	}
	if _, err := tx.NewRaw("UPDATE email_signin_attempts SET consumed_at = ? WHERE id = ?", now, attemptID).Exec(ctx); err != nil {
		return nil, fmt.Errorf("spend the sign-in code: %w", err)
	}
	key, secret, err := apikey.NewStore(tx).Create(ctx, apikey.NewKey{ID: ids.New(ids.APIKey), AccountID: accountID, Name: keyName,
		Grants: apikey.GrantsForFlags(s.opts.Catalog, req.Flags)})
	if err != nil {
		return nil, fmt.Errorf("create the sign-in key: %w", err)
	}
	return &SignIn{AccountID: accountID, Email: email, NewAccount: created, Key: key, Secret: secret}, nil
}

// accountFor is the account of email, created (named after the address) when there is none and the
// terms were accepted.
func accountFor(ctx context.Context, tx bun.Tx, email string, acceptTerms bool, now time.Time) (string, bool, error) {
	var id string
	err := tx.NewRaw("SELECT account_id FROM account_emails WHERE email = ?", email).Scan(ctx, &id)
	if err == nil {
		return id, false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", false, fmt.Errorf("look up the account of an address: %w", err)
	}
	if !acceptTerms {
		return "", false, svcerr.Invalid("acceptTerms", "the first sign-in creates an account: accept the terms (acceptTerms: true)")
	}
	acct, err := account.Open(ctx, tx, email)
	if err != nil {
		return "", false, err
	}
	res, err := tx.NewRaw("INSERT INTO account_emails (email, account_id, terms_accepted_at) VALUES (?, ?, ?) ON CONFLICT (email) DO NOTHING",
		email, acct.ID, now).Exec(ctx)
	if err != nil {
		return "", false, fmt.Errorf("record the account's address: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return "", false, &svcerr.Error{Code: svcerr.Conflict, Param: "email",
			Message: "another sign-in created this address's account at the same moment: sign in again"}
	}
	return acct.ID, true, nil
}
