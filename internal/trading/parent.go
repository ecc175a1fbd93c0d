package trading

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Limits of twap and dca orders.
const (
	// MaxSlices is the most child orders a twap or dca order places.
	MaxSlices = 100
	// MinSliceInterval is the least time between a twap order's slices.
	MinSliceInterval = time.Second
	// MaxTWAPDuration is the longest a twap order runs.
	MaxTWAPDuration = 7 * 24 * time.Hour
	// DefaultMinDCAEvery is the shortest interval a dca order's every may name.
	DefaultMinDCAEvery = time.Minute
)

// parent is a twap or dca order request's own fields, read and checked.
type parent struct {
	typ      string
	slices   int
	duration time.Duration
	every    string
	// amount is the field the per-slice or total amount came from (amount or amountPerSlice).
	amount string
}

// IsParent reports whether order type typ places child orders (twap, dca).
func IsParent(typ string) bool { return typ == schema.OrderTWAP || typ == schema.OrderDCA }

// readParent checks a twap or dca request's fields, naming the first bad one.
func (s *Service) readParent(b client.CreateOrderRequest) (parent, error) {
	p := parent{typ: b.Type, slices: b.Slices, amount: "amount"}
	switch {
	case b.QuoteID != "":
		return p, svcerr.Invalid("quoteId", "a %s order names its own fields (walletId, side, base, quote, amount…), not a quoteId", p.typ)
	case b.LimitPrice != "" || b.StopPrice != "":
		return p, svcerr.Invalid(pick(b.LimitPrice != "", "limitPrice", "stopPrice"), "a %s order places market orders: no limit or stop price", p.typ)
	case b.ExpiresAt != nil:
		return p, svcerr.Invalid("expiresAt", "a %s order does not expire: expiresAt is for limit and stop orders", p.typ)
	case b.Slices < 1 || b.Slices > MaxSlices:
		return p, svcerr.Invalid("slices", "slices is 1 to %d, not %d", MaxSlices, b.Slices)
	}
	if p.typ == schema.OrderTWAP {
		return p, p.readTWAP(b)
	}
	return p, s.readDCA(&p, b)
}

// readTWAP checks a twap order's duration (and that it names no dca field).
func (p *parent) readTWAP(b client.CreateOrderRequest) error {
	if b.Every != "" || b.AmountPerSlice != "" {
		return svcerr.Invalid(pick(b.Every != "", "every", "amountPerSlice"), "a twap order names amount, duration and slices")
	}
	d, err := time.ParseDuration(strings.TrimSpace(b.Duration))
	if err != nil || d <= 0 {
		return svcerr.Invalid("duration", "duration is a Go duration such as 30m or 1h30m, got %q", b.Duration)
	}
	if d < MinSliceInterval*time.Duration(p.slices) {
		return svcerr.Invalid("duration", "duration %s is too short for %d slices: at least %s per slice", d, p.slices, MinSliceInterval)
	}
	if d > MaxTWAPDuration {
		return svcerr.Invalid("duration", "duration may be at most %s, not %s", MaxTWAPDuration, d)
	}
	p.duration = d
	return nil
}

// readDCA checks a dca order's every and amountPerSlice (and that it names no twap field).
func (s *Service) readDCA(p *parent, b client.CreateOrderRequest) error {
	switch {
	case b.Duration != "":
		return svcerr.Invalid("duration", "a dca order names every, slices and amountPerSlice, not duration")
	case b.Amount != "":
		return svcerr.Invalid("amount", "a dca order names amountPerSlice, not amount")
	case strings.TrimSpace(b.AmountPerSlice) == "":
		return svcerr.Invalid("amountPerSlice", "a dca order needs amountPerSlice (the amount of each child order)")
	}
	every, err := s.readEvery(b.Every)
	p.every, p.amount = every, "amountPerSlice"
	return err
}

// pick is a if cond, else b.
func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// placeParent records a twap or dca order and starts its workflow (twap) or schedule (dca). The whole
// order's USD value is judged by the wallet's policy now: any refusal but the daily limit's (each slice
// counts against it when it is placed) is the policy's 403 and records nothing. Nothing is held: each
// slice holds its trading fee when it is placed.
func (s *Service) placeParent(ctx context.Context, r Request, now time.Time) (*schema.TradingOrder, error) {
	b := r.Body
	p, err := s.readParent(b)
	if err != nil {
		return nil, err
	}
	amount := b.Amount
	if p.typ == schema.OrderDCA {
		amount = b.AmountPerSlice
	}
	sp, err := s.readSpec(client.TradingQuoteRequest{WalletID: b.WalletID, Side: b.Side, Base: b.Base, Quote: b.Quote, Amount: amount,
		AmountKind: b.AmountKind, SlippageBps: b.SlippageBps})
	if e, ok := svcerr.As(err); ok && e.Param == "amount" {
		e.Param = p.amount
	}
	if err != nil {
		return nil, err
	}
	if p.typ == schema.OrderDCA {
		sp.amount.Mul(sp.amount, big.NewInt(int64(p.slices)))
	}
	if big.NewInt(int64(p.slices)).Cmp(sp.amount) > 0 {
		return nil, svcerr.Invalid(p.amount, "amount is too small to split into %d slices", p.slices)
	}
	o, err := s.parentOf(ctx, r, p, sp, now)
	if err != nil {
		return nil, err
	}
	if err := s.canPayASlice(ctx, o); err != nil {
		return nil, err
	}
	if _, err := s.DB.NewInsert().Model(o).Returning("created_at, updated_at").Exec(ctx); err != nil {
		return nil, fmt.Errorf("record order %s: %w", o.ID, err)
	}
	return o, s.Start(ctx, o)
}

// canPayASlice refuses (402) a parent order whose account cannot pay even one slice's trading fee now:
// every slice would fail. Each slice holds its own fee when it is placed, so a balance that runs out
// later fails only the slices after it.
func (s *Service) canPayASlice(ctx context.Context, o *schema.TradingOrder) error {
	if s.Ledger == nil || o.FeeMillicredits <= 0 {
		return nil
	}
	b, err := s.Ledger.Balance(ctx, o.AccountID)
	if err != nil {
		return err
	}
	if b.Available < o.FeeMillicredits {
		return svcerr.New(svcerr.InsufficientCredits, "each slice of this order pays a trading fee of %g credits and the balance is %g: top up with POST /v1/credits/x402/top-up",
			catalog.Credits(o.FeeMillicredits), catalog.Credits(b.Available))
	}
	return nil
}

// parentOf prices the whole order and judges it by the wallet's policy.
func (s *Service) parentOf(ctx context.Context, r Request, p parent, sp spec, now time.Time) (*schema.TradingOrder, error) {
	w, err := s.Wallets.Get(ctx, r.Scope, sp.walletID)
	if err != nil {
		return nil, err
	}
	t, err := s.price(ctx, sp)
	if err != nil {
		return nil, err
	}
	o := &schema.TradingOrder{ID: r.ID, AccountID: r.Scope.AccountID, ProjectID: r.Scope.ProjectID, KeyID: opt(r.KeyID), Type: p.typ,
		Status: schema.OrderOpen, FeeMillicredits: s.FeeMillicredits, SwapTxID: SwapTxID(r.ID), WalletID: w.ID, Side: t.Side,
		Base: t.Base.Symbol, Quote: t.Quote.Symbol, AmountKind: t.AmountKind, Path: hexes(t.Path), AmountIn: t.AmountIn.String(),
		AmountOut: t.AmountOut.String(), Bound: t.Bound.String(), SlippageBps: t.SlippageBps, USDCents: s.usdCents(t), Slices: &p.slices}
	if p.typ == schema.OrderTWAP {
		ms := p.duration.Milliseconds()
		o.DurationMS = &ms
	} else {
		o.Every = &p.every
	}
	v, err := s.verdict(ctx, w, o.USDCents, now)
	if err != nil {
		return nil, err
	}
	if v.Decision == wallet.Refused && v.Rule != wallet.RuleDaily {
		return nil, svcerr.New(svcerr.Forbidden, "the wallet's policy refuses this order's whole value (%s): %s", v.Rule, v.Message).
			WithDetails("rule", v.Rule).WithDetails("decision", v.Decision)
	}
	return o, nil
}

// startTWAP starts twap order o's workflow order/<id>; one started before is fine.
func (s *Service) startTWAP(ctx context.Context, o *schema.TradingOrder) error {
	slices := derefInt(o.Slices)
	interval := time.Duration(derefInt64(o.DurationMS)) * time.Millisecond / time.Duration(max(slices, 1))
	return wallet.StartOnce(ctx, s.Engine, sdkclient.StartWorkflowOptions{ID: workflows.OrderWorkflowID(o.ID),
		TypedSearchAttributes: workflows.ResourceAttributes(o.AccountID, o.ProjectID, client.ServiceManagedTrading, client.OpTradingOrdersCreate),
		StaticSummary:         fmt.Sprintf("twap %s %s/%s in %d slices (%s) from %s", o.Side, o.Base, o.Quote, slices, o.ID, o.WalletID)},
		"order", workflows.TwapOrderWorkflowName, workflows.TwapOrderParams{OrderID: o.ID, Slices: slices, Interval: interval})
}

func derefInt(v *int) int {
	if v == nil {
		return 0
	}
	return *v
}

func derefInt64(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}
