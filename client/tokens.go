package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The public token reads (issue 27, seed 002's "svc tokens search" and "svc tokens info"): no key.
const (
	OpPublicTokensSearch = "public.tokens.search"
	OpPublicTokensRead   = "public.tokens.read"
)

// A token's source: launched through the FeesManager (and indexed), or on the trading token list.
const (
	TokenSourceLaunch  = "launch"
	TokenSourceTrading = "trading"
)

// Token search bounds: the number of tokens answered, and the query's length.
const (
	TokenSearchDefaultLimit = 20
	TokenSearchMaxLimit     = 50
	TokenSearchMaxQuery     = 100
)

// TokenInfo is a public token: a launched token or one of the trading list, priced at AsOfBlock.
type TokenInfo struct {
	Address  string `json:"address" doc:"The token's contract address (checksummed)."`
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
	Source   string `json:"source" enum:"launch,trading" doc:"launch: launched through the FeesManager; trading: on the trading token list."`
	ChainID  int64  `json:"chainId"`
	Chain    string `json:"chain" doc:"The chain, CAIP-2 (eip155:<chainId>)."`
	// LaunchID is the platform's launch of a launched token, when it was launched through POST /token-launches/deploy.
	LaunchID *string `json:"launchId,omitempty" doc:"The platform's launch id, when launched through the platform."`
	PoolID   *string `json:"poolId,omitempty" doc:"A launched token's pool id (bytes32)."`
	// PoolAddress is the pool that prices the token: a launched token's launch pool, or a listed token's
	// Uniswap V2 pair with WETH (with USDC for WETH itself).
	PoolAddress  *string    `json:"poolAddress,omitempty" doc:"The pool that prices the token: the launch pool, or the Uniswap V2 pair with WETH."`
	Creator      *string    `json:"creator,omitempty" doc:"A launched token's creator (its first fee recipient)."`
	FeeRecipient *string    `json:"feeRecipient,omitempty" doc:"A launched token's creator beneficiary now (who receives the creator's fees)."`
	LaunchedAt   *time.Time `json:"launchedAt,omitempty"`
	// PriceWeth and PriceUSD are the pool's mid price at AsOfBlock, in WETH and in USD per whole token
	// (decimal strings); nil when no pool prices the token (or, for USD, ether has no USD price).
	PriceWeth *string `json:"priceWeth" doc:"WETH per whole token at the pool's mid price at asOfBlock (null: no pool prices it)."`
	PriceUSD  *string `json:"priceUsd" doc:"USD per whole token at asOfBlock, through WETH's USDC pair (null: unknown)."`
	// Volume24h is what the indexed Swap events of the last 24 hours traded; nil for tokens whose pools
	// are not indexed (the trading list's).
	Volume24h *TokenVolume `json:"volume24h" doc:"The last 24 hours' indexed swaps (null: the token's pool is not indexed)."`
	AsOfBlock uint64       `json:"asOfBlock" doc:"The block the prices were read at."`
}

// TokenVolume is a token's traded volume over a window, from the indexed Swap events.
type TokenVolume struct {
	Token string    `json:"token" doc:"Whole tokens traded (both directions)."`
	Weth  string    `json:"weth" doc:"WETH traded against them."`
	USD   *string   `json:"usd" doc:"The WETH traded, in USD at asOfBlock's price, 2 decimals (null: no USD price)."`
	Swaps int       `json:"swaps"`
	Since time.Time `json:"since" doc:"The window's start (24 hours before the answer)."`
	// IndexedTo is the last block the fee index has read.
	IndexedTo int64 `json:"indexedTo" doc:"The last block the fee index has read (swaps after it are not counted yet)."`
}

// TokenSearchResult answers GET /public/tokens/search.
type TokenSearchResult struct {
	OK     bool        `json:"ok"`
	Query  string      `json:"query"`
	Chain  string      `json:"chain"`
	Tokens []TokenInfo `json:"tokens"`
}

// TokenEnvelope answers GET /public/tokens/{address}.
type TokenEnvelope struct {
	OK    bool      `json:"ok"`
	Token TokenInfo `json:"token"`
}

// SearchTokens searches the launched tokens and the trading list by symbol or name prefix (any case) or
// exact address, GET /public/tokens/search (public). chain "" is the platform's chain; limit 0 the
// default (20).
func (c *Client) SearchTokens(ctx context.Context, query, chain string, limit int) Response[TokenSearchResult] {
	q := url.Values{"q": {query}}
	if chain != "" {
		q.Set("chain", chain)
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return send[TokenSearchResult](ctx, c, call{method: http.MethodGet, path: "/public/tokens/search", query: q, root: true})
}

// TokenInfo reads one token by address, GET /public/tokens/{address} (public); chain "" is the
// platform's chain.
func (c *Client) TokenInfo(ctx context.Context, address, chain string) Response[TokenEnvelope] {
	var q url.Values
	if chain != "" {
		q = url.Values{"chain": {chain}}
	}
	return send[TokenEnvelope](ctx, c, call{method: http.MethodGet, path: "/public/tokens/" + url.PathEscape(address), query: q, root: true})
}
