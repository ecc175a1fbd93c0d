package club

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
)

// AutoTopUp is an account's auto top-up setting (svc llm credits auto): when the balance falls under
// Below credits, the account's launch fees are to be claimed and converted to credits up to Target.
type AutoTopUp struct {
	bun.BaseModel `bun:"table:autotopup_settings"`

	AccountID string    `bun:"account_id,pk"`
	Enabled   bool      `bun:"enabled"`
	Below     int64     `bun:"below_credits"`
	Target    int64     `bun:"target_credits"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()"`
}

// MaxAutoTopUpCredits bounds below and target (one million credits, 10,000 USD).
const MaxAutoTopUpCredits = 1_000_000

// SetAutoTopUp enables (with below < target, whole credits) or disables the account's auto top-up.
// Disabling keeps the thresholds last set.
func (s *Store) SetAutoTopUp(ctx context.Context, accountID string, req client.AutoTopUpRequest) (*AutoTopUp, error) {
	if !req.Enabled {
		res, err := s.db.NewUpdate().Model((*AutoTopUp)(nil)).Set("enabled = false, updated_at = now()").Where("account_id = ?", accountID).Exec(ctx)
		if err != nil {
			return nil, fmt.Errorf("disable auto top-up: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return &AutoTopUp{AccountID: accountID}, nil
		}
		return s.GetAutoTopUp(ctx, accountID)
	}
	switch {
	case req.Below == nil:
		return nil, svcerr.Invalid("below", "below is required to enable auto top-up")
	case req.Target == nil:
		return nil, svcerr.Invalid("target", "target is required to enable auto top-up")
	case *req.Below < 0 || *req.Below > MaxAutoTopUpCredits:
		return nil, svcerr.Invalid("below", "below must be 0 to %d credits", MaxAutoTopUpCredits)
	case *req.Target <= *req.Below || *req.Target > MaxAutoTopUpCredits:
		return nil, svcerr.Invalid("target", "target must be more than below and at most %d credits", MaxAutoTopUpCredits)
	}
	a := &AutoTopUp{AccountID: accountID, Enabled: true, Below: *req.Below, Target: *req.Target}
	if _, err := s.db.NewInsert().Model(a).On("CONFLICT (account_id) DO UPDATE").
		Set("enabled = true, below_credits = EXCLUDED.below_credits, target_credits = EXCLUDED.target_credits, updated_at = now()").
		Exec(ctx); err != nil {
		return nil, fmt.Errorf("set auto top-up: %w", err)
	}
	return s.GetAutoTopUp(ctx, accountID)
}

// GetAutoTopUp answers the account's setting (disabled, zero thresholds, when never set).
func (s *Store) GetAutoTopUp(ctx context.Context, accountID string) (*AutoTopUp, error) {
	a := new(AutoTopUp)
	err := s.db.NewSelect().Model(a).Where("account_id = ?", accountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return &AutoTopUp{AccountID: accountID}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read auto top-up: %w", err)
	}
	return a, nil
}

// AutoTopUpToWire is the setting as the API shows it, with the account's available credits.
func AutoTopUpToWire(a *AutoTopUp, available int64) client.AutoTopUp {
	out := client.AutoTopUp{Enabled: a.Enabled, Available: ledger.FormatCredits(available)}
	if a.Target > 0 {
		out.Below, out.Target = &a.Below, &a.Target
	}
	if !a.UpdatedAt.IsZero() {
		u := a.UpdatedAt.UTC()
		out.UpdatedAt = &u
	}
	return out
}
