package trading

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// SliceID is the id of a parent order's child order: derived from the parent's id and the slice's
// index (twap) or its fire's scheduled time (dca), so a slice retried or replayed is the same order.
func SliceID(s workflows.OrderSlice) string {
	if s.FireKey != "" {
		return ids.Derive(ids.TradingOrder, "dca-slice", s.ParentOrderID, s.FireKey)
	}
	return ids.Derive(ids.TradingOrder, "twap-slice", s.ParentOrderID, strconv.Itoa(s.Index))
}

// PlaceSlice records slice s of a twap or dca order as a child market order (its share of the
// order's amount: an even split, the remainder in the last slice), holds its trading fee, then records
// its wallet transactions priced afresh as a fired order's (Fire: its own slippage bound, the wallet's
// spend limits counting it now) and answers its market path. Idempotent on the child's id; nothing is
// placed once the parent has ended or every slice is placed. A slice the policy refuses, or the credits
// cannot pay the fee of, is recorded failed and answered not fired.
func (s *Service) PlaceSlice(ctx context.Context, sl workflows.OrderSlice, now time.Time) (workflows.OrderFire, error) {
	id := SliceID(sl)
	child, err := s.recordSlice(ctx, sl, id, now)
	if err != nil || child == nil || Final(child.Status) {
		return workflows.OrderFire{}, err
	}
	if err := s.hold(ctx, child); err != nil {
		if e, ok := svcerr.As(err); ok {
			return workflows.OrderFire{}, (&Worker{DB: s.DB, Venue: s.Venue}).failed(ctx, child, nil, e.Code, "the slice's trading fee: "+e.Message)
		}
		return workflows.OrderFire{}, err
	}
	return s.Fire(ctx, id, now)
}

// recordSlice inserts child order id of slice sl under the parent's row lock (nil: not placed); a
// child recorded before is answered as it is.
func (s *Service) recordSlice(ctx context.Context, sl workflows.OrderSlice, id string, now time.Time) (*schema.TradingOrder, error) {
	var child *schema.TradingOrder
	err := s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		p := new(schema.TradingOrder)
		if err := tx.NewSelect().Model(p).Where("id = ?", sl.ParentOrderID).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("read order %s: %w", sl.ParentOrderID, err)
		}
		if c, err := s.load(ctx, tx, id); err == nil {
			child = c
			return nil
		}
		n, err := tx.NewSelect().Model((*schema.TradingOrder)(nil)).Where("parent_order_id = ?", p.ID).Count(ctx)
		if err != nil {
			return fmt.Errorf("count the slices of order %s: %w", p.ID, err)
		}
		index := int(n)
		if sl.FireKey == "" {
			index = sl.Index
		}
		if Final(p.Status) || index >= derefInt(p.Slices) || (sl.FireKey != "" && p.Paused) {
			return nil
		}
		child = sliceOf(p, id, index, now)
		if _, err := tx.NewInsert().Model(child).Returning("created_at, updated_at").Exec(ctx); err != nil {
			return fmt.Errorf("record slice %d of order %s: %w", index, p.ID, err)
		}
		return nil
	})
	return child, err
}

// sliceOf is slice index of parent p as child market order id, its amounts p's shares (the remainder in
// the last slice), until it is priced afresh when its swap is recorded.
func sliceOf(p *schema.TradingOrder, id string, index int, now time.Time) *schema.TradingOrder {
	n := int64(derefInt(p.Slices))
	share := func(total string) string {
		t := bigOf(total)
		v, rem := new(big.Int).QuoRem(t, big.NewInt(n), new(big.Int))
		if int64(index) == n-1 {
			v.Add(v, rem)
		}
		if v.Sign() <= 0 {
			v.SetInt64(1)
		}
		return v.String()
	}
	c := &schema.TradingOrder{ID: id, AccountID: p.AccountID, ProjectID: p.ProjectID, KeyID: p.KeyID, WalletID: p.WalletID,
		Type: schema.OrderMarket, ParentOrderID: &p.ID, SliceIndex: &index, Status: schema.OrderOpen, Side: p.Side, Base: p.Base,
		Quote: p.Quote, AmountKind: p.AmountKind, Path: p.Path, AmountIn: share(p.AmountIn), AmountOut: share(p.AmountOut),
		Bound: share(p.Bound), SlippageBps: p.SlippageBps, FeeMillicredits: p.FeeMillicredits, SwapTxID: SwapTxID(id),
		CreatedAt: now.UTC(), UpdatedAt: now.UTC()}
	if p.USDCents != nil {
		v := *p.USDCents / n
		c.USDCents = &v
	}
	return c
}

// EndParent records twap or dca order e.OrderID's end once every child order placed has ended (errNotEnded
// until then): cancelled when its workflow took a cancel before its last slice, else filled when a slice
// filled, failed when none did; the fills' sums and gas are the children's. A dca order with slices yet
// to place is left open. Its schedule, if any, is deleted before it is recorded ended (and again on a
// retry). An order that has ended is otherwise left as it is.
func (s *Service) EndParent(ctx context.Context, e workflows.ParentEnd) error {
	o, err := s.load(ctx, s.DB, e.OrderID)
	if err != nil {
		return err
	}
	if Final(o.Status) {
		return s.dropSchedule(ctx, o)
	}
	children, err := s.children(ctx, o.ID)
	if err != nil {
		return err
	}
	for i := range children {
		if !Final(children[i].Status) {
			return errNotEnded
		}
	}
	status, reason := schema.OrderCancelled, ""
	switch {
	case e.Cancelled && len(children) < derefInt(o.Slices):
	case len(children) < derefInt(o.Slices) && o.Type == schema.OrderDCA:
		return nil
	case filledCount(children) > 0:
		status = schema.OrderFilled
	default:
		status, reason = schema.OrderFailed, "no_fill"
	}
	// The schedule goes first, so an order that reads ended has none left (a retry after a crash
	// between the two finds it gone, which is fine).
	if err := s.dropSchedule(ctx, o); err != nil {
		return err
	}
	return s.endParent(ctx, o, status, reason)
}

// dropSchedule deletes dca order o's schedule (nothing for a twap order, or without a schedule client).
func (s *Service) dropSchedule(ctx context.Context, o *schema.TradingOrder) error {
	if o.Type != schema.OrderDCA || s.Schedules == nil {
		return nil
	}
	return s.deleteSchedule(ctx, o.ID)
}

// endParent records parent o ended in status with its children's sums (and event order.<status>).
func (s *Service) endParent(ctx context.Context, o *schema.TradingOrder, status, reason string) error {
	children, err := s.children(ctx, o.ID)
	if err != nil {
		return err
	}
	in, out, gas := new(big.Int), new(big.Int), new(big.Int)
	for _, c := range children {
		if c.Status == schema.OrderFilled && c.FilledIn != nil && c.FilledOut != nil {
			in.Add(in, bigOf(*c.FilledIn))
			out.Add(out, bigOf(*c.FilledOut))
		}
		if c.GasWei != nil {
			gas.Add(gas, bigOf(*c.GasWei))
		}
	}
	now := time.Now().UTC()
	o.Status, o.GasWei, o.UpdatedAt = status, strPtr(gas.String()), now
	if in.Sign() > 0 {
		o.FilledIn, o.FilledOut, o.FilledAt = strPtr(in.String()), strPtr(out.String()), &now
	}
	event := map[string]string{schema.OrderFilled: outbox.OrderFilled, schema.OrderFailed: outbox.OrderFailed, schema.OrderCancelled: outbox.OrderCancelled}[status]
	if reason != "" {
		msg := "no slice of the order filled"
		o.FailureReason, o.ErrorMessage = &reason, &msg
	}
	w := &Worker{DB: s.DB, Venue: s.Venue}
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return w.end(ctx, tx, o, event, nil)
	})
}

// children are parent id's child orders by slice.
func (s *Service) children(ctx context.Context, id string) ([]schema.TradingOrder, error) {
	var rows []schema.TradingOrder
	if err := s.DB.NewSelect().Model(&rows).Where("parent_order_id = ?", id).OrderExpr("slice_index").Scan(ctx); err != nil {
		return nil, fmt.Errorf("read the slices of order %s: %w", id, err)
	}
	return rows, nil
}

func filledCount(children []schema.TradingOrder) int {
	n := 0
	for _, c := range children {
		if c.Status == schema.OrderFilled {
			n++
		}
	}
	return n
}

// scoped reads the scope's order id (another account's is not found).
func (s *Service) scoped(ctx context.Context, scope tenant.Scope, id string) (*schema.TradingOrder, error) {
	o := new(schema.TradingOrder)
	err := scope.Where(s.DB.NewSelect().Model(o)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("order %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read order %s: %w", id, err)
	}
	return o, nil
}

// cancelParent stops twap or dca order o's future slices: a twap order's workflow takes the cancel
// signal (the order reads cancelled once it has recorded it, after its slices in flight end); a dca
// order's schedule is deleted and the order recorded cancelled. Filled slices stay recorded. An order
// with every slice placed is a 409.
func (s *Service) cancelParent(ctx context.Context, o *schema.TradingOrder) error {
	n, err := s.DB.NewSelect().Model((*schema.TradingOrder)(nil)).Where("parent_order_id = ?", o.ID).Count(ctx)
	if err != nil {
		return fmt.Errorf("count the slices of order %s: %w", o.ID, err)
	}
	if Final(o.Status) || int(n) >= derefInt(o.Slices) {
		return svcerr.New(svcerr.Conflict, "order %s has placed every slice or ended (%s): it cannot be cancelled", o.ID, o.Status)
	}
	if o.Type == schema.OrderDCA {
		return s.cancelDCA(ctx, o)
	}
	if s.Signals == nil {
		return svcerr.New(svcerr.Unavailable, "this server cannot signal workflows")
	}
	if err := s.Signals.SignalWorkflow(ctx, workflows.OrderWorkflowID(o.ID), "", workflows.OrderCancelSignal, nil); err != nil {
		return svcerr.New(svcerr.Unavailable, "the order's workflow did not take the cancel: %v", err)
	}
	return nil
}

// tally counts children into p (ids, filled, failed) and answers what the filled ones paid and received.
func tally(p *client.OrderProgress, children []schema.TradingOrder) (*big.Int, *big.Int) {
	p.ChildOrderIDs = make([]string, 0, len(children))
	sumIn, sumOut := new(big.Int), new(big.Int)
	for _, c := range children {
		p.ChildOrderIDs = append(p.ChildOrderIDs, c.ID)
		switch {
		case c.Status == schema.OrderFilled && c.FilledIn != nil && c.FilledOut != nil:
			p.SlicesFilled++
			sumIn.Add(sumIn, bigOf(*c.FilledIn))
			sumOut.Add(sumOut, bigOf(*c.FilledOut))
		case Final(c.Status):
			p.SlicesFailed++
		}
	}
	return sumIn, sumOut
}

// progress is parent o's progress over its child orders.
func (s *Service) progress(ctx context.Context, o *schema.TradingOrder) (*client.OrderProgress, error) {
	children, err := s.children(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	in, out := legs(o, s.Venue.Config)
	exact, total := in, bigOf(o.AmountIn)
	if o.AmountKind == client.AmountExactOut {
		exact, total = out, bigOf(o.AmountOut)
	}
	p := &client.OrderProgress{SlicesTotal: derefInt(o.Slices), SlicesPlaced: len(children), Paused: o.Paused}
	sumIn, sumOut := tally(p, children)
	filled := sumIn
	if o.AmountKind == client.AmountExactOut {
		filled = sumOut
	}
	p.AveragePrice = priceOf(o.Side, in, out, sumIn, sumOut)
	p.AmountFilled = wallet.FormatUnits(filled, exact.Decimals)
	left := new(big.Int).Sub(total, filled)
	if left.Sign() < 0 {
		left.SetInt64(0)
	}
	p.AmountRemaining = wallet.FormatUnits(left, exact.Decimals)
	if o.Type == schema.OrderDCA {
		p.NextFireAt = s.nextFire(ctx, o)
	}
	return p, nil
}
