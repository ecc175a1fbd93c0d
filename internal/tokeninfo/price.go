package tokeninfo

import (
	"context"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/svcerr"
)

// priceDecimals are the decimals of a price answered, at least (a smaller price keeps priceDigits
// significant digits, up to maxPriceDecimals decimals); usdDecimals those of a USD volume.
const (
	priceDecimals    = 18
	priceDigits      = 8
	maxPriceDecimals = 60
	usdDecimals      = 2
)

// The launch contracts' bindings (a launch pool's reserves; any ERC-20's name).
var (
	poolABI  = launch.NewLaunchPool()
	tokenABI = launch.NewLaunchToken()
)

// pricer prices tokens at one block: the chain's head when it was made.
type pricer struct {
	s      *Service
	block  *big.Int
	head   uint64
	ethUSD *big.Rat // USD per ether; nil when unknown
	// ethPair: the router's WETH/USDC pair priced ether.
	ethPair bool
}

// newPricer reads the chain's head and ether's USD price there.
func (s *Service) newPricer(ctx context.Context) (*pricer, error) {
	head, err := s.rpc.BlockNumber(ctx)
	if err != nil {
		return nil, svcerr.New(svcerr.Unavailable, "the chain did not answer: %v", err)
	}
	p := &pricer{s: s, head: head, block: new(big.Int).SetUint64(head)}
	cfg := s.opts.Trading
	if cfg.USDC != (common.Address{}) {
		p.ethUSD = p.mid(ctx, cfg.WETH, 18, cfg.USDC, p.usdcDecimals())
		p.ethPair = p.ethUSD != nil
	}
	if p.ethUSD == nil && s.opts.NativeUSD != nil {
		p.ethUSD = s.opts.NativeUSD
	}
	return p, nil
}

// usdcDecimals are the trading list's USDC's decimals (6 when it is not listed).
func (p *pricer) usdcDecimals() int {
	if t, ok := p.s.opts.Trading.Lookup(p.s.opts.Trading.USDC.Hex()); ok {
		return t.Decimals
	}
	return 6
}

// mid is whole b per whole a at the pricer's block in the router's pair of a and b (nil without the
// pair or its reserves).
func (p *pricer) mid(ctx context.Context, a common.Address, aDecimals int, b common.Address, bDecimals int) *big.Rat {
	rA, rB, err := p.s.venue.Reserves(ctx, p.block, a, b)
	if err != nil || rA.Sign() == 0 || rB.Sign() == 0 {
		return nil
	}
	return new(big.Rat).Quo(whole(rB, bDecimals), whole(rA, aDecimals))
}

// info is c priced: its mid price in WETH and USD, its name when the list has none, and its volume's USD.
func (p *pricer) info(ctx context.Context, c candidate) client.TokenInfo {
	out := c.info
	out.AsOfBlock = p.head
	var weth *big.Rat
	if c.pool != "" {
		weth = p.launchPrice(ctx, c)
	} else {
		weth = p.listedPrice(ctx, c, &out)
		out.Name = p.name(ctx, c)
	}
	if weth != nil {
		out.PriceWeth = ptr(price(weth))
		if p.ethUSD != nil {
			out.PriceUSD = ptr(price(new(big.Rat).Mul(weth, p.ethUSD)))
		}
	}
	if c.volume != nil {
		v := *c.volume
		if p.ethUSD != nil {
			v.USD = ptr(decimal(new(big.Rat).Mul(whole(c.volumeWeth, 18), p.ethUSD), usdDecimals))
		}
		out.Volume24h = &v
	}
	return out
}

// launchPrice is WETH per whole launched token in its launch pool at the block (nil when unread or empty).
func (p *pricer) launchPrice(ctx context.Context, c candidate) *big.Rat {
	pool := poolABI.Instance(p.s.rpc, common.HexToAddress(c.pool))
	r, err := bind.Call(pool, &bind.CallOpts{Context: ctx, BlockNumber: p.block}, poolABI.PackGetReserves(), poolABI.UnpackGetReserves)
	if err != nil || r.Reserve0.Sign() == 0 || r.Reserve1.Sign() == 0 {
		return nil
	}
	token, weth := r.Reserve0, r.Reserve1
	if !strings.EqualFold(c.token0, c.info.Address) {
		token, weth = weth, token
	}
	return new(big.Rat).Quo(whole(weth, 18), whole(token, c.info.Decimals))
}

// listedPrice is WETH per whole listed token at the block through its WETH pair (WETH is 1; USDC's pair
// prices it too), and sets out's pool to that pair; nil when no pair prices it.
func (p *pricer) listedPrice(ctx context.Context, c candidate, out *client.TokenInfo) *big.Rat {
	cfg := p.s.opts.Trading
	t := c.listed
	if t.Address == cfg.WETH {
		if pair, err := p.s.venue.PairFor(ctx, cfg.WETH, cfg.USDC); err == nil && p.ethPair {
			out.PoolAddress = ptr(pair.Hex())
		}
		return big.NewRat(1, 1)
	}
	price := p.mid(ctx, t.Address, t.Decimals, cfg.WETH, 18)
	if price == nil {
		return nil
	}
	if pair, err := p.s.venue.PairFor(ctx, t.Address, cfg.WETH); err == nil {
		out.PoolAddress = ptr(pair.Hex())
	}
	return price
}

// name is a listed token's ERC-20 name read at the block (its symbol when it has none).
func (p *pricer) name(ctx context.Context, c candidate) string {
	token := tokenABI.Instance(p.s.rpc, c.listed.Address)
	name, err := bind.Call(token, &bind.CallOpts{Context: ctx, BlockNumber: p.block}, tokenABI.PackName(), tokenABI.UnpackName)
	if err != nil || strings.TrimSpace(name) == "" {
		return c.listed.Symbol
	}
	return name
}

// whole is an atomic amount of a token of decimals in whole tokens.
func whole(amount *big.Int, decimals int) *big.Rat {
	return new(big.Rat).SetFrac(amount, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
}

// price formats a price with priceDecimals decimals, or more for a small one so that it keeps
// priceDigits significant digits (at most maxPriceDecimals).
func price(r *big.Rat) string {
	s := r.FloatString(maxPriceDecimals)
	places := priceDecimals
	if dot := strings.IndexByte(s, '.'); strings.TrimLeft(s[:dot], "0") == "" {
		if lead := len(s[dot+1:]) - len(strings.TrimLeft(s[dot+1:], "0")); lead+priceDigits > places {
			places = min(lead+priceDigits, maxPriceDecimals)
		}
	}
	return decimal(r, places)
}

// decimal formats r with at most places decimals, trailing zeros dropped.
func decimal(r *big.Rat, places int) string {
	s := r.FloatString(places)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
