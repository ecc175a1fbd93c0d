package trading

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/evm/uniswap"
	"github.com/svcplatform/svc/internal/svcerr"
)

// LPFeeBps is Uniswap V2's LP fee per pool, in basis points.
const LPFeeBps = 30

// Venue prices trades on a Uniswap V2 router and reads its pairs.
type Venue struct {
	RPC    *ethclient.Client
	Config Config

	mu      sync.Mutex
	factory common.Address
}

// Trade is a swap as the router priced it at Block.
type Trade struct {
	Side, AmountKind string
	Base, Quote      Token
	In, Out          Token
	Path             []common.Address
	AmountIn         *big.Int
	AmountOut        *big.Int
	// Bound is the minimum received (exact_in) or the maximum paid (exact_out) after slippage.
	Bound       *big.Int
	SlippageBps int
	Block       uint64
	ImpactBps   int
}

// Price asks the router, at the chain's head, what paying in for out costs: amount is what is paid
// (exact_in) or received (exact_out). The direct pair is tried first, then a route through WETH. A pair
// of tokens no pool trades (or an amount beyond the pools' reserves) is a 400 naming base.
func (v *Venue) Price(ctx context.Context, in, out Token, kind string, amount *big.Int, slippageBps int) (*Trade, error) {
	head, err := v.RPC.BlockNumber(ctx)
	if err != nil {
		return nil, svcerr.New(svcerr.Unavailable, "the chain did not answer: %v", err)
	}
	block := new(big.Int).SetUint64(head)
	for _, path := range v.routes(in, out) {
		amounts, err := v.amounts(ctx, block, kind, amount, path)
		if err != nil {
			continue
		}
		t := &Trade{AmountKind: kind, In: in, Out: out, Path: path, AmountIn: amounts[0], AmountOut: amounts[len(amounts)-1],
			SlippageBps: slippageBps, Block: head}
		t.Bound = bound(kind, t.AmountIn, t.AmountOut, slippageBps)
		if t.ImpactBps, err = v.impact(ctx, block, t); err != nil {
			return nil, err
		}
		return t, nil
	}
	return nil, svcerr.Invalid("base", "no pool on the router trades %s for %s at this size (no pair, or not enough reserves)", in.Symbol, out.Symbol)
}

// routes are the paths tried from in to out: direct, then through WETH.
func (v *Venue) routes(in, out Token) [][]common.Address {
	direct := []common.Address{in.Address, out.Address}
	if in.Address == v.Config.WETH || out.Address == v.Config.WETH {
		return [][]common.Address{direct}
	}
	return [][]common.Address{direct, {in.Address, v.Config.WETH, out.Address}}
}

// amounts calls getAmountsOut (exact_in) or getAmountsIn (exact_out) at block.
func (v *Venue) amounts(ctx context.Context, block *big.Int, kind string, amount *big.Int, path []common.Address) ([]*big.Int, error) {
	r := uniswap.NewRouter()
	data := r.PackGetAmountsOut(amount, path)
	if kind == client.AmountExactOut {
		data = r.PackGetAmountsIn(amount, path)
	}
	out, err := v.RPC.CallContract(ctx, ethereum.CallMsg{To: &v.Config.Router, Data: data}, block)
	if err != nil {
		return nil, fmt.Errorf("price %v: %w", path, err)
	}
	if kind == client.AmountExactOut {
		return r.UnpackGetAmountsIn(out)
	}
	return r.UnpackGetAmountsOut(out)
}

// bound is the minimum received (exact_in: out less slippage, rounded down) or the maximum paid
// (exact_out: in plus slippage, rounded up).
func bound(kind string, in, out *big.Int, slippageBps int) *big.Int {
	if kind == client.AmountExactOut {
		num := new(big.Int).Mul(in, big.NewInt(int64(10_000+slippageBps)))
		q, m := new(big.Int).QuoRem(num, big.NewInt(10_000), new(big.Int))
		if m.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		return q
	}
	return new(big.Int).Div(new(big.Int).Mul(out, big.NewInt(int64(10_000-slippageBps))), big.NewInt(10_000))
}

// impact is how far t's price is from the pools' mid price at block, the LP fee aside, in basis points.
func (v *Venue) impact(ctx context.Context, block *big.Int, t *Trade) (int, error) {
	mid := new(big.Float).SetInt(t.AmountIn)
	for i := 0; i+1 < len(t.Path); i++ {
		rIn, rOut, err := v.reserves(ctx, block, t.Path[i], t.Path[i+1])
		if err != nil {
			return 0, err
		}
		mid.Mul(mid, new(big.Float).Quo(new(big.Float).SetInt(rOut), new(big.Float).SetInt(rIn)))
		mid.Mul(mid, big.NewFloat(float64(10_000-LPFeeBps)/10_000))
	}
	if mid.Sign() == 0 {
		return 0, nil
	}
	ratio, _ := new(big.Float).Quo(new(big.Float).SetInt(t.AmountOut), mid).Float64()
	return max(0, int((1-ratio)*10_000+0.5)), nil
}

// Reserves reads the reserves of the router's pair of a and b at block, a's first (the token reads of
// internal/tokeninfo price with it).
func (v *Venue) Reserves(ctx context.Context, block *big.Int, a, b common.Address) (*big.Int, *big.Int, error) {
	return v.reserves(ctx, block, a, b)
}

// reserves reads the reserves of the pair of a and b at block, a's first.
func (v *Venue) reserves(ctx context.Context, block *big.Int, a, b common.Address) (*big.Int, *big.Int, error) {
	pair, err := v.PairFor(ctx, a, b)
	if err != nil {
		return nil, nil, err
	}
	p := uniswap.NewPair()
	out, err := v.RPC.CallContract(ctx, ethereum.CallMsg{To: &pair, Data: p.PackGetReserves()}, block)
	if err != nil {
		return nil, nil, svcerr.New(svcerr.Unavailable, "read the reserves of %s: %v", pair, err)
	}
	r, err := p.UnpackGetReserves(out)
	if err != nil {
		return nil, nil, fmt.Errorf("read the reserves of %s: %w", pair, err)
	}
	if token0, _ := sortTokens(a, b); token0 == a {
		return r.Reserve0, r.Reserve1, nil
	}
	return r.Reserve1, r.Reserve0, nil
}

// PairFor is the address of the pair of a and b: where the router's factory creates it (CREATE2 with
// the pair's init code, as the router's pairFor computes it).
func (v *Venue) PairFor(ctx context.Context, a, b common.Address) (common.Address, error) {
	factory, err := v.Factory(ctx)
	if err != nil {
		return common.Address{}, err
	}
	token0, token1 := sortTokens(a, b)
	salt := crypto.Keccak256Hash(token0.Bytes(), token1.Bytes())
	return crypto.CreateAddress2(factory, salt, crypto.Keccak256(common.FromHex(uniswap.PairMetaData.Bin))), nil
}

// Factory reads the router's factory once.
func (v *Venue) Factory(ctx context.Context) (common.Address, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.factory != (common.Address{}) {
		return v.factory, nil
	}
	r := uniswap.NewRouter()
	out, err := v.RPC.CallContract(ctx, ethereum.CallMsg{To: &v.Config.Router, Data: r.PackFactory()}, nil)
	if err != nil {
		return common.Address{}, svcerr.New(svcerr.Unavailable, "read the router's factory: %v", err)
	}
	if v.factory, err = r.UnpackFactory(out); err != nil {
		return common.Address{}, fmt.Errorf("read the router's factory: %w", err)
	}
	return v.factory, nil
}

func sortTokens(a, b common.Address) (common.Address, common.Address) {
	if a.Cmp(b) < 0 {
		return a, b
	}
	return b, a
}
