package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/trading"
)

// tradingAPI serves managed spot trading (issue 21; service access managed-trading): quotes and market
// orders from managed wallets.
type tradingAPI struct {
	trading *trading.Service
	daily   dailyCredits
}

var errNoTrading = svcerr.New(svcerr.Unavailable, "managed trading is not configured here (managed wallets, a chain and a workflow engine)")

type tradingQuoteInput struct {
	Body client.TradingQuoteRequest
}

// quote prices a trade from a wallet and judges it by the wallet's policy, moving nothing.
func (ta *tradingAPI) quote(ctx context.Context, in *tradingQuoteInput) (*Out[client.TradingQuoteEnvelope], error) {
	if ta.trading == nil {
		return nil, errNoTrading
	}
	q, err := ta.trading.Quote(ctx, principalFrom(ctx).Scope, newID(ctx, ids.Quote), in.Body, time.Now())
	if err != nil {
		return nil, err
	}
	return reply(client.TradingQuoteEnvelope{OK: true, Quote: q})
}

type placeOrderInput struct {
	Body client.CreateOrderRequest
}

type orderOut struct {
	Status int
	Body   client.TradingOrderEnvelope
}

// place records an order (market, limit, stop, twap or dca) and starts its workflow order/<id> (a dca
// order: its schedule): 202 with the order. Its trading fee (a twap or dca order's: one per slice)
// counts against creditsPerDay on trading.orders.create when it is placed.
func (ta *tradingAPI) place(ctx context.Context, in *placeOrderInput) (*orderOut, error) {
	if ta.trading == nil {
		return nil, errNoTrading
	}
	p := principalFrom(ctx)
	if p.Key != nil {
		// The swap is a call of the router: a key's recipient allowlist must allow it.
		if err := apikey.CheckRecipient(p.Key, ta.trading.Venue.Config.Router.Hex()); err != nil {
			return nil, err
		}
	}
	fee := ta.trading.FeeMillicredits
	if trading.IsParent(in.Body.Type) && in.Body.Slices > 0 && in.Body.Slices <= trading.MaxSlices {
		fee *= int64(in.Body.Slices) // what its slices may charge, each when it fills
	}
	daily, err := ta.daily.reserve(ctx, p, client.OpTradingOrdersCreate, client.ServiceManagedTrading, client.OpTradingOrdersCreate, fee)
	if err != nil {
		return nil, err
	}
	r := trading.Request{Scope: p.Scope, ID: newID(ctx, ids.TradingOrder), Body: in.Body}
	if p.Key != nil {
		r.KeyID = p.Key.ID
	}
	o, err := ta.trading.Place(ctx, r, time.Now())
	if err != nil {
		ta.daily.release(ctx, daily, fee)
		return nil, err
	}
	v, err := ta.trading.View(ctx, o)
	if err != nil {
		return nil, err
	}
	return &orderOut{Status: http.StatusAccepted, Body: client.TradingOrderEnvelope{OK: true, Order: v}}, nil
}

type orderIDInput struct {
	OrderID string `path:"orderId" maxLength:"200" doc:"The order (ord_…)."`
}

// get reads one of the account's orders with its fills.
func (ta *tradingAPI) get(ctx context.Context, in *orderIDInput) (*Out[client.TradingOrderEnvelope], error) {
	if ta.trading == nil {
		return nil, errNoTrading
	}
	o, err := ta.trading.Order(ctx, principalFrom(ctx).Scope, in.OrderID)
	if err != nil {
		return nil, err
	}
	return reply(client.TradingOrderEnvelope{OK: true, Order: o})
}

type listOrdersInput struct {
	PageQuery
	Status   string `query:"status" enum:"pending_approval,open,submitted,filled,failed,cancelled,expired" doc:"Only orders in this status (as stored: a running order is open or pending_approval)."`
	WalletID string `query:"walletId" maxLength:"200" doc:"Only orders of this wallet."`
	Pair     string `query:"pair" maxLength:"130" doc:"Only orders of this pair, BASE/QUOTE (ETH/USDC)."`
}

// list lists the account's orders, newest first.
func (ta *tradingAPI) list(ctx context.Context, in *listOrdersInput) (*Out[client.TradingOrderList], error) {
	if ta.trading == nil {
		return nil, errNoTrading
	}
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	orders, next, err := ta.trading.Orders(ctx, principalFrom(ctx).Scope, trading.OrderFilter{Status: in.Status, WalletID: in.WalletID, Pair: in.Pair}, pg)
	if err != nil {
		return nil, err
	}
	return reply(client.TradingOrderList{OK: true, Orders: orders, NextCursor: next})
}

// cancel cancels one of the account's limit or stop orders that has not fired: 202 with the order, which
// reads cancelled once its workflow has recorded it (event order.cancelled).
func (ta *tradingAPI) cancel(ctx context.Context, in *orderIDInput) (*orderOut, error) {
	if ta.trading == nil {
		return nil, errNoTrading
	}
	o, err := ta.trading.Cancel(ctx, principalFrom(ctx).Scope, in.OrderID)
	if err != nil {
		return nil, err
	}
	return &orderOut{Status: http.StatusAccepted, Body: client.TradingOrderEnvelope{OK: true, Order: o}}, nil
}

// pause pauses one of the account's dca orders: its schedule places no slice until it is resumed.
func (ta *tradingAPI) pause(ctx context.Context, in *orderIDInput) (*Out[client.TradingOrderEnvelope], error) {
	return ta.pauseOrResume(ctx, in.OrderID, true)
}

// resume resumes one of the account's paused dca orders.
func (ta *tradingAPI) resume(ctx context.Context, in *orderIDInput) (*Out[client.TradingOrderEnvelope], error) {
	return ta.pauseOrResume(ctx, in.OrderID, false)
}

func (ta *tradingAPI) pauseOrResume(ctx context.Context, id string, paused bool) (*Out[client.TradingOrderEnvelope], error) {
	if ta.trading == nil {
		return nil, errNoTrading
	}
	o, err := ta.trading.Pause(ctx, principalFrom(ctx).Scope, id, paused)
	if err != nil {
		return nil, err
	}
	return reply(client.TradingOrderEnvelope{OK: true, Order: o})
}

// routes are the trading routes.
func (ta *tradingAPI) routes() []Route {
	const tag = "Trading"
	r := func(rt Route, scope client.Scope) Route {
		rt.Tag, rt.Auth, rt.Scope, rt.Service = tag, authKey, scope, client.ServiceManagedTrading
		return rt
	}
	return []Route{
		handle(r(Route{Op: client.OpTradingQuotesCreate, Method: http.MethodPost, Path: "/v1/trading/quotes", Idem: true, Reads: true,
			Summary: "Quote a swap from a managed wallet: the router's amounts at a stated block, the bound after slippage, price, impact, fees and the policy's verdict"},
			client.ScopeTradingExecute), ta.quote),
		handle(r(Route{Op: client.OpTradingOrdersCreate, Method: http.MethodPost, Path: "/v1/trading/orders", Idem: true, Status: http.StatusAccepted,
			Lease:   time.Minute,
			Summary: "Place an order ({quoteId} or its own fields; type market, limit, stop, twap or dca): the workflow order/<id> approves the router when needed, swaps and records the fills (twap and dca: one child order per slice)"},
			client.ScopeTradingExecute), ta.place),
		handle(r(Route{Op: client.OpTradingOrdersList, Method: http.MethodGet, Path: "/v1/trading/orders",
			Summary: "List the account's orders, newest first (filters: status, walletId, pair)"}, client.ScopeTradingRead), ta.list),
		handle(r(Route{Op: client.OpTradingOrdersRead, Method: http.MethodGet, Path: "/v1/trading/orders/{orderId}",
			Summary: "Read an order: status, fills, transaction hashes, approval, gas and fee"}, client.ScopeTradingRead), ta.get),
		handle(r(Route{Op: client.OpTradingOrdersCancel, Method: http.MethodPost, Path: "/v1/trading/orders/{orderId}/cancel", Idem: true,
			Status:  http.StatusAccepted,
			Summary: "Cancel a limit or stop order that has not fired (its fee's hold released), or a twap or dca order's future slices (filled slices kept) (order.cancelled)"},
			client.ScopeTradingExecute), ta.cancel),
		handle(r(Route{Op: client.OpTradingOrdersPause, Method: http.MethodPost, Path: "/v1/trading/orders/{orderId}/pause", Idem: true,
			Summary: "Pause a dca order's schedule: no slice is placed until it is resumed"}, client.ScopeTradingExecute), ta.pause),
		handle(r(Route{Op: client.OpTradingOrdersResume, Method: http.MethodPost, Path: "/v1/trading/orders/{orderId}/resume", Idem: true,
			Summary: "Resume a paused dca order's schedule"}, client.ScopeTradingExecute), ta.resume),
	}
}
