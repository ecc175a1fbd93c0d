package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Sides and amount kinds of a trade.
const (
	SideBuy        = "buy"
	SideSell       = "sell"
	AmountExactIn  = "exact_in"
	AmountExactOut = "exact_out"
)

// Statuses of a trading order.
const (
	OrderPendingApproval = "pending_approval"
	OrderOpen            = "open"
	OrderSubmitted       = "submitted"
	OrderFilled          = "filled"
	OrderFailed          = "failed"
	OrderCancelled       = "cancelled"
	OrderExpired         = "expired"
)

// Failure reasons of a trading order (TradingOrder.FailureReason).
const (
	// OrderReasonSlippage: the pool moved past the order's minimum received (or maximum paid).
	OrderReasonSlippage = "slippage"
	// OrderReasonPolicy: the wallet's policy refused the swap, or the wallet was paused.
	OrderReasonPolicy = "policy"
	// OrderReasonDeadline: the swap reached the chain after its deadline.
	OrderReasonDeadline = "deadline"
	// OrderReasonApproveFailed: the ERC-20 approve of the router failed, so no swap was sent.
	OrderReasonApproveFailed = "approve_failed"
)

// TradingQuoteRequest is the body of POST /v1/trading/quotes. amount is in the unit of the side that is
// exact: exact_in counts what the wallet pays (the quote token when buying, the base when selling),
// exact_out what it receives.
type TradingQuoteRequest struct {
	WalletID    string `json:"walletId" maxLength:"200" doc:"The managed wallet that trades (wal_…)."`
	Side        string `json:"side" doc:"buy (base for quote) or sell (base for quote)."`
	Base        string `json:"base" maxLength:"64" doc:"The token bought or sold: a symbol of the token list (ETH, WETH, USDC, DEV on the dev chain) or its address."`
	Quote       string `json:"quote" maxLength:"64" doc:"The token paid with or received."`
	Amount      string `json:"amount" maxLength:"100" doc:"A decimal string in the exact side's token."`
	AmountKind  string `json:"amountKind" doc:"exact_in or exact_out."`
	SlippageBps *int   `json:"slippageBps,omitempty" doc:"Tolerated slippage in basis points, 0 to 5000 (default 50)."`
}

// TradingFee is what a trade costs besides gas: the pools' LP fee (taken from what is paid) and the
// platform's trading fee in credits, charged once when the order fills.
type TradingFee struct {
	LPFeeBps          int     `json:"lpFeeBps" doc:"The LP fee of the route: 30 basis points per pool."`
	LPFee             string  `json:"lpFee" doc:"The LP fee in the token paid."`
	LPFeeToken        string  `json:"lpFeeToken"`
	TradingFeeCredits float64 `json:"tradingFeeCredits" doc:"The platform's fee per order, from the pricing catalog."`
}

// TradingQuote is a priced swap: what the router answered at Block, the bound after slippage and the
// wallet policy's verdict. Send its quoteId to POST /v1/trading/orders before expiresAt.
type TradingQuote struct {
	ID          string   `json:"quoteId" doc:"quo_…"`
	WalletID    string   `json:"walletId"`
	Side        string   `json:"side"`
	Base        string   `json:"base"`
	Quote       string   `json:"quote"`
	AmountKind  string   `json:"amountKind"`
	SlippageBps int      `json:"slippageBps"`
	Path        []string `json:"path" doc:"The token addresses the swap goes through."`
	TokenIn     string   `json:"tokenIn" doc:"The token the wallet pays."`
	TokenOut    string   `json:"tokenOut" doc:"The token the wallet receives."`
	AmountIn    string   `json:"amountIn" doc:"Expected payment (exact for exact_in)."`
	AmountOut   string   `json:"amountOut" doc:"Expected receipt (exact for exact_out)."`
	// MinimumReceived (exact_in) or MaximumPaid (exact_out) is the bound the swap is sent with.
	MinimumReceived string        `json:"minimumReceived,omitempty"`
	MaximumPaid     string        `json:"maximumPaid,omitempty"`
	Price           string        `json:"price" doc:"Quote token per base token at the expected amounts."`
	PriceImpactBps  int           `json:"priceImpactBps" doc:"How far the expected price is from the pools' mid price, LP fee aside."`
	Fee             TradingFee    `json:"fee"`
	USDValue        *float64      `json:"usdValue" doc:"The trade's USD value (nil when no price is known)."`
	Verdict         PolicyVerdict `json:"verdict" doc:"The wallet policy's verdict on a swap of this value."`
	Block           int64         `json:"block" doc:"The block the router priced the swap at."`
	ExpiresAt       time.Time     `json:"expiresAt"`
}

// TradingQuoteEnvelope answers POST /v1/trading/quotes.
type TradingQuoteEnvelope struct {
	OK    bool         `json:"ok"`
	Quote TradingQuote `json:"quote"`
}

// CreateOrderRequest is the body of POST /v1/trading/orders: a quoteId, or a full market order (the
// quote request's fields, priced afresh).
type CreateOrderRequest struct {
	QuoteID     string `json:"quoteId,omitempty" maxLength:"200" doc:"A quote (quo_…) of POST /v1/trading/quotes, unexpired."`
	WalletID    string `json:"walletId,omitempty" maxLength:"200"`
	Side        string `json:"side,omitempty"`
	Base        string `json:"base,omitempty" maxLength:"64"`
	Quote       string `json:"quote,omitempty" maxLength:"64"`
	Amount      string `json:"amount,omitempty" maxLength:"100"`
	AmountKind  string `json:"amountKind,omitempty"`
	SlippageBps *int   `json:"slippageBps,omitempty"`
	// Type is market (the default), limit (also implied by limitPrice) or stop.
	Type string `json:"type,omitempty" enum:"market,limit,stop,twap,dca" doc:"market (default), limit (implied by limitPrice), stop (needs stopPrice), twap (duration, slices) or dca (every, slices, amountPerSlice)."`
	// LimitPrice makes a limit order: it fills once the pool's price for its amount is at or better
	// than this (quote token per base token: at most this for a buy, at least for a sell).
	LimitPrice string `json:"limitPrice,omitempty" maxLength:"80" doc:"A limit order's price, quote token per base token: it fills once the pool's price for its amount is at or below it (buy) or at or above it (sell)."`
	// StopPrice makes a stop order fire once the pool's price crosses it (at or above for a buy, at
	// or below for a sell).
	StopPrice string `json:"stopPrice,omitempty" maxLength:"80" doc:"A stop order's price, quote token per base token: a market order fires once the pool's price reaches it (at or above for a buy, at or below for a sell)."`
	// ExpiresAt is when a limit or stop order that has not fired expires (default 24 hours, at most 30 days).
	ExpiresAt *time.Time `json:"expiresAt,omitempty" doc:"When a limit or stop order that has not fired expires (default: in 24 hours; at most 30 days ahead)."`
	// Duration is a twap order's duration, a Go duration ("8s", "1h30m"): its slices are placed
	// duration/slices apart, the first at once.
	Duration string `json:"duration,omitempty" maxLength:"40" doc:"A twap order's duration, a Go duration such as 30m or 1h30m: its slices are placed duration/slices apart, the first at once (at least 1s per slice, at most 7 days)."`
	// Slices is a twap or dca order's number of child orders (1 to 100).
	Slices int `json:"slices,omitempty" doc:"A twap or dca order's number of child orders, 1 to 100."`
	// Every is a dca order's interval: a Go duration of at least a minute ("1h") or a 5-field cron
	// expression ("0 9 * * 1").
	Every string `json:"every,omitempty" maxLength:"100" doc:"A dca order's interval: a Go duration of at least 1m (1h, 24h) or a 5-field cron expression (0 9 * * 1, UTC)."`
	// AmountPerSlice is a dca order's amount per child order (amount is left out).
	AmountPerSlice string `json:"amountPerSlice,omitempty" maxLength:"100" doc:"A dca order's amount per child order, of the token amountKind names (amount is left out)."`
}

// Types of a trading order (TradingOrder.Type, CreateOrderRequest.Type).
const (
	OrderTypeMarket = "market"
	OrderTypeLimit  = "limit"
	OrderTypeStop   = "stop"
	// OrderTypeTWAP splits its amount into slices placed at even intervals (child orders).
	OrderTypeTWAP = "twap"
	// OrderTypeDCA places one slice at each fire of its schedule (child orders).
	OrderTypeDCA = "dca"
)

// OrderProgress is a twap or dca order's progress over its child orders.
type OrderProgress struct {
	SlicesTotal  int `json:"slicesTotal"`
	SlicesPlaced int `json:"slicesPlaced"`
	SlicesFilled int `json:"slicesFilled"`
	SlicesFailed int `json:"slicesFailed"`
	// AveragePrice is quote token per base token over the filled children's fills.
	AveragePrice string `json:"averagePrice,omitempty" doc:"Quote token per base token over the filled child orders."`
	// AmountFilled and AmountRemaining are of the token the order's amount names (amountKind).
	AmountFilled    string   `json:"amountFilled" doc:"What the filled child orders paid (exact_in) or received (exact_out)."`
	AmountRemaining string   `json:"amountRemaining" doc:"The order's amount less the filled child orders' amounts."`
	ChildOrderIDs   []string `json:"childOrderIds"`
	// Paused says a dca order's schedule is paused; NextFireAt is its next fire while it runs.
	Paused     bool       `json:"paused"`
	NextFireAt *time.Time `json:"nextFireAt,omitempty"`
}

// TradingFill is one pool's part of an order's swap: a pair's Swap event.
type TradingFill struct {
	Pair        string `json:"pair"`
	TokenIn     string `json:"tokenIn"`
	TokenOut    string `json:"tokenOut"`
	AmountIn    string `json:"amountIn"`
	AmountOut   string `json:"amountOut"`
	TxHash      string `json:"txHash"`
	LogIndex    int    `json:"logIndex"`
	BlockNumber int64  `json:"blockNumber"`
}

// TradingOrder is a spot order run by workflow order/<id>.
type TradingOrder struct {
	ID                   string         `json:"id" doc:"ord_…"`
	Type                 string         `json:"type" doc:"market, limit, stop, twap or dca."`
	Duration             string         `json:"duration,omitempty" doc:"A twap order's duration."`
	Slices               int            `json:"slices,omitempty" doc:"A twap or dca order's number of child orders."`
	Every                string         `json:"every,omitempty" doc:"A dca order's interval (Go duration or cron)."`
	AmountPerSlice       string         `json:"amountPerSlice,omitempty" doc:"A dca order's amount per child order."`
	Progress             *OrderProgress `json:"progress,omitempty" doc:"A twap or dca order's child orders: slices placed, filled and failed, average price, amounts filled and remaining."`
	SliceIndex           *int           `json:"sliceIndex,omitempty" doc:"A child order's place among its parent's, from 0."`
	LimitPrice           string         `json:"limitPrice,omitempty" doc:"A limit order's price, quote token per base token."`
	StopPrice            string         `json:"stopPrice,omitempty" doc:"A stop order's price, quote token per base token."`
	ExpiresAt            *time.Time     `json:"expiresAt,omitempty" doc:"When a limit or stop order that has not fired expires."`
	ParentOrderID        *string        `json:"parentOrderId,omitempty"`
	WalletID             string         `json:"walletId"`
	QuoteID              *string        `json:"quoteId,omitempty"`
	Status               string         `json:"status" enum:"pending_approval,open,submitted,filled,failed,cancelled,expired"`
	Side                 string         `json:"side"`
	Base                 string         `json:"base"`
	Quote                string         `json:"quote"`
	AmountKind           string         `json:"amountKind"`
	SlippageBps          int            `json:"slippageBps"`
	Path                 []string       `json:"path"`
	TokenIn              string         `json:"tokenIn"`
	TokenOut             string         `json:"tokenOut"`
	AmountIn             string         `json:"amountIn" doc:"Expected payment when placed."`
	AmountOut            string         `json:"amountOut" doc:"Expected receipt when placed."`
	MinimumReceived      string         `json:"minimumReceived,omitempty"`
	MaximumPaid          string         `json:"maximumPaid,omitempty"`
	USDValue             *float64       `json:"usdValue"`
	FeeCredits           float64        `json:"feeCredits" doc:"The trading fee, charged once when the order fills."`
	ApprovalID           *string        `json:"approvalId,omitempty"`
	ApproveTransactionID *string        `json:"approveTransactionId,omitempty" doc:"The wallet transaction approving the router, when the allowance was short."`
	SwapTransactionID    string         `json:"swapTransactionId"`
	TxHashes             []string       `json:"txHashes"`
	Fills                []TradingFill  `json:"fills"`
	FilledIn             string         `json:"filledIn,omitempty"`
	FilledOut            string         `json:"filledOut,omitempty"`
	AveragePrice         string         `json:"averagePrice,omitempty" doc:"Quote token per base token over the fills."`
	GasWei               string         `json:"gasWei,omitempty" doc:"Gas paid by the approve and the swap."`
	FailureReason        string         `json:"failureReason,omitempty" doc:"slippage, policy, deadline, approve_failed, approval_rejected, approval_expired, reverted, …"`
	Error                *RunError      `json:"error,omitempty"`
	WorkflowID           string         `json:"workflowId"`
	CreatedAt            time.Time      `json:"createdAt"`
	UpdatedAt            time.Time      `json:"updatedAt"`
	FilledAt             *time.Time     `json:"filledAt,omitempty"`
}

// TradingOrderEnvelope answers the order routes.
type TradingOrderEnvelope struct {
	OK    bool         `json:"ok"`
	Order TradingOrder `json:"order"`
}

// TradingOrderList answers GET /v1/trading/orders.
type TradingOrderList struct {
	OK         bool           `json:"ok"`
	Orders     []TradingOrder `json:"orders"`
	NextCursor *string        `json:"nextCursor"`
}

// OrderFilter narrows GET /v1/trading/orders.
type OrderFilter struct {
	ListParams
	Status   string
	WalletID string
	// Pair is "BASE/QUOTE" (symbols as the orders name them).
	Pair string
}

// QuoteTrade prices a swap from a managed wallet, POST /v1/trading/quotes (scope trading:execute).
func (c *Client) QuoteTrade(ctx context.Context, r TradingQuoteRequest, opts ...CallOption) Response[TradingQuoteEnvelope] {
	return send[TradingQuoteEnvelope](ctx, c, call{method: http.MethodPost, path: "/trading/quotes", body: r, auth: authKey, idem: true, opts: opts})
}

// PlaceOrder places a market order, POST /v1/trading/orders (202 while its workflow runs).
func (c *Client) PlaceOrder(ctx context.Context, r CreateOrderRequest, opts ...CallOption) Response[TradingOrderEnvelope] {
	return send[TradingOrderEnvelope](ctx, c, call{method: http.MethodPost, path: "/trading/orders", body: r, auth: authKey, idem: true, opts: opts})
}

// Order reads one of the account's orders, GET /v1/trading/orders/{orderId} (scope trading:read).
func (c *Client) Order(ctx context.Context, id string) Response[TradingOrderEnvelope] {
	if id == "" {
		return invalidArg[TradingOrderEnvelope]("orderId", "the order id is empty")
	}
	return send[TradingOrderEnvelope](ctx, c, call{method: http.MethodGet, path: "/trading/orders/" + url.PathEscape(id), auth: authKey})
}

// CancelOrder cancels an open limit or stop order that has not fired, or a twap or dca order's future
// slices (filled ones kept), POST /v1/trading/orders/{orderId}/cancel (202; a limit, stop or twap order
// reads cancelled once its workflow has stopped, a dca order at once).
func (c *Client) CancelOrder(ctx context.Context, id string, opts ...CallOption) Response[TradingOrderEnvelope] {
	if id == "" {
		return invalidArg[TradingOrderEnvelope]("orderId", "the order id is empty")
	}
	return send[TradingOrderEnvelope](ctx, c, call{method: http.MethodPost, path: "/trading/orders/" + url.PathEscape(id) + "/cancel",
		auth: authKey, idem: true, opts: opts})
}

// PauseOrder pauses a dca order's schedule, POST /v1/trading/orders/{orderId}/pause: no slice is placed
// until it is resumed.
func (c *Client) PauseOrder(ctx context.Context, id string, opts ...CallOption) Response[TradingOrderEnvelope] {
	return c.orderAction(ctx, id, "pause", opts)
}

// ResumeOrder resumes a paused dca order's schedule, POST /v1/trading/orders/{orderId}/resume.
func (c *Client) ResumeOrder(ctx context.Context, id string, opts ...CallOption) Response[TradingOrderEnvelope] {
	return c.orderAction(ctx, id, "resume", opts)
}

func (c *Client) orderAction(ctx context.Context, id, action string, opts []CallOption) Response[TradingOrderEnvelope] {
	if id == "" {
		return invalidArg[TradingOrderEnvelope]("orderId", "the order id is empty")
	}
	return send[TradingOrderEnvelope](ctx, c, call{method: http.MethodPost, path: "/trading/orders/" + url.PathEscape(id) + "/" + action,
		auth: authKey, idem: true, opts: opts})
}

// Orders lists the account's orders, newest first, GET /v1/trading/orders.
func (c *Client) Orders(ctx context.Context, f OrderFilter) Response[TradingOrderList] {
	q := setFilters(f.query(), time.Time{}, time.Time{}, [2]string{"status", f.Status}, [2]string{"walletId", f.WalletID}, [2]string{"pair", f.Pair})
	return send[TradingOrderList](ctx, c, call{method: http.MethodGet, path: "/trading/orders", query: q, auth: authKey})
}
