package feeread

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
)

// TokenFees is the snapshot of token for its creator beneficiary: the launch's creator, or whoever the
// creator's shares were transferred to (UpdateBeneficiary), over the last days UTC days.
func (r *Reader) TokenFees(ctx context.Context, token common.Address, days int) (*client.FeeSnapshot, error) {
	return cached(r.cache, fmt.Sprintf("token/%s/%d", lower(token), days), func() (*client.FeeSnapshot, error) {
		p, err := r.poolOf(ctx, token)
		if err != nil {
			return nil, err
		}
		return r.snapshot(ctx, common.HexToAddress(p.CreatorBeneficiary), []pool{p}, days)
	})
}

// CreatorFees is the snapshot of every token whose creator beneficiary is who, totals and timeline summed.
func (r *Reader) CreatorFees(ctx context.Context, who common.Address, days int) (*client.FeeSnapshot, error) {
	return cached(r.cache, fmt.Sprintf("creator/%s/%d", lower(who), days), func() (*client.FeeSnapshot, error) {
		pools, err := r.poolsWhere(ctx, "p.creator_beneficiary = ?", lower(who))
		if err != nil {
			return nil, err
		}
		return r.snapshot(ctx, who, pools, days)
	})
}

// BeneficiaryFees is the snapshot (default window) of every pool where who has ever held shares: its
// beneficiary positions, including those it has since transferred (share "0") while they owe it or paid it.
func (r *Reader) BeneficiaryFees(ctx context.Context, who common.Address) (*client.FeeSnapshot, error) {
	return cached(r.cache, fmt.Sprintf("beneficiary/%s", lower(who)), func() (*client.FeeSnapshot, error) {
		pools, err := r.poolsWhere(ctx, "EXISTS (SELECT 1 FROM fee_beneficiaries b WHERE b.pool_id = p.pool_id AND b.beneficiary = ?)", lower(who))
		if err != nil {
			return nil, err
		}
		return r.snapshot(ctx, who, pools, client.FeeDaysDefault)
	})
}

// snapshot builds who's snapshot over pools and the last days UTC days (today included).
func (r *Reader) snapshot(ctx context.Context, who common.Address, pools []pool, days int) (*client.FeeSnapshot, error) {
	s := &client.FeeSnapshot{OK: true, Address: who.Hex(), Chain: r.opts.Chain, Days: days, Tokens: []client.TokenFees{}}
	claimable, claimed := new(big.Int), new(big.Int)
	for _, p := range pools {
		t, weth, err := r.tokenFees(ctx, who, p)
		if err != nil {
			return nil, err
		}
		s.Tokens = append(s.Tokens, t)
		claimable.Add(claimable, weth[0])
		claimed.Add(claimed, weth[1])
		s.Totals.ClaimCount += t.Claimed.Count
	}
	s.Totals.ClaimableWeth, s.Totals.ClaimedWeth = Ether(claimable), Ether(claimed)
	if err := r.earnings(ctx, who, pools, days, s); err != nil {
		return nil, err
	}
	return s, nil
}

// tokenFees is one token of who's snapshot, with its claimable and claimed WETH.
func (r *Reader) tokenFees(ctx context.Context, who common.Address, p pool) (client.TokenFees, [2]*big.Int, error) {
	shares, err := r.shares(ctx, p, who)
	if err != nil {
		return client.TokenFees{}, [2]*big.Int{}, err
	}
	pending, err := r.pending(ctx, p, who)
	if err != nil {
		return client.TokenFees{}, [2]*big.Int{}, err
	}
	claimed, count, err := r.claimed(ctx, who, p)
	if err != nil {
		return client.TokenFees{}, [2]*big.Int{}, err
	}
	side := p.wethSide(r.opts.WETH)
	t := client.TokenFees{TokenAddress: common.HexToAddress(p.Token).Hex(), Name: p.Name, Symbol: p.Symbol, PoolID: p.PoolID,
		Initializer: r.opts.Manager.Hex(), Share: Percent(shares), Token0Label: p.label(p.Token0), Token1Label: p.label(p.Token1),
		Claimable: client.FeePair{Token0: Ether(pending[0]), Token1: Ether(pending[1])},
		Claimed:   client.ClaimedFees{Token0: Ether(claimed[0]), Token1: Ether(claimed[1]), Count: count}, Source: Source}
	return t, [2]*big.Int{pending[side], claimed[side]}, nil
}

// claimed sums who's Release events of p.
func (r *Reader) claimed(ctx context.Context, who common.Address, p pool) ([2]*big.Int, int, error) {
	var row struct {
		A0 string `bun:"a0"`
		A1 string `bun:"a1"`
		N  int    `bun:"n"`
	}
	err := r.db.NewRaw(`SELECT coalesce(sum(amount0), 0)::text AS a0, coalesce(sum(amount1), 0)::text AS a1, count(*) AS n
		FROM fee_events WHERE pool_id = ? AND kind = 'release' AND beneficiary = ?`, p.PoolID, lower(who)).Scan(ctx, &row)
	if err != nil {
		return [2]*big.Int{}, 0, fmt.Errorf("sum the releases of %s in pool %s: %w", who.Hex(), p.PoolID, err)
	}
	return [2]*big.Int{bigOf(row.A0), bigOf(row.A1)}, row.N, nil
}

// bigOf parses an integer the database summed.
func bigOf(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return new(big.Int)
	}
	return n
}

// earnings fills the timeline and lifetime figures: WETH released to who by pools, per UTC day.
func (r *Reader) earnings(ctx context.Context, who common.Address, pools []pool, days int, s *client.FeeSnapshot) error {
	perDay := map[string]*big.Int{}
	if len(pools) > 0 {
		ids := make([]string, len(pools))
		for i, p := range pools {
			ids[i] = p.PoolID
		}
		var rows []struct {
			Day  string `bun:"day"`
			Weth string `bun:"weth"`
		}
		err := r.db.NewRaw(`SELECT to_char(e.block_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
			sum(CASE WHEN p.token0 = ? THEN e.amount0 ELSE e.amount1 END)::text AS weth
			FROM fee_events e JOIN fee_pools p ON p.pool_id = e.pool_id
			WHERE e.kind = 'release' AND e.beneficiary = ? AND e.pool_id IN (?) GROUP BY 1`,
			lower(r.opts.WETH), lower(who), bun.List(ids)).Scan(ctx, &rows)
		if err != nil {
			return fmt.Errorf("sum the daily releases of %s: %w", who.Hex(), err)
		}
		for _, row := range rows {
			perDay[row.Day] = bigOf(row.Weth)
		}
	}
	lifetime, bestWei, bestDay := new(big.Int), new(big.Int), ""
	for day, weth := range perDay {
		if weth.Sign() <= 0 {
			continue
		}
		lifetime.Add(lifetime, weth)
		s.LifetimeDays++
		if c := weth.Cmp(bestWei); c > 0 || (c == 0 && day < bestDay) {
			bestWei, bestDay = weth, day
		}
	}
	if bestDay != "" {
		s.LifetimeBestDay = &client.DailyEarning{Date: bestDay, Weth: Ether(bestWei)}
	}
	s.LifetimeEarnedWeth = Ether(lifetime)
	today := r.opts.Now().UTC().Truncate(24 * time.Hour)
	s.DailyEarnings = make([]client.DailyEarning, 0, days)
	for i := days - 1; i >= 0; i-- {
		day := today.AddDate(0, 0, -i).Format(time.DateOnly)
		weth := perDay[day]
		if weth == nil {
			weth = new(big.Int)
		}
		s.DailyEarnings = append(s.DailyEarnings, client.DailyEarning{Date: day, Weth: Ether(weth)})
	}
	return nil
}
