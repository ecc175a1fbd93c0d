// Package trading is managed spot trading (issue 21): quotes priced by a Uniswap V2 router at a stated
// block, and market orders from a managed wallet run by workflow order/<id>, whose approve and swap are
// ordinary wallet transactions (the wallet's policy, spend reservation, approvals and exactly-once
// sends apply) and whose fills are the pairs' Swap events.
package trading

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// NativeSymbol is the chain's native asset as a token of the list: swaps with it go through WETH (the
// router's ETH swaps), and the wallet pays or receives ether.
const NativeSymbol = "ETH"

// Token is one tradeable token.
type Token struct {
	Symbol   string         `json:"symbol"`
	Address  common.Address `json:"address"`
	Decimals int            `json:"decimals"`
	// Native marks the chain's native asset (its Address is the router's WETH).
	Native bool `json:"-"`
}

// Config says where trades go: the router, its WETH, and the tradeable tokens (the native asset is
// added as NativeSymbol).
type Config struct {
	// Router is a Uniswap V2 Router02 (dev: devchain.UniswapRouterAddress; SVC_TRADING_ROUTER).
	Router common.Address
	// WETH is the router's WETH.
	WETH common.Address
	// USDC prices trades in USD (a trade with a USDC leg is worth its USDC amount).
	USDC common.Address
	// Tokens are the tradeable ERC-20 tokens (SVC_TRADING_TOKENS_FILE).
	Tokens []Token
}

// Lookup finds a token by symbol (any case) or address; NativeSymbol is the native asset.
func (c Config) Lookup(name string) (Token, bool) {
	name = strings.TrimSpace(name)
	if strings.EqualFold(name, NativeSymbol) {
		return Token{Symbol: NativeSymbol, Address: c.WETH, Decimals: 18, Native: true}, true
	}
	for _, t := range c.Tokens {
		if strings.EqualFold(t.Symbol, name) || (common.IsHexAddress(name) && common.HexToAddress(name) == t.Address) {
			return t, true
		}
	}
	return Token{}, false
}

// Symbols lists the tradeable symbols, the native asset first.
func (c Config) Symbols() []string {
	out := []string{NativeSymbol}
	for _, t := range c.Tokens {
		out = append(out, t.Symbol)
	}
	return out
}

// ReadTokensFile reads a token list: a JSON array of {"symbol", "address", "decimals"}.
func ReadTokensFile(path string) ([]Token, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the token list: %w", err)
	}
	var list []struct {
		Symbol   string `json:"symbol"`
		Address  string `json:"address"`
		Decimals int    `json:"decimals"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("token list %s: %w", path, err)
	}
	out := make([]Token, 0, len(list))
	for i, t := range list {
		if t.Symbol == "" || !common.IsHexAddress(t.Address) || t.Decimals < 0 || t.Decimals > 36 || strings.EqualFold(t.Symbol, NativeSymbol) {
			return nil, fmt.Errorf("token list %s: entry %d needs a symbol (not %s), a 0x address and decimals 0 to 36", path, i, NativeSymbol)
		}
		out = append(out, Token{Symbol: t.Symbol, Address: common.HexToAddress(t.Address), Decimals: t.Decimals})
	}
	return out, nil
}
