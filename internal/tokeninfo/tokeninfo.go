// Package tokeninfo answers the public token reads (issue 27: "svc tokens search" and "svc tokens
// info", GET /public/tokens/..., app scripts' svc.tokens.info): the tokens launched through the
// FeesManager, as the fee index (internal/feeindex) recorded them, and the trading token list, each priced
// at the pool's mid price at one stated block, with a launched token's 24 h volume summed from its
// indexed Swap events.
package tokeninfo

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/trading"
)

// VolumeWindow is the window of a token's volume.
const VolumeWindow = 24 * time.Hour

// chainNames are the names a chain may also be called by (besides its id and CAIP-2 name).
var chainNames = map[int64][]string{
	1:     {"ethereum", "mainnet"},
	1337:  {"dev", "devchain"},
	8453:  {"base"},
	84532: {"base-sepolia"},
}

// Options configure a Service.
type Options struct {
	// ChainID is the platform's chain; Network its CAIP-2 name (eip155:<ChainID> when empty).
	ChainID int64
	Network string
	// Manager is the FeesManager whose launched tokens the fee index holds (zero: no launched tokens).
	Manager common.Address
	// Trading is the trading venue: its router prices the listed tokens and WETH in USDC.
	Trading trading.Config
	// NativeUSD is ether's USD price when the router has no WETH/USDC pair (nil: none).
	NativeUSD *big.Rat
	// Now is the clock of the volume window (time.Now when nil).
	Now func() time.Time
}

// Service answers token searches and reads.
type Service struct {
	db    *bun.DB
	rpc   *ethclient.Client
	venue *trading.Venue
	opts  Options
}

// New returns a Service over db's fee index and the chain behind rpc.
func New(db *bun.DB, rpc *ethclient.Client, opts Options) *Service {
	if opts.Network == "" {
		opts.Network = fmt.Sprintf("eip155:%d", opts.ChainID)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{db: db, rpc: rpc, venue: &trading.Venue{RPC: rpc, Config: opts.Trading}, opts: opts}
}

// Network is the platform's chain, CAIP-2.
func (s *Service) Network() string { return s.opts.Network }

// Chains are the names the platform's chain answers to: its id, CAIP-2 name and common names.
func (s *Service) Chains() []string {
	return append([]string{strconv.FormatInt(s.opts.ChainID, 10), s.opts.Network}, chainNames[s.opts.ChainID]...)
}

// CheckChain accepts "" (the platform's chain) or one of Chains (any case), or answers 400 naming chain.
func (s *Service) CheckChain(chain string) error {
	chain = strings.TrimSpace(chain)
	if chain == "" {
		return nil
	}
	for _, name := range s.Chains() {
		if strings.EqualFold(chain, name) {
			return nil
		}
	}
	return svcerr.Invalid("chain", "chain %q is not served here; the supported chain is %s (%s)", chain, s.opts.Network,
		strings.Join(s.Chains(), ", "))
}

// ParseAddress reads a 0x token address, or answers 400 naming address.
func ParseAddress(s string) (common.Address, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "0x") || !common.IsHexAddress(s) {
		return common.Address{}, svcerr.Invalid("address", "address must be a 0x address of 40 hex digits, not %q", s)
	}
	return common.HexToAddress(s), nil
}

// Search finds up to limit tokens (1 to client.TokenSearchMaxLimit; 0 is the default) whose symbol or
// name starts with query (any case), or whose address is query: the trading list's first, then the
// launched tokens, newest first, each once.
func (s *Service) Search(ctx context.Context, query, chain string, limit int) ([]client.TokenInfo, error) {
	query, limit, err := s.checkSearch(query, chain, limit)
	if err != nil {
		return nil, err
	}
	listed := s.listedMatching(query)
	launched, err := s.launchedMatching(ctx, query, limit)
	if err != nil {
		return nil, err
	}
	found := merge(listed, launched, limit)
	out := make([]client.TokenInfo, 0, len(found))
	if len(found) == 0 {
		return out, nil
	}
	p, err := s.newPricer(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.volumes(ctx, found); err != nil {
		return nil, err
	}
	for _, c := range found {
		out = append(out, p.info(ctx, c))
	}
	return out, nil
}

// checkSearch checks a search's query, chain and limit, naming the first bad one.
func (s *Service) checkSearch(query, chain string, limit int) (string, int, error) {
	query = strings.TrimSpace(query)
	if query == "" || len(query) > client.TokenSearchMaxQuery {
		return "", 0, svcerr.Invalid("q", "q is the symbol or name prefix or the address to search, 1 to %d characters", client.TokenSearchMaxQuery)
	}
	if err := s.CheckChain(chain); err != nil {
		return "", 0, err
	}
	if limit == 0 {
		limit = client.TokenSearchDefaultLimit
	}
	if limit < 1 || limit > client.TokenSearchMaxLimit {
		return "", 0, svcerr.Invalid("limit", "limit must be 1 to %d, not %d", client.TokenSearchMaxLimit, limit)
	}
	return query, limit, nil
}

// Info reads one token by address: a launched token, else one of the trading list, else 404.
func (s *Service) Info(ctx context.Context, address, chain string) (*client.TokenInfo, error) {
	addr, err := ParseAddress(address)
	if err != nil {
		return nil, err
	}
	if err := s.CheckChain(chain); err != nil {
		return nil, err
	}
	found, err := s.launched(ctx, 1, match{where: "p.token = ?", args: []any{lower(addr)}})
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		found = s.listedMatching(addr.Hex())
	}
	if len(found) == 0 {
		return nil, svcerr.NotFoundf("token %s is neither a launched token (or the fee index has not reached its launch yet) nor on the trading list", addr.Hex())
	}
	p, err := s.newPricer(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.volumes(ctx, found[:1]); err != nil {
		return nil, err
	}
	info := p.info(ctx, found[0])
	return &info, nil
}

// candidate is a token found, before it is priced.
type candidate struct {
	info client.TokenInfo
	// pool and token0 are a launched token's launch pool and its token0; volume (and its WETH side in
	// wei) what the index holds of its swaps in the window.
	pool, token0 string
	volume       *client.TokenVolume
	volumeWeth   *big.Int
	// listed is the token's entry on the trading list (zero when not listed).
	listed trading.Token
}

// merge is listed then launched, each address once, at most limit.
func merge(listed, launched []candidate, limit int) []candidate {
	out := make([]candidate, 0, limit)
	seen := map[string]bool{}
	for _, c := range slices.Concat(launched, listed) {
		if !seen[c.info.Address] {
			seen[c.info.Address] = true
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b candidate) int { return rank(a) - rank(b) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// rank orders the merged answer: listed tokens first (a launched token that is also listed counts as
// listed), then launched ones in the order they were found.
func rank(c candidate) int {
	if c.info.Source == client.TokenSourceTrading || c.listed.Address != (common.Address{}) {
		return 0
	}
	return 1
}

// listedMatching are the trading list's tokens matching query (symbol prefix or exact address).
func (s *Service) listedMatching(query string) []candidate {
	var out []candidate
	byAddress := common.IsHexAddress(query) && strings.HasPrefix(query, "0x")
	for _, t := range s.opts.Trading.Tokens {
		hit := strings.HasPrefix(strings.ToLower(t.Symbol), strings.ToLower(query))
		if byAddress {
			hit = common.HexToAddress(query) == t.Address
		}
		if hit {
			out = append(out, candidate{listed: t, info: client.TokenInfo{Address: t.Address.Hex(), Symbol: t.Symbol, Name: t.Symbol,
				Decimals: t.Decimals, Source: client.TokenSourceTrading, ChainID: s.opts.ChainID, Chain: s.opts.Network}})
		}
	}
	return out
}

func lower(a common.Address) string { return strings.ToLower(a.Hex()) }
