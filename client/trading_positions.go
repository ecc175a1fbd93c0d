package client

import (
	"context"
	"net/http"
	"net/url"
)

// TradingPosition is one token a managed wallet holds, valued by the average-cost method over its
// filled orders. USD amounts are decimal strings rounded to 6 places; Price, Value and UnrealizedPnL are
// empty when no pool prices the token in USD.
type TradingPosition struct {
	WalletID string `json:"walletId"`
	Token    string `json:"token" doc:"The token's symbol (ETH is the native asset)."`
	Address  string `json:"address" doc:"The token's address (the router's WETH for ETH)."`
	Quantity string `json:"quantity" doc:"What the wallet holds now, read from the chain (balanceOf, or the ETH balance)."`
	// TradedQuantity is what the wallet's filled orders bought and still hold (sells beyond it came from
	// deposits, which have no known cost).
	TradedQuantity string `json:"tradedQuantity" doc:"What filled orders bought less what they sold: the quantity with a known cost."`
	AverageCost    string `json:"averageCost" doc:"USD per token of the traded quantity, gas of buys included."`
	CostBasis      string `json:"costBasis" doc:"USD: averageCost × tradedQuantity."`
	Price          string `json:"price,omitempty" doc:"USD per token now, at the pools' mid price (through WETH when no USDC pair)."`
	Value          string `json:"value,omitempty" doc:"USD: quantity × price."`
	RealizedPnL    string `json:"realizedPnl" doc:"USD: proceeds of sells (gas taken off) less their average cost."`
	UnrealizedPnL  string `json:"unrealizedPnl,omitempty" doc:"USD: (price − averageCost) × the traded quantity still held."`
	GasUSD         string `json:"gasUsd" doc:"USD of gas counted in this token's cost basis and proceeds."`
	Orders         int    `json:"orders" doc:"Filled orders that bought or sold the token."`
}

// TradingPositionList answers GET /v1/trading/positions.
type TradingPositionList struct {
	OK        bool              `json:"ok"`
	Positions []TradingPosition `json:"positions"`
	Block     int64             `json:"block" doc:"The block quantities and prices were read at."`
}

// Positions reads the positions of one wallet (walletID) or of every wallet of the account (""),
// GET /v1/trading/positions (scope trading:read).
func (c *Client) Positions(ctx context.Context, walletID string) Response[TradingPositionList] {
	q := url.Values{}
	if walletID != "" {
		q.Set("walletId", walletID)
	}
	return send[TradingPositionList](ctx, c, call{method: http.MethodGet, path: "/trading/positions", query: q, auth: authKey})
}
