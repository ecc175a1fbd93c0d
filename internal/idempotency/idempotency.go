// Package idempotency stores the outcome of requests sent with an Idempotency-Key, per account, for at
// least 24 hours. A request first claims its key: a new key proceeds under a lease; a finished one is
// replayed; the same key with other input is refused; a key whose lease is still held is in flight; a key
// whose holder crashed (lease expired, no response) or gave up (unlocked after a 5xx) is taken over,
// keeping the seed from which the first attempt derived its resource ids, so a retry finds what the first
// attempt created instead of creating it again.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// Defaults for Options.
const (
	DefaultLease = time.Minute
	DefaultTTL   = 24 * time.Hour
	MaxKeyLength = 255
)

// Options tune a Store.
type Options struct {
	// Lease is how long a claim blocks its key before another request may take it over (default 1 min).
	Lease time.Duration
	// TTL is how long a key is remembered (default 24 h).
	TTL time.Duration
}

// Store keeps idempotency records in PostgreSQL.
type Store struct {
	db   bun.IDB
	box  *secretbox.Box
	opts Options
	now  func() time.Time
}

// NewStore returns a Store. box seals stored responses that carry secrets.
func NewStore(db bun.IDB, box *secretbox.Box, opts Options) *Store {
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	return &Store{db: db, box: box, opts: opts, now: time.Now}
}

// ValidKey reports whether k is 1..255 visible ASCII characters.
func ValidKey(k string) bool {
	if len(k) == 0 || len(k) > MaxKeyLength {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// Request identifies one idempotent request.
type Request struct {
	AccountID string
	Key       string
	Method    string
	Path      string
	// Fingerprint covers everything that makes two requests "the same input".
	Fingerprint []byte
	// Lease overrides the store's lease for this request (a route whose work may last longer).
	Lease time.Duration
}

// Fingerprint hashes the parts of a request that must match for a replay: the caller (an API key or a
// credit token, so no other key of the account can replay an answer), method, path, project and body. A
// JSON body is hashed in a canonical form (keys sorted, no insignificant white space), so the same input
// sent with other formatting is still the same request; any other body is hashed as sent.
func Fingerprint(caller, method, path, project string, body []byte) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n", caller, method, path, project)
	h.Write(canonicalJSON(body))
	return h.Sum(nil)
}

func canonicalJSON(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return body
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

// Response is a stored answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Claim is the outcome of claiming a key: either Replay is set, or the caller proceeds and must later
// Complete or Release with Seed.
type Claim struct {
	Seed   string
	Replay *Response
}

// Claim claims req's key. It fails with idempotency_key_reused (other input) or idempotency_in_flight.
func (s *Store) Claim(ctx context.Context, req Request) (Claim, error) {
	now := s.now()
	rec := &schema.IdempotencyKey{
		AccountID: req.AccountID, Key: req.Key, Seed: ids.New("idem"), Fingerprint: req.Fingerprint,
		Method: req.Method, Path: req.Path, LockedUntil: ptr(now.Add(max(s.opts.Lease, req.Lease))), ExpiresAt: now.Add(s.opts.TTL),
	}
	res, err := s.db.NewInsert().Model(rec).On("CONFLICT (account_id, key) DO NOTHING").Exec(ctx)
	if err != nil {
		return Claim{}, fmt.Errorf("claim idempotency key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return Claim{Seed: rec.Seed}, nil
	}
	return s.resolveExisting(ctx, req, rec)
}

func (s *Store) resolveExisting(ctx context.Context, req Request, fresh *schema.IdempotencyKey) (Claim, error) {
	now := s.now()
	cur := new(schema.IdempotencyKey)
	err := s.db.NewSelect().Model(cur).Where("account_id = ? AND key = ?", req.AccountID, req.Key).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) { // released between our insert and select
		return Claim{}, inFlight()
	}
	if err != nil {
		return Claim{}, fmt.Errorf("read idempotency key: %w", err)
	}
	switch {
	case cur.ExpiresAt.Before(now):
		return s.takeOver(ctx, req, fresh, "expires_at < ?", now)
	case string(cur.Fingerprint) != string(req.Fingerprint):
		return Claim{}, &svcerr.Error{Code: svcerr.IdempotencyKeyReused, Param: "Idempotency-Key",
			Message: fmt.Sprintf("this Idempotency-Key was used with another request (%s %s or another body)", cur.Method, cur.Path)}
	case cur.ResponseStatus != nil:
		return s.replay(req, cur)
	case cur.LockedUntil != nil && cur.LockedUntil.After(now):
		return Claim{}, inFlight()
	default: // the first holder died or gave up without a final answer: take over, keeping its seed
		fresh.Seed = cur.Seed
		return s.takeOver(ctx, req, fresh, "response_status IS NULL AND (locked_until IS NULL OR locked_until < ?)", now)
	}
}

func (s *Store) takeOver(ctx context.Context, req Request, fresh *schema.IdempotencyKey, cond string, now time.Time) (Claim, error) {
	res, err := s.db.NewUpdate().Model(fresh).
		Column("seed", "fingerprint", "method", "path", "locked_until", "expires_at").
		Set("response_status = NULL, response_headers = NULL, response_body = NULL, response_sealed = false").
		WherePK().Where(cond, now).Exec(ctx)
	if err != nil {
		return Claim{}, fmt.Errorf("take over idempotency key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Claim{}, inFlight()
	}
	return Claim{Seed: fresh.Seed}, nil
}

func (s *Store) replay(req Request, rec *schema.IdempotencyKey) (Claim, error) {
	body := rec.ResponseBody
	if rec.ResponseSealed {
		opened, err := s.box.Open(body, aad(req))
		if err != nil {
			return Claim{}, fmt.Errorf("open stored response: %w", err)
		}
		body = opened
	}
	return Claim{Replay: &Response{Status: *rec.ResponseStatus, Header: rec.ResponseHeaders, Body: body}}, nil
}

// Complete stores the response of a claimed request. With seal, the body is encrypted at rest (for
// answers that carry a secret, like a new API key).
//
// The statements in also (the effect the answer reports, such as a ledger settlement) run before the
// record in the same round trip and the same transaction: the answer is stored with its effect or
// neither is. They must be complete SQL statements with their arguments formatted in.
func (s *Store) Complete(ctx context.Context, req Request, seed string, resp Response, seal bool, also ...Statement) error {
	body := resp.Body
	if seal {
		body = s.box.Seal(body, aad(req))
	}
	q := s.db.NewUpdate().Model((*schema.IdempotencyKey)(nil)).
		Set("response_status = ?", resp.Status).Set("response_headers = ?", map[string][]string(resp.Header)).
		Set("response_body = ?", body).Set("response_sealed = ?", seal).Set("locked_until = NULL").
		Where("account_id = ? AND key = ? AND seed = ?", req.AccountID, req.Key, seed)
	var err error
	if len(also) == 0 {
		_, err = q.Exec(ctx)
	} else {
		_, err = s.db.ExecContext(ctx, Batch(append(also, q)...))
	}
	if err != nil {
		return fmt.Errorf("store idempotent response: %w", err)
	}
	return nil
}

// Statement is a query that renders itself as SQL, such as a *bun.RawQuery or *bun.UpdateQuery.
type Statement interface{ String() string }

// Batch joins statements into one string that PostgreSQL runs in one round trip and, unless they
// manage transactions themselves, as one transaction.
func Batch(stmts ...Statement) string {
	var b strings.Builder
	for i, st := range stmts {
		if i > 0 {
			b.WriteString(";\n")
		}
		b.WriteString(st.String())
	}
	return b.String()
}

// Unlock ends a claim whose request produced no final answer (a 5xx, a 402 awaiting payment, ...) so the
// client may retry with the same key and input at once. The record and its seed stay: whatever the
// attempt wrote, the retry derives the same ids and finds it instead of writing it twice.
func (s *Store) Unlock(ctx context.Context, req Request, seed string) error {
	_, err := s.db.NewUpdate().Model((*schema.IdempotencyKey)(nil)).Set("locked_until = NULL").
		Where("account_id = ? AND key = ? AND seed = ? AND response_status IS NULL", req.AccountID, req.Key, seed).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("unlock idempotency key: %w", err)
	}
	return nil
}

// Purge deletes records that expired before now and returns how many.
func (s *Store) Purge(ctx context.Context) (int64, error) {
	res, err := s.db.NewDelete().Model((*schema.IdempotencyKey)(nil)).Where("expires_at < ?", s.now()).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

func aad(req Request) []byte { return []byte("idempotency/" + req.AccountID + "/" + req.Key) }

func inFlight() error {
	return &svcerr.Error{Code: svcerr.IdempotencyInFlight, Param: "Idempotency-Key",
		Message: "a request with this Idempotency-Key is still being processed; retry later"}
}

func ptr[T any](v T) *T { return &v }
