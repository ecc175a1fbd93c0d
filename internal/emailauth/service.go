// Package emailauth signs in by email without an operator (issue 27): POST /auth/email/start sends a
// 6-digit one-time code to an address (10 minutes, 5 attempts, one code a minute per address); POST
// /auth/email/verify checks it in constant time, creates the account on the first sign-in (its terms
// accepted) and answers a new top-level API key with seed 002's key flags. Codes are kept only as HMACs
// and never logged; mail goes through a Mailer (SMTP, or the dev mailbox in PostgreSQL).
package emailauth

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/mail"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Defaults of Options.
const (
	DefaultCodeTTL     = 10 * time.Minute
	DefaultResendAfter = time.Minute
	// MaxAttempts is how many wrong codes an attempt takes: the last one locks it.
	MaxAttempts = 5
	// MaxCodesPerDay is how many codes one address is sent in 24 hours: with MaxAttempts, at most 50
	// guesses a day against a million codes.
	MaxCodesPerDay = 10
	// Subject is the subject of the sign-in message.
	Subject = "Your svc sign-in code"
	// attemptRetention is how long attempts are kept (long after their codes expired).
	attemptRetention = 24 * time.Hour
)

// Options configure a Service.
type Options struct {
	// Mailer sends the codes (required).
	Mailer Mailer
	// Catalog lists the services a new key's flags choose from (default catalog.Builtin()).
	Catalog *catalog.Catalog
	// CodeTTL and ResendAfter default to the constants above.
	CodeTTL     time.Duration
	ResendAfter time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Log receives failed sends (never a code or a body); default slog.Default().
	Log *slog.Logger
}

// Service runs email sign-ins.
type Service struct {
	db   bun.IDB
	key  []byte
	opts Options
}

// New returns a Service on db whose codes are hashed with key, a purpose-bound key derived from the
// platform's master key.
func New(db bun.IDB, key []byte, o Options) *Service {
	if o.Catalog == nil {
		o.Catalog = catalog.Builtin()
	}
	if o.CodeTTL <= 0 {
		o.CodeTTL = DefaultCodeTTL
	}
	if o.ResendAfter <= 0 {
		o.ResendAfter = DefaultResendAfter
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Service{db: db, key: key, opts: o}
}

// NormalizeEmail trims and lower-cases a bare address (no display name) and checks its form; the error
// is a 400 naming email.
func NormalizeEmail(raw string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(raw))
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || a.Name != "" || len(e) > 254 || !mailDomain(e) {
		return "", svcerr.Invalid("email", "%q is not a mail address (name@example.com)", strings.TrimSpace(raw))
	}
	return e, nil
}

// mailDomain reports whether a parsed address's domain can receive mail: a dotted name, or localhost.
func mailDomain(addr string) bool {
	domain := addr[strings.LastIndexByte(addr, '@')+1:]
	return domain == "localhost" || strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
}

// Started is a sent code's attempt (never the code).
type Started struct {
	AttemptID   string
	Email       string
	ExpiresAt   time.Time
	ResendAfter time.Time
}

// Start sends a new code to email. Within ResendAfter of the address's previous code it sends nothing
// and answers a 429 (limit_exceeded) with retryAfterSeconds and resendAfter. A send that fails forgets
// the attempt, so the caller may ask again at once.
func (s *Service) Start(ctx context.Context, rawEmail string) (*Started, error) {
	email, err := NormalizeEmail(rawEmail)
	if err != nil {
		return nil, err
	}
	code, err := NewCode()
	if err != nil {
		return nil, err
	}
	now := s.opts.Now().UTC()
	st := &Started{AttemptID: ids.New(ids.EmailSignIn), Email: email, ExpiresAt: now.Add(s.opts.CodeTTL).Truncate(time.Second),
		ResendAfter: now.Add(s.opts.ResendAfter).Truncate(time.Second)}
	if err := s.record(ctx, st, code, now); err != nil {
		return nil, err
	}
	if err := s.opts.Mailer.Send(ctx, codeMessage(email, code, st.ExpiresAt, s.opts.CodeTTL)); err != nil {
		s.forget(st.AttemptID)
		s.opts.Log.Warn("a sign-in code could not be sent", "attemptId", st.AttemptID, "error", err)
		return nil, &svcerr.Error{Code: svcerr.Unavailable, Param: "email",
			Message: "the sign-in code could not be sent; try again shortly"}
	}
	return st, nil
}

// record stores the attempt unless the address's previous code is too recent, purging day-old attempts
// on the way; the advisory lock on the address makes the throttle check and the insert one step.
func (s *Service) record(ctx context.Context, st *Started, code string, now time.Time) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(hashtextextended(?, 27))", st.Email).Exec(ctx); err != nil {
			return fmt.Errorf("serialise sign-in starts: %w", err)
		}
		if err := s.throttle(ctx, tx, st.Email, now); err != nil {
			return err
		}
		if _, err := tx.NewRaw("DELETE FROM email_signin_attempts WHERE created_at < ?", now.Add(-attemptRetention)).Exec(ctx); err != nil {
			return fmt.Errorf("purge old sign-in attempts: %w", err)
		}
		_, err := tx.NewRaw(`INSERT INTO email_signin_attempts (id, email, code_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?)`,
			st.AttemptID, st.Email, HashCode(s.key, st.AttemptID, code), st.ExpiresAt, now).Exec(ctx)
		if err != nil {
			return fmt.Errorf("store a sign-in attempt: %w", err)
		}
		return nil
	})
}

// throttle refuses a start within ResendAfter of the address's latest attempt, or when the address was
// sent MaxCodesPerDay codes in the last 24 hours.
func (s *Service) throttle(ctx context.Context, tx bun.Tx, email string, now time.Time) error {
	var recent struct {
		Count  int       `bun:"n"`
		First  time.Time `bun:"first"`
		Latest time.Time `bun:"latest"`
	}
	err := tx.NewRaw("SELECT count(*) AS n, min(created_at) AS first, max(created_at) AS latest FROM email_signin_attempts WHERE email = ? AND created_at >= ?",
		email, now.Add(-attemptRetention)).Scan(ctx, &recent)
	if err != nil {
		return fmt.Errorf("read the address's recent sign-in attempts: %w", err)
	}
	if recent.Count == 0 {
		return nil
	}
	if recent.Count >= MaxCodesPerDay {
		return tooSoon(recent.First.Add(attemptRetention), now,
			fmt.Sprintf("this address was sent %d sign-in codes in the last 24 hours, the most it is sent", MaxCodesPerDay))
	}
	if next := recent.Latest.Add(s.opts.ResendAfter); now.Before(next) {
		return tooSoon(next, now, fmt.Sprintf("a code was sent to this address less than %s ago", s.opts.ResendAfter))
	}
	return nil
}

// tooSoon is the 429 of a start refused until next.
func tooSoon(next, now time.Time, why string) error {
	wait := int(math.Ceil(next.Sub(now).Seconds()))
	return (&svcerr.Error{Code: svcerr.LimitExceeded, Param: "email",
		Message: fmt.Sprintf("%s: ask again after %s", why, next.UTC().Format(time.RFC3339))}).
		WithDetails("retryAfterSeconds", wait).WithDetails("operation", client.OpAuthEmailStart).
		WithDetails("resendAfter", next.UTC().Format(time.RFC3339))
}

// forget deletes an attempt whose code never left (a failed send).
func (s *Service) forget(attemptID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = s.db.NewRaw("DELETE FROM email_signin_attempts WHERE id = ?", attemptID).Exec(ctx)
}

// codeMessage is the sign-in message: the code and when it expires.
func codeMessage(email, code string, expires time.Time, ttl time.Duration) Message {
	body := fmt.Sprintf("Your svc sign-in code is:\n\n    %s\n\nIt expires at %s (in %d minutes) and works once.\n"+
		"If you did not ask to sign in, ignore this message.\n", code, expires.UTC().Format("2006-01-02 15:04 UTC"),
		int(math.Round(ttl.Minutes())))
	return Message{To: email, Subject: Subject, Body: body}
}
