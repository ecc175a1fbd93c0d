package trading

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Watch reads whether limit or stop order id's trigger is reached at the pool's price for its amount now
// (the router's amounts, fee and impact included): a limit buy at or below its price, a limit sell at or
// above; a stop buy at or above, a stop sell at or below. A pool that cannot price the amount is not
// reached.
func (w *Worker) Watch(ctx context.Context, orderID string) (workflows.OrderWatch, error) {
	o, err := w.load(ctx, orderID)
	if err != nil {
		return workflows.OrderWatch{}, err
	}
	if w.Venue == nil || w.Venue.RPC == nil {
		return workflows.OrderWatch{}, errNoVenue
	}
	watch := workflows.OrderWatch{Trigger: deref(o.TriggerPrice)}
	t, err := w.reprice(ctx, o)
	if _, refused := svcerr.As(err); refused {
		watch.Price = "unavailable: " + err.Error()
		return watch, nil
	}
	if err != nil {
		return workflows.OrderWatch{}, err
	}
	watch.Price = priceOf(o.Side, t.In, t.Out, t.AmountIn, t.AmountOut)
	watch.Reached = reached(o.Type, o.Side, watch.Price, watch.Trigger)
	return watch, nil
}

// reprice prices order o's amount on the venue now.
func (w *Worker) reprice(ctx context.Context, o *schema.TradingOrder) (*Trade, error) {
	in, out := legs(o, w.Venue.Config)
	amount := bigOf(o.AmountIn)
	if o.AmountKind == client.AmountExactOut {
		amount = bigOf(o.AmountOut)
	}
	t, err := w.Venue.Price(ctx, in, out, o.AmountKind, amount, o.SlippageBps)
	if err != nil {
		return nil, err
	}
	t.Side = o.Side
	return t, nil
}

// reached says whether price reaches trigger for an order of typ and side.
func reached(typ, side, price, trigger string) bool {
	p, ok1 := new(big.Rat).SetString(price)
	t, ok2 := new(big.Rat).SetString(trigger)
	if !ok1 || !ok2 || p.Sign() <= 0 {
		return false
	}
	c := p.Cmp(t)
	buy := side == client.SideBuy
	if typ == schema.OrderStop {
		return (buy && c >= 0) || (!buy && c <= 0)
	}
	return (buy && c <= 0) || (!buy && c >= 0)
}

// Fire records reached limit or stop order id's wallet transactions, priced afresh (the swap with its
// slippage bound and a deadline from the chain head; the approve of the router when the allowance is
// short), starts its swap's approval's workflow when the policy asks for one, and answers the market
// path's parameters. A retry answers what was recorded. A policy refusal ends the order failed (reason
// policy, its fee released) and answers not fired.
func (s *Service) Fire(ctx context.Context, orderID string, now time.Time) (workflows.OrderFire, error) {
	o, err := s.load(ctx, s.DB, orderID)
	if err != nil || Final(o.Status) {
		return workflows.OrderFire{}, err
	}
	fired, err := s.swapRecorded(ctx, o)
	if err != nil {
		return workflows.OrderFire{}, err
	}
	if !fired {
		if err := s.recordFire(ctx, o, now); err != nil {
			if e, ok := svcerr.As(err); ok {
				return workflows.OrderFire{}, s.refuseFire(ctx, o, e)
			}
			return workflows.OrderFire{}, err
		}
	}
	if o, err = s.load(ctx, s.DB, orderID); err != nil || Final(o.Status) {
		return workflows.OrderFire{}, err
	}
	p, err := s.marketParams(ctx, o)
	return workflows.OrderFire{Fired: err == nil, Order: p}, err
}

// recordFire prices order o afresh, records its new amounts and bound, and records its swap (and
// approve).
func (s *Service) recordFire(ctx context.Context, o *schema.TradingOrder, now time.Time) error {
	t, err := (&Worker{Venue: s.Venue}).reprice(ctx, o)
	if err != nil {
		return err
	}
	o.AmountIn, o.AmountOut, o.Bound, o.Path, o.UpdatedAt = t.AmountIn.String(), t.AmountOut.String(), t.Bound.String(), hexes(t.Path), now.UTC()
	if o.ParentOrderID != nil {
		o.USDCents = s.usdCents(t) // a slice's spend counts at its price now
	}
	if _, err := s.DB.NewUpdate().Model(o).Column("amount_in", "amount_out", "bound", "path", "usd_cents", "updated_at").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("record the price of order %s: %w", o.ID, err)
	}
	r := Request{Scope: tenant.Scope{AccountID: o.AccountID, ProjectID: o.ProjectID}, KeyID: deref(o.KeyID), ID: o.ID}
	w, err := s.Wallets.Get(ctx, r.Scope, o.WalletID)
	if err != nil {
		return err
	}
	swap, err := s.swapCall(ctx, w, o, now)
	if err != nil {
		return err
	}
	tx, err := s.Wallets.CreateTransaction(ctx, s.Chain, s.Prices, wallet.NewTransaction{Scope: r.Scope, KeyID: r.KeyID, WalletID: o.WalletID,
		ID: o.SwapTxID, Req: swap, USDCents: o.USDCents}, now)
	if err != nil {
		return err
	}
	if tx.ApprovalID != nil {
		o.Status, o.ApprovalID = schema.OrderPendingApproval, tx.ApprovalID
		if _, err := s.DB.NewUpdate().Model(o).Column("status", "approval_id").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("record the approval of order %s: %w", o.ID, err)
		}
	}
	return s.approveIfShort(ctx, r, w, o, now)
}

// refuseFire ends a fired order whose swap the policy refused (or whose approve it refused: already
// recorded failed) failed with reason policy.
func (s *Service) refuseFire(ctx context.Context, o *schema.TradingOrder, e *svcerr.Error) error {
	if cur, err := s.load(ctx, s.DB, o.ID); err != nil || Final(cur.Status) {
		return err
	}
	return (&Worker{DB: s.DB, Venue: s.Venue, Ledger: s.Ledger}).failed(ctx, o, nil, client.OrderReasonPolicy, "when the order fired: "+e.Message)
}

// marketParams are the market path's parameters of order o, its swap's approval's workflow started.
func (s *Service) marketParams(ctx context.Context, o *schema.TradingOrder) (workflows.OrderParams, error) {
	p := workflows.OrderParams{OrderID: o.ID, SwapTxID: o.SwapTxID, ApproveTxID: deref(o.ApproveTxID)}
	if o.ApprovalID == nil {
		return p, nil
	}
	a, err := approval.NewStore(s.DB).ByID(ctx, *o.ApprovalID)
	if err != nil {
		return p, err
	}
	if err := approval.Start(ctx, s.Engine, a); err != nil {
		return p, err
	}
	p.ApprovalID, p.ApprovalExpiresAt = a.ID, a.ExpiresAt
	return p, nil
}

// Stop records limit or stop order s.OrderID, which never fired, cancelled (event order.cancelled) or
// expired, releasing its fee's hold; an order that has ended is left as it is.
func (w *Worker) Stop(ctx context.Context, s workflows.OrderStop) error {
	o, err := w.load(ctx, s.OrderID)
	if err != nil || Final(o.Status) {
		return err
	}
	if err := releaseHold(ctx, w.Ledger, o); err != nil {
		return err
	}
	event := ""
	switch s.Status {
	case workflows.OrderStopCancelled:
		o.Status, event = schema.OrderCancelled, outbox.OrderCancelled
	case workflows.OrderStopExpired:
		o.Status = schema.OrderExpired
	default:
		return fmt.Errorf("stop order %s: unknown status %q", o.ID, s.Status)
	}
	o.UpdatedAt = time.Now().UTC()
	return w.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return w.end(ctx, tx, o, event, nil)
	})
}
