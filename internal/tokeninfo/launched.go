package tokeninfo

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/wallet"
)

// launchedDecimals are a launch token's decimals (LaunchToken is an 18-decimal ERC-20).
const launchedDecimals = 18

// poolRow is an indexed launch pool with its platform launch, if any.
type poolRow struct {
	PoolID             string    `bun:"pool_id"`
	Token              string    `bun:"token"`
	Pool               string    `bun:"pool"`
	Token0             string    `bun:"token0"`
	Creator            string    `bun:"creator"`
	CreatorBeneficiary string    `bun:"creator_beneficiary"`
	Name               string    `bun:"name"`
	Symbol             string    `bun:"symbol"`
	LaunchedAt         time.Time `bun:"launched_at"`
	LaunchID           *string   `bun:"launch_id"`
}

// match selects launched tokens: a condition on fee_pools (aliased p) and, for a search by prefix, the
// lower-case query whose exact symbol and then symbol prefix sort first.
type match struct {
	where  string
	args   []any
	prefix string
}

// launchedMatching are up to limit launched tokens whose symbol or name starts with query (any case), or
// whose address is query: exact symbols first, then symbol prefixes, then name prefixes, newest first.
func (s *Service) launchedMatching(ctx context.Context, query string, limit int) ([]candidate, error) {
	if strings.HasPrefix(query, "0x") && common.IsHexAddress(query) {
		return s.launched(ctx, limit, match{where: "p.token = ?", args: []any{lower(common.HexToAddress(query))}})
	}
	q := strings.ToLower(query)
	like := likeEscape(q) + "%"
	return s.launched(ctx, limit, match{where: "(lower(p.symbol) LIKE ? OR lower(p.name) LIKE ?)", args: []any{like, like}, prefix: q})
}

// likeEscape escapes LIKE's wildcards and escape character in s.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// launched reads up to limit indexed pools of the manager that m selects, as candidates, newest first
// (after m's ordering).
func (s *Service) launched(ctx context.Context, limit int, m match) ([]candidate, error) {
	if s.opts.Manager == (common.Address{}) {
		return nil, nil
	}
	var rows []poolRow
	sel := s.db.NewSelect().TableExpr("fee_pools AS p").
		Column("p.pool_id", "p.token", "p.pool", "p.token0", "p.creator", "p.creator_beneficiary", "p.name", "p.symbol", "p.launched_at").
		ColumnExpr("(SELECT l.id FROM token_launches AS l WHERE lower(l.token_address) = p.token ORDER BY l.created_at LIMIT 1) AS launch_id").
		Where("p.manager = ?", lower(s.opts.Manager)).Where(m.where, m.args...)
	if m.prefix != "" {
		sel = sel.OrderExpr("lower(p.symbol) = ? DESC, lower(p.symbol) LIKE ? DESC", m.prefix, likeEscape(m.prefix)+"%")
	}
	if err := sel.OrderExpr("p.launch_block DESC, p.pool_id").Limit(int64(limit)).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("read the launched tokens: %w", err)
	}
	out := make([]candidate, 0, len(rows))
	for _, r := range rows {
		out = append(out, s.launchedCandidate(r))
	}
	return out, nil
}

// launchedCandidate is an indexed pool's token, before it is priced.
func (s *Service) launchedCandidate(r poolRow) candidate {
	at := r.LaunchedAt.UTC()
	c := candidate{pool: r.Pool, token0: r.Token0, info: client.TokenInfo{
		Address: common.HexToAddress(r.Token).Hex(), Name: r.Name, Symbol: r.Symbol, Decimals: launchedDecimals,
		Source: client.TokenSourceLaunch, ChainID: s.opts.ChainID, Chain: s.opts.Network, LaunchID: r.LaunchID,
		PoolID: ptr(r.PoolID), PoolAddress: ptr(common.HexToAddress(r.Pool).Hex()), Creator: ptr(common.HexToAddress(r.Creator).Hex()),
		FeeRecipient: ptr(common.HexToAddress(r.CreatorBeneficiary).Hex()), LaunchedAt: &at,
	}}
	if t, ok := s.opts.Trading.Lookup(c.info.Address); ok && !t.Native {
		c.listed = t
	}
	return c
}

// volumeRow is one pool's swaps over the window.
type volumeRow struct {
	PoolID string `bun:"pool_id"`
	Swaps  int    `bun:"swaps"`
	Sum0   string `bun:"sum0"`
	Sum1   string `bun:"sum1"`
}

// volumes reads the launched candidates' indexed swaps of the last VolumeWindow into their volume: the
// token's side in whole tokens, the other (WETH) side in ether; USD is added when they are priced.
func (s *Service) volumes(ctx context.Context, cs []candidate) error {
	var ids []string
	for _, c := range cs {
		if c.info.PoolID != nil {
			ids = append(ids, *c.info.PoolID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	since := s.opts.Now().Add(-VolumeWindow).UTC()
	var rows []volumeRow
	if err := s.db.NewSelect().TableExpr("fee_events").ColumnExpr("pool_id, count(*) AS swaps").
		ColumnExpr("coalesce(sum(swap_amount0), 0)::text AS sum0, coalesce(sum(swap_amount1), 0)::text AS sum1").
		Where("kind = 'swap' AND swap_amount0 IS NOT NULL").Where("pool_id IN (?)", bun.List(ids)).Where("block_time >= ?", since).
		GroupExpr("pool_id").Scan(ctx, &rows); err != nil {
		return fmt.Errorf("read the launched tokens' swaps: %w", err)
	}
	indexed, err := s.indexedTo(ctx)
	if err != nil {
		return err
	}
	byPool := map[string]volumeRow{}
	for _, r := range rows {
		byPool[r.PoolID] = r
	}
	for i := range cs {
		if cs[i].info.PoolID != nil {
			cs[i].volume, cs[i].volumeWeth = volumeOf(cs[i], byPool[*cs[i].info.PoolID], since, indexed)
		}
	}
	return nil
}

// volumeOf is a pool's window volume from its summed swaps (none: zero), and its WETH side in wei.
func volumeOf(c candidate, r volumeRow, since time.Time, indexed int64) (*client.TokenVolume, *big.Int) {
	sums := [2]*big.Int{atomic(r.Sum0), atomic(r.Sum1)}
	tokenSide := 1
	if strings.EqualFold(c.token0, c.info.Address) {
		tokenSide = 0
	}
	return &client.TokenVolume{Token: wallet.FormatUnits(sums[tokenSide], launchedDecimals), Weth: wallet.FormatUnits(sums[1-tokenSide], 18),
		Swaps: r.Swaps, Since: since, IndexedTo: indexed}, sums[1-tokenSide]
}

// indexedTo is the fee index's last block (−1 when nothing is indexed yet).
func (s *Service) indexedTo(ctx context.Context) (int64, error) {
	var last []int64
	if err := s.db.NewSelect().Table("fee_index_cursors").Column("last_block").Where("manager = ?", lower(s.opts.Manager)).
		Scan(ctx, &last); err != nil {
		return 0, fmt.Errorf("read the fee index cursor: %w", err)
	}
	if len(last) == 0 {
		return -1, nil
	}
	return last[0], nil
}

// atomic reads a decimal integer (0 when empty or malformed).
func atomic(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return new(big.Int)
	}
	return v
}

func ptr[T any](v T) *T { return &v }
