package trading

import (
	"context"
	"encoding/json"
	"fmt"
	sdkclient "go.temporal.io/sdk/client"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// QuoteTTL is how long a trading quote can be ordered.
const QuoteTTL = 30 * time.Second

// Slippage bounds, in basis points.
const (
	DefaultSlippageBps = 50
	MaxSlippageBps     = 5000
)

// Service quotes trades and places orders.
type Service struct {
	DB      *bun.DB
	Wallets *wallet.Store
	// Chain is the wallets' chain (sends are judged and recorded on it).
	Chain  *wallet.Chain
	Venue  *Venue
	Prices wallet.Prices
	Engine wallet.Engine
	// Ledger holds each order's trading fee until it fills; nil charges none.
	Ledger *ledger.Ledger
	// FeeMillicredits is the trading fee per order (the pricing catalog's trading.orders.create).
	FeeMillicredits int64
	// Signals cancels limit and stop orders (their workflows); nil refuses cancels as unavailable.
	Signals Signaler
	// WatchEvery spaces a limit or stop order's reads of the pool's price (0: DefaultWatchEvery).
	WatchEvery time.Duration
	// Schedules runs dca orders' schedules; nil refuses dca orders as unavailable.
	Schedules sdkclient.ScheduleClient
	// MinDCAEvery is the shortest every a dca order may name (0: DefaultMinDCAEvery).
	MinDCAEvery time.Duration
}

// spec is a trade request read and checked.
type spec struct {
	walletID, side, kind string
	base, quote, in, out Token
	amount               *big.Int
	slippageBps          int
}

// readSpec checks a quote request's fields, naming the first bad one.
func (s *Service) readSpec(r client.TradingQuoteRequest) (spec, error) {
	sp := spec{walletID: strings.TrimSpace(r.WalletID), side: r.Side, kind: r.AmountKind, slippageBps: DefaultSlippageBps}
	if sp.walletID == "" {
		return sp, svcerr.Invalid("walletId", "walletId names the managed wallet that trades")
	}
	if sp.side != client.SideBuy && sp.side != client.SideSell {
		return sp, svcerr.Invalid("side", "side is buy or sell")
	}
	var ok bool
	if sp.base, ok = s.Venue.Config.Lookup(r.Base); !ok {
		return sp, svcerr.Invalid("base", "base: unknown token %q; tradeable: %s", r.Base, strings.Join(s.Venue.Config.Symbols(), ", "))
	}
	if sp.quote, ok = s.Venue.Config.Lookup(r.Quote); !ok {
		return sp, svcerr.Invalid("quote", "quote: unknown token %q; tradeable: %s", r.Quote, strings.Join(s.Venue.Config.Symbols(), ", "))
	}
	if sp.base.Address == sp.quote.Address {
		return sp, svcerr.Invalid("quote", "quote is the same token as base")
	}
	if sp.kind != client.AmountExactIn && sp.kind != client.AmountExactOut {
		return sp, svcerr.Invalid("amountKind", "amountKind is exact_in or exact_out")
	}
	sp.in, sp.out = sp.base, sp.quote
	if sp.side == client.SideBuy {
		sp.in, sp.out = sp.quote, sp.base
	}
	exact := sp.in
	if sp.kind == client.AmountExactOut {
		exact = sp.out
	}
	var err error
	if sp.amount, err = evm.ParseUnits(strings.TrimSpace(r.Amount), exact.Decimals); err != nil {
		return sp, svcerr.Invalid("amount", "amount: %v (a decimal string of %s, at most %d decimals)", err, exact.Symbol, exact.Decimals)
	}
	if sp.amount.Sign() <= 0 {
		return sp, svcerr.Invalid("amount", "amount must be more than 0")
	}
	if r.SlippageBps != nil {
		if *r.SlippageBps < 0 || *r.SlippageBps > MaxSlippageBps {
			return sp, svcerr.Invalid("slippageBps", "slippageBps is 0 to %d basis points, not %d", MaxSlippageBps, *r.SlippageBps)
		}
		sp.slippageBps = *r.SlippageBps
	}
	return sp, nil
}

// price prices a checked request on the venue.
func (s *Service) price(ctx context.Context, sp spec) (*Trade, error) {
	if s.Venue == nil || s.Venue.RPC == nil {
		return nil, svcerr.New(svcerr.Unavailable, "this server has no trading venue (SVC_CHAIN_RPC_URL, SVC_TRADING_ROUTER)")
	}
	t, err := s.Venue.Price(ctx, sp.in, sp.out, sp.kind, sp.amount, sp.slippageBps)
	if err != nil {
		return nil, err
	}
	t.Side, t.Base, t.Quote = sp.side, sp.base, sp.quote
	return t, nil
}

// Quote prices a trade from the scope's wallet, judges it by the wallet's policy and records the quote
// (quoteID) for QuoteTTL.
func (s *Service) Quote(ctx context.Context, scope tenant.Scope, quoteID string, r client.TradingQuoteRequest, now time.Time) (client.TradingQuote, error) {
	sp, err := s.readSpec(r)
	if err != nil {
		return client.TradingQuote{}, err
	}
	w, err := s.Wallets.Get(ctx, scope, sp.walletID)
	if err != nil {
		return client.TradingQuote{}, err
	}
	t, err := s.price(ctx, sp)
	if err != nil {
		return client.TradingQuote{}, err
	}
	cents := s.usdCents(t)
	verdict, err := s.verdict(ctx, w, cents, now)
	if err != nil {
		return client.TradingQuote{}, err
	}
	q := s.wireQuote(quoteID, w.ID, t, cents, verdict, now.Add(QuoteTTL).UTC())
	return q, s.recordQuote(ctx, w, t, q)
}

// verdict is the wallet policy's verdict on a swap of cents through the router now.
func (s *Service) verdict(ctx context.Context, w *schema.Wallet, cents *int64, now time.Time) (client.PolicyVerdict, error) {
	p, err := wallet.PolicyOf(w)
	if err != nil {
		return client.PolicyVerdict{}, err
	}
	spent, err := wallet.Spent(ctx, s.DB, w.ID, now)
	if err != nil {
		return client.PolicyVerdict{}, err
	}
	v := p.Evaluate(wallet.Outbound{From: wallet.Address(w), To: s.Venue.Config.Router, USDCents: cents, ContractCall: true, SpentCents: spent}, now)
	return client.PolicyVerdict(v), nil
}

// usdCents is t's USD value in cents: its USDC leg, else its ETH leg at the native price; nil without
// either.
func (s *Service) usdCents(t *Trade) *int64 {
	cfg := s.Venue.Config
	for _, leg := range []struct {
		tok    Token
		amount *big.Int
	}{{t.In, t.AmountIn}, {t.Out, t.AmountOut}} {
		if leg.tok.Address == cfg.USDC {
			return cents(leg.amount, leg.tok.Decimals, 100)
		}
	}
	for _, leg := range []struct {
		tok    Token
		amount *big.Int
	}{{t.In, t.AmountIn}, {t.Out, t.AmountOut}} {
		if leg.tok.Address == cfg.WETH && s.Prices.NativeCents > 0 {
			return cents(leg.amount, leg.tok.Decimals, s.Prices.NativeCents)
		}
	}
	return nil
}

// cents is amount (of decimals) at per cents per whole unit, rounded up.
func cents(amount *big.Int, decimals int, per int64) *int64 {
	num := new(big.Int).Mul(amount, big.NewInt(per))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return nil
	}
	v := q.Int64()
	return &v
}

// wireQuote is the quote as the API answers it.
func (s *Service) wireQuote(id, walletID string, t *Trade, cents *int64, v client.PolicyVerdict, expires time.Time) client.TradingQuote {
	q := client.TradingQuote{ID: id, WalletID: walletID, Side: t.Side, Base: t.Base.Symbol, Quote: t.Quote.Symbol, AmountKind: t.AmountKind,
		SlippageBps: t.SlippageBps, Path: hexes(t.Path), TokenIn: t.In.Symbol, TokenOut: t.Out.Symbol,
		AmountIn: wallet.FormatUnits(t.AmountIn, t.In.Decimals), AmountOut: wallet.FormatUnits(t.AmountOut, t.Out.Decimals),
		Price: priceOf(t.Side, t.In, t.Out, t.AmountIn, t.AmountOut), PriceImpactBps: t.ImpactBps, Fee: s.fee(t), USDValue: usd(cents),
		Verdict: v, Block: int64(t.Block), ExpiresAt: expires}
	if t.AmountKind == client.AmountExactIn {
		q.MinimumReceived = wallet.FormatUnits(t.Bound, t.Out.Decimals)
	} else {
		q.MaximumPaid = wallet.FormatUnits(t.Bound, t.In.Decimals)
	}
	return q
}

// fee is the route's LP fee (30 bps per pool, compounded, of what is paid) and the platform's fee.
func (s *Service) fee(t *Trade) client.TradingFee {
	hops := int64(len(t.Path) - 1)
	full := new(big.Int).Exp(big.NewInt(10_000), big.NewInt(hops), nil)
	kept := new(big.Int).Exp(big.NewInt(10_000-LPFeeBps), big.NewInt(hops), nil)
	taken := new(big.Int).Sub(full, kept)
	lp := new(big.Int).Div(new(big.Int).Mul(t.AmountIn, taken), full)
	bps := new(big.Int).Div(new(big.Int).Mul(taken, big.NewInt(10_000)), full)
	return client.TradingFee{LPFeeBps: int(bps.Int64()), LPFee: wallet.FormatUnits(lp, t.In.Decimals), LPFeeToken: t.In.Symbol,
		TradingFeeCredits: float64(s.FeeMillicredits) / 1000}
}

// priceOf is the quote token per base token of a swap paying in for out.
func priceOf(side string, in, out Token, amountIn, amountOut *big.Int) string {
	if amountIn == nil || amountOut == nil || amountIn.Sign() == 0 || amountOut.Sign() == 0 {
		return ""
	}
	fin := new(big.Float).Quo(new(big.Float).SetInt(amountIn), pow10(in.Decimals))
	fout := new(big.Float).Quo(new(big.Float).SetInt(amountOut), pow10(out.Decimals))
	p := new(big.Float).Quo(fout, fin) // sell: quote (out) per base (in)
	if side == client.SideBuy {
		p = new(big.Float).Quo(fin, fout)
	}
	f, _ := p.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func pow10(n int) *big.Float {
	return new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil))
}

// recordQuote stores the quote for an order placed from it.
func (s *Service) recordQuote(ctx context.Context, w *schema.Wallet, t *Trade, q client.TradingQuote) error {
	answer, err := json.Marshal(q)
	if err != nil {
		return fmt.Errorf("encode the quote: %w", err)
	}
	row := &schema.TradingQuote{ID: q.ID, AccountID: w.AccountID, ProjectID: w.ProjectID, WalletID: w.ID, Side: t.Side, Base: t.Base.Symbol,
		Quote: t.Quote.Symbol, AmountKind: t.AmountKind, Path: hexes(t.Path), AmountIn: t.AmountIn.String(), AmountOut: t.AmountOut.String(),
		Bound: t.Bound.String(), SlippageBps: t.SlippageBps, USDCents: s.usdCents(t), BlockNumber: int64(t.Block), Answer: answer, ExpiresAt: q.ExpiresAt}
	if _, err := s.DB.NewInsert().Model(row).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("record quote %s: %w", q.ID, err)
	}
	return nil
}

func hexes(path []common.Address) []string {
	out := make([]string, len(path))
	for i, a := range path {
		out[i] = a.Hex()
	}
	return out
}

func usd(cents *int64) *float64 {
	if cents == nil {
		return nil
	}
	v := float64(*cents) / 100
	return &v
}
