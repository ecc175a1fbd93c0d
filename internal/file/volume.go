package file

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// DownloadOperation names the monthly download volume in a 429's details (X-Svc-Limit-Operation).
const DownloadOperation = "files.downloadVolume"

// Grant is download volume taken for one download: the bytes counted and the UTC month they count in.
type Grant struct {
	AccountID string
	Month     time.Time
	Bytes     int64
}

// MonthStart is the first instant of t's UTC month.
func MonthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// ConsumeDownload counts size bytes against the account's download volume of the current UTC month,
// under the lock of the month's row, before the bytes are sent. A download that would pass the tier's
// monthly volume is refused whole with 429 limit_exceeded naming the limit and the reset time (the 1st of
// next month, UTC).
func (s *Store) ConsumeDownload(ctx context.Context, accountID string, size int64) (Grant, error) {
	now := s.now()
	g := Grant{AccountID: accountID, Month: MonthStart(now), Bytes: size}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		month := g.Month.Format(time.DateOnly) // a date, never a timestamptz the session's zone could shift
		if _, err := tx.ExecContext(ctx, `INSERT INTO download_volume (account_id, month) VALUES (?, ?::date)
			ON CONFLICT (account_id, month) DO NOTHING`, accountID, month); err != nil {
			return fmt.Errorf("create download volume of %s: %w", accountID, err)
		}
		var used int64
		var tier string
		if err := tx.QueryRowContext(ctx, `SELECT v.bytes, a.tier FROM download_volume v JOIN accounts a ON a.id = v.account_id
			WHERE v.account_id = ? AND v.month = ?::date FOR UPDATE OF v`, accountID, month).Scan(&used, &tier); err != nil {
			return fmt.Errorf("lock download volume of %s: %w", accountID, err)
		}
		limits, err := s.tiers.For(tier)
		if err != nil {
			return err
		}
		if used+size > limits.MonthlyDownloadBytes {
			return volumeSpent(now, g.Month, used, size, limits.MonthlyDownloadBytes)
		}
		_, err = tx.NewUpdate().Model((*schema.DownloadVolume)(nil)).Set("bytes = bytes + ?", size).
			Where("account_id = ? AND month = ?::date", accountID, month).Exec(ctx)
		if err != nil {
			return fmt.Errorf("count download volume of %s: %w", accountID, err)
		}
		return nil
	})
	if err != nil {
		return Grant{}, err
	}
	return g, nil
}

// volumeSpent is the 429 of a download past the monthly volume.
func volumeSpent(now, month time.Time, used, size, limitBytes int64) error {
	reset := month.AddDate(0, 1, 0)
	secs := int64(math.Ceil(reset.Sub(now).Seconds()))
	return svcerr.New(svcerr.LimitExceeded,
		"the monthly download volume of %d bytes is spent (%d bytes downloaded this month, this download needs %d); it resets at %s",
		limitBytes, used, size, reset.Format(time.RFC3339)).
		WithDetails("operation", DownloadOperation).WithDetails("limitBytes", limitBytes).
		WithDetails("usedBytes", used).WithDetails("attemptedBytes", size).
		WithDetails("resetAt", reset.Format(time.RFC3339)).WithDetails("retryAfterSeconds", secs)
}

// RefundDownload gives back the bytes of a grant that were not sent (a download cut short), in the month
// they were counted in.
func (s *Store) RefundDownload(ctx context.Context, g Grant, unsent int64) error {
	if unsent <= 0 {
		return nil
	}
	unsent = min(unsent, g.Bytes)
	_, err := s.db.NewUpdate().Model((*schema.DownloadVolume)(nil)).Set("bytes = greatest(bytes - ?, 0)", unsent).
		Where("account_id = ? AND month = ?::date", g.AccountID, g.Month.Format(time.DateOnly)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("refund download volume of %s: %w", g.AccountID, err)
	}
	return nil
}
