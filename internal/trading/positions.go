package trading

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// usdPlaces is how many decimals the USD amounts of a position are rounded to.
const usdPlaces = 6

// Positions answers the positions of the scope's wallet walletID (every wallet of the scope when
// empty): per token, the quantity on the chain and, over the wallet's filled orders in the order they
// filled, the average cost, the cost basis and the realised and unrealised P&L in USD.
//
// The rule (docs/DECISIONS.md): an order is worth its USDC leg, else its ETH/WETH leg at the native
// price, else the USD value recorded when it was placed. Its gas (approve and swap, at the native price)
// is added to the cost of the token it bought, or, when it bought USDC, taken from the proceeds of the
// token it sold. A sale realises its proceeds less the average cost of what it sold; a sale beyond what
// orders bought (a deposit's tokens, of unknown cost) realises only its matched part. USDC is the unit of
// account: its average cost is 1 and it has no P&L.
func (s *Service) Positions(ctx context.Context, scope tenant.Scope, walletID string) (client.TradingPositionList, error) {
	if s.Venue == nil || s.Venue.RPC == nil {
		return client.TradingPositionList{}, svcerr.New(svcerr.Unavailable, "this server has no trading venue (SVC_CHAIN_RPC_URL, SVC_TRADING_ROUTER)")
	}
	wallets, err := s.positionWallets(ctx, scope, walletID)
	if err != nil {
		return client.TradingPositionList{}, err
	}
	head, err := s.Venue.RPC.BlockNumber(ctx)
	if err != nil {
		return client.TradingPositionList{}, svcerr.New(svcerr.Unavailable, "the chain did not answer: %v", err)
	}
	block := new(big.Int).SetUint64(head)
	prices := map[string]*big.Rat{}
	out := client.TradingPositionList{OK: true, Positions: []client.TradingPosition{}, Block: int64(head)}
	for i := range wallets {
		ps, err := s.walletPositions(ctx, &wallets[i], block, prices)
		if err != nil {
			return client.TradingPositionList{}, err
		}
		out.Positions = append(out.Positions, ps...)
	}
	return out, nil
}

// positionWallets is the scope's wallet id (404 when another account's), or all its wallets.
func (s *Service) positionWallets(ctx context.Context, scope tenant.Scope, walletID string) ([]schema.Wallet, error) {
	if walletID != "" {
		w, err := s.Wallets.Get(ctx, scope, walletID)
		if err != nil {
			return nil, err
		}
		return []schema.Wallet{*w}, nil
	}
	ws, _, err := s.Wallets.List(ctx, scope, page.Params{Limit: page.MaxLimit})
	return ws, err
}

// walletPositions are wallet w's positions: every listed token it holds or traded.
func (s *Service) walletPositions(ctx context.Context, w *schema.Wallet, block *big.Int, prices map[string]*big.Rat) ([]client.TradingPosition, error) {
	books, err := s.books(ctx, w.ID)
	if err != nil {
		return nil, err
	}
	var out []client.TradingPosition
	for _, sym := range s.Venue.Config.Symbols() {
		tok, _ := s.Venue.Config.Lookup(sym)
		held, err := s.holding(ctx, w, tok, block)
		if err != nil {
			return nil, err
		}
		b := books[tok.Symbol]
		if held.Sign() == 0 && b == nil {
			continue
		}
		if tok.Address == s.Venue.Config.USDC {
			b = usdBook(held)
		} else if b == nil {
			b = newBook()
		}
		price, ok := prices[tok.Symbol]
		if !ok {
			price = s.usdPrice(ctx, tok, block)
			prices[tok.Symbol] = price
		}
		out = append(out, b.position(w.ID, tok, held, price))
	}
	return out, nil
}

// books replays wallet walletID's filled orders, oldest fill first, into one book per token.
func (s *Service) books(ctx context.Context, walletID string) (map[string]*book, error) {
	var orders []schema.TradingOrder
	err := s.DB.NewSelect().Model(&orders).Where("wallet_id = ? AND status = ? AND filled_in IS NOT NULL AND filled_out IS NOT NULL",
		walletID, schema.OrderFilled).OrderExpr("filled_at, id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the filled orders of %s: %w", walletID, err)
	}
	books := map[string]*book{}
	bookOf := func(sym string) *book {
		if books[sym] == nil {
			books[sym] = newBook()
		}
		return books[sym]
	}
	for i := range orders {
		s.replay(&orders[i], bookOf)
	}
	return books, nil
}

// replay books order o: the token it received is bought at the order's USD value plus its gas, the
// token it paid is sold for that value (less the gas when it bought USDC). An order of unknown USD value
// is left out.
func (s *Service) replay(o *schema.TradingOrder, bookOf func(string) *book) {
	cfg := s.Venue.Config
	in, out := legs(o, cfg)
	amountIn, amountOut := bigOf(*o.FilledIn), bigOf(*o.FilledOut)
	value := s.orderUSD(o, in, amountIn, out, amountOut)
	if value == nil {
		return
	}
	gas := s.gasUSD(o)
	if out.Address != cfg.USDC {
		b := bookOf(out.Symbol)
		b.buy(amountOut, new(big.Rat).Add(value, gas))
		b.gas.Add(b.gas, gas)
		gas = new(big.Rat)
	}
	if in.Address != cfg.USDC {
		b := bookOf(in.Symbol)
		b.sell(amountIn, new(big.Rat).Sub(value, gas))
		b.gas.Add(b.gas, gas)
	}
}

// orderUSD is order o's USD value: its USDC leg, else its ETH/WETH leg at the native price, else the
// value recorded when it was placed; nil when none is known.
func (s *Service) orderUSD(o *schema.TradingOrder, in Token, amountIn *big.Int, out Token, amountOut *big.Int) *big.Rat {
	cfg := s.Venue.Config
	switch {
	case in.Address == cfg.USDC:
		return wholeUnits(amountIn, in.Decimals)
	case out.Address == cfg.USDC:
		return wholeUnits(amountOut, out.Decimals)
	case s.Prices.NativeCents > 0 && in.Address == cfg.WETH:
		return new(big.Rat).Mul(wholeUnits(amountIn, 18), s.nativeUSD())
	case s.Prices.NativeCents > 0 && out.Address == cfg.WETH:
		return new(big.Rat).Mul(wholeUnits(amountOut, 18), s.nativeUSD())
	case o.USDCents != nil:
		return new(big.Rat).SetFrac64(*o.USDCents, 100)
	}
	return nil
}

// gasUSD is what order o paid for gas, at the native price (0 without one).
func (s *Service) gasUSD(o *schema.TradingOrder) *big.Rat {
	if o.GasWei == nil || s.Prices.NativeCents <= 0 {
		return new(big.Rat)
	}
	return new(big.Rat).Mul(wholeUnits(bigOf(*o.GasWei), 18), s.nativeUSD())
}

// nativeUSD is the native price in USD per ETH.
func (s *Service) nativeUSD() *big.Rat { return new(big.Rat).SetFrac64(s.Prices.NativeCents, 100) }

// holding is what wallet w holds of tok at block: its ETH balance, or the token's balanceOf.
func (s *Service) holding(ctx context.Context, w *schema.Wallet, tok Token, block *big.Int) (*big.Int, error) {
	owner := wallet.Address(w)
	if tok.Native {
		v, err := s.Venue.RPC.BalanceAt(ctx, owner, block)
		if err != nil {
			return nil, svcerr.New(svcerr.Unavailable, "read the ETH balance of %s: %v", owner.Hex(), err)
		}
		return v, nil
	}
	erc20 := launch.NewLaunchToken()
	raw, err := s.Venue.RPC.CallContract(ctx, ethereum.CallMsg{To: &tok.Address, Data: erc20.PackBalanceOf(owner)}, block)
	if err != nil {
		return nil, svcerr.New(svcerr.Unavailable, "read the %s balance of %s: %v", tok.Symbol, owner.Hex(), err)
	}
	v, err := erc20.UnpackBalanceOf(raw)
	if err != nil {
		return nil, fmt.Errorf("read the %s balance of %s: %w", tok.Symbol, owner.Hex(), err)
	}
	return v, nil
}

// usdPrice is USD per whole tok at block at the pools' mid price: USDC is 1, others through their USDC
// pair or through WETH; nil when no pool prices it.
func (s *Service) usdPrice(ctx context.Context, tok Token, block *big.Int) *big.Rat {
	cfg := s.Venue.Config
	if tok.Address == cfg.USDC {
		return big.NewRat(1, 1)
	}
	usdcDecimals := 6
	if u, ok := cfg.Lookup(cfg.USDC.Hex()); ok {
		usdcDecimals = u.Decimals
	}
	if p := s.midPrice(ctx, block, tok.Address, tok.Decimals, cfg.USDC, usdcDecimals); p != nil {
		return p
	}
	if tok.Address == cfg.WETH {
		return nil
	}
	viaWETH := s.midPrice(ctx, block, tok.Address, tok.Decimals, cfg.WETH, 18)
	ethUSD := s.midPrice(ctx, block, cfg.WETH, 18, cfg.USDC, usdcDecimals)
	if viaWETH == nil || ethUSD == nil {
		return nil
	}
	return viaWETH.Mul(viaWETH, ethUSD)
}

// midPrice is whole b per whole a in the pair of a and b at block (nil without the pair or reserves).
func (s *Service) midPrice(ctx context.Context, block *big.Int, a common.Address, aDecimals int, b common.Address, bDecimals int) *big.Rat {
	rA, rB, err := s.Venue.reserves(ctx, block, a, b)
	if err != nil || rA.Sign() == 0 || rB.Sign() == 0 {
		return nil
	}
	return new(big.Rat).Quo(wholeUnits(rB, bDecimals), wholeUnits(rA, aDecimals))
}

// wholeUnits is atomic amount of a token of decimals in whole tokens.
func wholeUnits(amount *big.Int, decimals int) *big.Rat {
	return new(big.Rat).SetFrac(amount, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
}

// book is one token's average-cost ledger over a wallet's filled orders.
type book struct {
	qty      *big.Int // atomic units bought by orders and not sold yet
	cost     *big.Rat // USD cost of qty
	realized *big.Rat
	gas      *big.Rat
	orders   int
	usd      bool // the unit of account (USDC)
}

func newBook() *book {
	return &book{qty: new(big.Int), cost: new(big.Rat), realized: new(big.Rat), gas: new(big.Rat)}
}

// usdBook is the unit of account's book: held at cost 1, no P&L.
func usdBook(held *big.Int) *book {
	b := newBook()
	b.qty.Set(held)
	b.usd = true
	return b
}

// buy adds qty bought for usd.
func (b *book) buy(qty *big.Int, usd *big.Rat) {
	b.qty.Add(b.qty, qty)
	b.cost.Add(b.cost, usd)
	b.orders++
}

// sell takes qty sold for proceeds off the book at the average cost, realising the difference; the part
// beyond the booked quantity (of unknown cost) realises nothing.
func (b *book) sell(qty *big.Int, proceeds *big.Rat) {
	b.orders++
	if qty.Sign() == 0 || b.qty.Sign() == 0 {
		return
	}
	matched := new(big.Int).Set(qty)
	if matched.Cmp(b.qty) > 0 {
		matched.Set(b.qty)
	}
	costOut := new(big.Rat).Mul(b.cost, new(big.Rat).SetFrac(matched, b.qty))
	gained := new(big.Rat).Mul(proceeds, new(big.Rat).SetFrac(matched, qty))
	b.realized.Add(b.realized, gained.Sub(gained, costOut))
	b.cost.Sub(b.cost, costOut)
	b.qty.Sub(b.qty, matched)
}

// position is the book as the API shows it, for held atomic units of tok at price (nil: unknown).
func (b *book) position(walletID string, tok Token, held *big.Int, price *big.Rat) client.TradingPosition {
	p := client.TradingPosition{WalletID: walletID, Token: tok.Symbol, Address: tok.Address.Hex(), Quantity: wallet.FormatUnits(held, tok.Decimals),
		TradedQuantity: wallet.FormatUnits(b.qty, tok.Decimals), AverageCost: usdString(new(big.Rat)), CostBasis: usdString(b.cost),
		RealizedPnL: usdString(b.realized), GasUSD: usdString(b.gas), Orders: b.orders}
	if b.usd {
		p.AverageCost, p.CostBasis = usdString(big.NewRat(1, 1)), usdString(wholeUnits(held, tok.Decimals))
	} else if b.qty.Sign() > 0 {
		p.AverageCost = usdString(new(big.Rat).Quo(b.cost, wholeUnits(b.qty, tok.Decimals)))
	}
	if price == nil {
		return p
	}
	p.Price, p.Value = usdString(price), usdString(new(big.Rat).Mul(price, wholeUnits(held, tok.Decimals)))
	p.UnrealizedPnL = usdString(new(big.Rat))
	if !b.usd && b.qty.Sign() > 0 {
		kept := new(big.Int).Set(b.qty)
		if kept.Cmp(held) > 0 {
			kept.Set(held)
		}
		share := new(big.Rat).SetFrac(kept, b.qty)
		worth := new(big.Rat).Mul(price, wholeUnits(kept, tok.Decimals))
		p.UnrealizedPnL = usdString(worth.Sub(worth, new(big.Rat).Mul(b.cost, share)))
	}
	return p
}

// usdString is a USD amount rounded to usdPlaces decimals.
func usdString(r *big.Rat) string { return r.FloatString(usdPlaces) }
