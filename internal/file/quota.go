package file

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// Reservation is storage quota held for one upload while it streams: settle it into the file row
// (Store.Create) or release it (Store.Release) on any failure.
type Reservation struct {
	ID        string
	AccountID string
	Bytes     int64
}

// usage is an account's storage row, locked, with its tier's limits.
type usage struct {
	Used, Reserved int64
	Tier           string
	Limits         Limits
}

// lockUsage creates the account's storage row if missing and locks it for the rest of tx. Every change
// to storage accounting goes through it first, so all of them take their locks in the same order.
func (s *Store) lockUsage(ctx context.Context, tx bun.Tx, accountID string) (usage, error) {
	if _, err := tx.NewInsert().Model(&schema.StorageUsage{AccountID: accountID}).
		On("CONFLICT (account_id) DO NOTHING").Exec(ctx); err != nil {
		return usage{}, fmt.Errorf("create storage usage of %s: %w", accountID, err)
	}
	var u usage
	err := tx.QueryRowContext(ctx, `SELECT u.used_bytes, u.reserved_bytes, a.tier
		FROM storage_usage u JOIN accounts a ON a.id = u.account_id
		WHERE u.account_id = ? FOR UPDATE OF u`, accountID).Scan(&u.Used, &u.Reserved, &u.Tier)
	if err != nil {
		return usage{}, fmt.Errorf("lock storage usage of %s: %w", accountID, err)
	}
	if u.Limits, err = s.tiers.For(u.Tier); err != nil {
		return usage{}, err
	}
	return u, nil
}

// addUsage changes the locked row's counters by the deltas.
func addUsage(ctx context.Context, tx bun.Tx, accountID string, used, reserved int64) error {
	_, err := tx.NewUpdate().Model((*schema.StorageUsage)(nil)).
		Set("used_bytes = used_bytes + ?", used).Set("reserved_bytes = reserved_bytes + ?", reserved).
		Set("updated_at = now()").Where("account_id = ?", accountID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("update storage usage of %s: %w", accountID, err)
	}
	return nil
}

// Reserve holds size bytes of the account's storage for an upload about to stream. Under the lock of
// the account's storage row it refuses, with 413 payload_too_large, a file over the tier's per-file cap
// (even when space remains) and a file that would take used plus reserved bytes past the total; the
// message states used, total and attempted size. Concurrent reservations never overshoot the total.
func (s *Store) Reserve(ctx context.Context, accountID string, size int64) (Reservation, error) {
	if size < 0 {
		return Reservation{}, svcerr.Invalid("Content-Length", "a file's size is not negative")
	}
	r := Reservation{ID: ids.New(ids.FileReservation), AccountID: accountID, Bytes: size}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		u, err := s.lockUsage(ctx, tx, accountID)
		if err != nil {
			return err
		}
		if err := u.admit(size); err != nil {
			return err
		}
		row := &schema.StorageReservation{ID: r.ID, AccountID: accountID, Bytes: size, ExpiresAt: s.now().Add(s.reservationTTL)}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return fmt.Errorf("record storage reservation: %w", err)
		}
		return addUsage(ctx, tx, accountID, 0, size)
	})
	if err != nil {
		return Reservation{}, err
	}
	return r, nil
}

// admit refuses a size over the per-file cap or past the total.
func (u usage) admit(size int64) error {
	if size > u.Limits.FileBytes {
		return svcerr.New(svcerr.PayloadTooLarge,
			"the file has %d bytes, over the per-file cap of %d bytes of the %s tier", size, u.Limits.FileBytes, u.Tier).
			WithDetails("attemptedBytes", size).WithDetails("maxFileBytes", u.Limits.FileBytes).WithDetails("tier", u.Tier)
	}
	inUse := u.Used + u.Reserved
	if inUse+size > u.Limits.StorageBytes {
		return svcerr.New(svcerr.PayloadTooLarge,
			"storage quota exceeded: %d bytes used (uploads in progress included) of %d bytes total; this file needs %d bytes",
			inUse, u.Limits.StorageBytes, size).
			WithDetails("usedBytes", inUse).WithDetails("totalBytes", u.Limits.StorageBytes).
			WithDetails("attemptedBytes", size).WithDetails("tier", u.Tier)
	}
	return nil
}

// Release gives a reservation's bytes back. It is idempotent: a reservation already settled, released
// or swept is left alone. Call it on every failure of an upload, with a context that outlives the
// request's (the request's own may be cancelled by then).
func (s *Store) Release(ctx context.Context, r Reservation) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := s.takeReservation(ctx, tx, r)
		return err
	})
}

// takeReservation locks the account's storage row, deletes the reservation and subtracts its bytes from
// the reserved ones; it answers the bytes it held, or -1 when it was no longer held.
func (s *Store) takeReservation(ctx context.Context, tx bun.Tx, r Reservation) (int64, error) {
	if _, err := s.lockUsage(ctx, tx, r.AccountID); err != nil {
		return 0, err
	}
	var held int64
	err := tx.NewDelete().Model((*schema.StorageReservation)(nil)).
		Where("id = ? AND account_id = ?", r.ID, r.AccountID).Returning("bytes").Scan(ctx, &held)
	if errors.Is(err, sql.ErrNoRows) {
		return -1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("delete storage reservation %s: %w", r.ID, err)
	}
	return held, addUsage(ctx, tx, r.AccountID, 0, -held)
}

// ReleaseExpired releases every reservation past its expiry, those of uploads whose process died, and
// answers how many it released.
func (s *Store) ReleaseExpired(ctx context.Context) (int, error) {
	var rows []schema.StorageReservation
	if err := s.db.NewSelect().Model(&rows).Where("expires_at <= ?", s.now()).
		OrderExpr("expires_at").Limit(500).Scan(ctx); err != nil {
		return 0, fmt.Errorf("list expired storage reservations: %w", err)
	}
	for _, r := range rows {
		if err := s.Release(ctx, Reservation{ID: r.ID, AccountID: r.AccountID, Bytes: r.Bytes}); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}

// Usage is an account's storage: bytes of live files, bytes reserved by uploads in flight, and its
// tier's limits.
type Usage struct {
	UsedBytes     int64
	ReservedBytes int64
	Tier          string
	Limits        Limits
}

// Usage reads an account's storage accounting.
func (s *Store) Usage(ctx context.Context, accountID string) (Usage, error) {
	var out Usage
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		u, err := s.lockUsage(ctx, tx, accountID)
		out = Usage{UsedBytes: u.Used, ReservedBytes: u.Reserved, Tier: u.Tier, Limits: u.Limits}
		return err
	})
	return out, err
}

// SetTier changes an account's tier (standard or club); not_found for an unknown account.
func SetTier(ctx context.Context, db bun.IDB, accountID, tier string) error {
	if !ValidTier(tier) {
		return svcerr.Invalid("tier", "the tier is %q or %q", schema.TierStandard, schema.TierClub)
	}
	res, err := db.NewUpdate().Model((*schema.Account)(nil)).Set("tier = ?", tier).Where("id = ?", accountID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("set tier of %s: %w", accountID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return svcerr.NotFoundf("no account %q", accountID)
	}
	return nil
}

// expiry is the default lifetime of a reservation: longer than any upload of a capped file takes.
const expiry = time.Hour
