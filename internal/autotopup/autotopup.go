// Package autotopup converts an account's launch fees to credits (issue 25, svc llm credits auto): while
// the account's auto top-up setting (internal/club) is enabled, workflow autotopup/<accountId> checks the
// balance every 15 minutes or when signalled; under the threshold it runs a round: fee claims of the
// account's launched tokens through the fee-claim service (ids derived from account, token and round, so
// a retried round starts the same claims), then, once they ended, one ledger top-up per claimed claim
// (reference autotopup:<claimId>) for its native amount × the native asset's USD price × 100 credits per
// USD, capped so the balance does not exceed the target.
//
// Exactly once: a round's credits and its record are one transaction, conditional on the round not
// being finished; the ledger reference of each top-up is unique per claim.
package autotopup

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/wallet"
)

// Round is an autotopup_rounds row: one check that found the balance under the threshold.
type Round struct {
	bun.BaseModel `bun:"table:autotopup_rounds"`

	AccountID    string     `bun:"account_id,pk"`
	Round        int        `bun:"round,pk"`
	RunKey       string     `bun:"run_key"`
	Available    int64      `bun:"available_millicredits"`
	ClaimIDs     []string   `bun:"claim_ids,array"`
	ClaimedWei   string     `bun:"claimed_wei"`
	Millicredits int64      `bun:"credited_millicredits"`
	StartedAt    time.Time  `bun:"started_at,nullzero,default:now()"`
	FinishedAt   *time.Time `bun:"finished_at"`
}

// ClaimID is the fee claim a round starts for one token: the same for every attempt of the round.
func ClaimID(accountID, token string, round int) string {
	return ids.Derive(ids.FeeClaim, "autotopup", accountID, strings.ToLower(token), strconv.Itoa(round))
}

// Reference is the ledger reference of the top-up for one claim.
func Reference(claimID string) string { return "autotopup:" + claimID }

// weiPerEther is 10^18.
var weiPerEther = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

// Millicredits is what wei of the native asset buys at nativeCents USD cents per unit: wei / 10^18 ×
// nativeCents / 100 USD × catalog.CreditsPerUSD × 1000, rounded down (0 for a price unknown).
func Millicredits(wei *big.Int, nativeCents int64) int64 {
	if wei == nil || wei.Sign() <= 0 || nativeCents <= 0 {
		return 0
	}
	m := new(big.Int).Mul(wei, big.NewInt(nativeCents*catalog.CreditsPerUSD*1000))
	m.Quo(m, new(big.Int).Mul(weiPerEther, big.NewInt(100)))
	if !m.IsInt64() {
		return 1<<63 - 1
	}
	return m.Int64()
}

// Last answers the account's latest round, or nil when there was none.
func Last(ctx context.Context, db bun.IDB, accountID string) (*Round, error) {
	r := new(Round)
	err := db.NewSelect().Model(r).Where("account_id = ?", accountID).OrderExpr("round DESC").Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the last auto top-up round: %w", err)
	}
	return r, nil
}

// load reads round n of the account.
func load(ctx context.Context, db bun.IDB, accountID string, n int) (*Round, error) {
	r := new(Round)
	if err := db.NewSelect().Model(r).Where("account_id = ? AND round = ?", accountID, n).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read auto top-up round %d: %w", n, err)
	}
	return r, nil
}

// RoundToWire is the round as GET /v1/credits/auto-topup shows it (nil for none).
func RoundToWire(r *Round) *client.AutoTopUpRound {
	if r == nil {
		return nil
	}
	wei, _ := new(big.Int).SetString(r.ClaimedWei, 10)
	out := &client.AutoTopUpRound{Round: r.Round, StartedAt: r.StartedAt.UTC(), ClaimIDs: append([]string{}, r.ClaimIDs...),
		Claimed: wallet.FormatUnits(cmpOr(wei), 18), Credited: ledger.FormatCredits(r.Millicredits)}
	if r.FinishedAt != nil {
		t := r.FinishedAt.UTC()
		out.EndedAt = &t
	}
	return out
}

// cmpOr is v, or 0 for nil.
func cmpOr(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}
