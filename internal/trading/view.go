package trading

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Order reads the scope's order id as the API shows it (another account's is not found).
func (s *Service) Order(ctx context.Context, scope tenant.Scope, id string) (client.TradingOrder, error) {
	o := new(schema.TradingOrder)
	err := scope.Where(s.DB.NewSelect().Model(o)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return client.TradingOrder{}, svcerr.NotFoundf("order %s not found", id)
	}
	if err != nil {
		return client.TradingOrder{}, fmt.Errorf("read order %s: %w", id, err)
	}
	return s.View(ctx, o)
}

// OrderFilter narrows Orders.
type OrderFilter struct {
	Status, WalletID string
	// Pair is BASE/QUOTE.
	Pair string
}

// Orders lists the scope's orders, newest first, a page at a time.
func (s *Service) Orders(ctx context.Context, scope tenant.Scope, f OrderFilter, pg page.Params) ([]client.TradingOrder, *string, error) {
	rows := []schema.TradingOrder{}
	q := scope.Where(s.DB.NewSelect().Model(&rows))
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.WalletID != "" {
		q = q.Where("wallet_id = ?", f.WalletID)
	}
	if f.Pair != "" {
		base, quote, ok := strings.Cut(f.Pair, "/")
		if !ok || base == "" || quote == "" {
			return nil, nil, svcerr.Invalid("pair", "pair is BASE/QUOTE, such as ETH/USDC")
		}
		q = q.Where("upper(base) = upper(?) AND upper(quote) = upper(?)", base, quote)
	}
	if pg.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", pg.After.CreatedAt, pg.After.ID)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(pg.Limit + 1)).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list orders: %w", err)
	}
	rows, next := page.Next(pg, rows, func(o schema.TradingOrder) page.Cursor { return page.Cursor{CreatedAt: o.CreatedAt, ID: o.ID} })
	out := make([]client.TradingOrder, 0, len(rows))
	for i := range rows {
		v, err := s.View(ctx, &rows[i])
		if err != nil {
			return nil, nil, err
		}
		out = append(out, v)
	}
	return out, next, nil
}

// View is order o as the API shows it: with its fills, and, while it runs, the status its swap is in
// (submitted once the swap is signed; open again once its approval is granted).
func (s *Service) View(ctx context.Context, o *schema.TradingOrder) (client.TradingOrder, error) {
	fills := []schema.TradingFill{}
	if err := s.DB.NewSelect().Model(&fills).Where("order_id = ?", o.ID).OrderExpr("log_index").Scan(ctx); err != nil {
		return client.TradingOrder{}, fmt.Errorf("read the fills of %s: %w", o.ID, err)
	}
	out := ToWire(o, fills, s.Venue.Config)
	if IsParent(o.Type) {
		p, err := s.progress(ctx, o)
		if err != nil {
			return client.TradingOrder{}, err
		}
		out.Progress, out.FeeCredits = p, float64(o.FeeMillicredits)*float64(p.SlicesFilled)/1000
		return out, nil
	}
	if Final(o.Status) {
		return out, nil
	}
	t := new(schema.WalletTransaction)
	if err := s.DB.NewSelect().Model(t).Column("status", "tx_hash").Where("id = ?", o.SwapTxID).Scan(ctx); err != nil {
		return out, nil // the swap is being recorded
	}
	switch {
	case t.TxHash != nil:
		out.Status, out.TxHashes = client.OrderSubmitted, append(out.TxHashes, *t.TxHash)
	case t.Status == schema.WalletTxQueued:
		out.Status = client.OrderOpen
	}
	return out, nil
}

// perSlice is dca order o's amount per slice, of the token its amount names.
func perSlice(o *schema.TradingOrder, in, out Token) string {
	exact, total := in, bigOf(o.AmountIn)
	if o.AmountKind == client.AmountExactOut {
		exact, total = out, bigOf(o.AmountOut)
	}
	return wallet.FormatUnits(new(big.Int).Quo(total, big.NewInt(int64(max(derefInt(o.Slices), 1)))), exact.Decimals)
}

// ToWire is order o with its fills as the API shows it.
func ToWire(o *schema.TradingOrder, fills []schema.TradingFill, cfg Config) client.TradingOrder {
	in, out := legs(o, cfg)
	v := client.TradingOrder{ID: o.ID, Type: o.Type, ParentOrderID: o.ParentOrderID, WalletID: o.WalletID, QuoteID: o.QuoteID, Status: o.Status,
		Side: o.Side, Base: o.Base, Quote: o.Quote, AmountKind: o.AmountKind, SlippageBps: o.SlippageBps, Path: o.Path, TokenIn: in.Symbol,
		TokenOut: out.Symbol, AmountIn: wallet.FormatUnits(bigOf(o.AmountIn), in.Decimals), AmountOut: wallet.FormatUnits(bigOf(o.AmountOut), out.Decimals),
		USDValue: usd(o.USDCents), FeeCredits: float64(o.FeeMillicredits) / 1000, ApprovalID: o.ApprovalID, ApproveTransactionID: o.ApproveTxID,
		SwapTransactionID: o.SwapTxID, TxHashes: []string{}, Fills: make([]client.TradingFill, 0, len(fills)), WorkflowID: workflows.OrderWorkflowID(o.ID),
		CreatedAt: o.CreatedAt.UTC(), UpdatedAt: o.UpdatedAt.UTC(), FilledAt: o.FilledAt, FailureReason: deref(o.FailureReason)}
	v.ExpiresAt, v.Slices, v.SliceIndex = o.ExpiresAt, derefInt(o.Slices), o.SliceIndex
	if o.DurationMS != nil {
		v.Duration = (time.Duration(*o.DurationMS) * time.Millisecond).String()
	}
	if o.Type == schema.OrderDCA {
		v.Every = deref(o.Every)
		v.AmountPerSlice = perSlice(o, in, out)
	}
	switch o.Type {
	case schema.OrderLimit:
		v.LimitPrice = deref(o.TriggerPrice)
	case schema.OrderStop:
		v.StopPrice = deref(o.TriggerPrice)
	}
	if o.AmountKind == client.AmountExactIn {
		v.MinimumReceived = wallet.FormatUnits(bigOf(o.Bound), out.Decimals)
	} else {
		v.MaximumPaid = wallet.FormatUnits(bigOf(o.Bound), in.Decimals)
	}
	if o.SwapTxHash != nil {
		v.TxHashes = append(v.TxHashes, *o.SwapTxHash)
	}
	for _, f := range fills {
		v.Fills = append(v.Fills, client.TradingFill{Pair: f.Pair, TokenIn: f.TokenIn, TokenOut: f.TokenOut, AmountIn: f.AmountIn,
			AmountOut: f.AmountOut, TxHash: f.TxHash, LogIndex: f.LogIndex, BlockNumber: f.BlockNumber})
	}
	if o.FilledIn != nil && o.FilledOut != nil {
		v.FilledIn, v.FilledOut = wallet.FormatUnits(bigOf(*o.FilledIn), in.Decimals), wallet.FormatUnits(bigOf(*o.FilledOut), out.Decimals)
		v.AveragePrice = priceOf(o.Side, in, out, bigOf(*o.FilledIn), bigOf(*o.FilledOut))
	}
	if o.GasWei != nil {
		v.GasWei = *o.GasWei
	}
	if o.ErrorMessage != nil {
		v.Error = &client.RunError{Code: deref(o.FailureReason), Message: *o.ErrorMessage}
	}
	return v
}
