package wallet

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/svcplatform/svc/client"
)

// Chain reads balances from the chain wallets live on.
type Chain struct {
	RPC *ethclient.Client
	// USDC is the dev USDC (or the configured USDC) contract.
	USDC common.Address
}

// balanceOfSelector is the selector of ERC-20 balanceOf(address).
var balanceOfSelector = []byte{0x70, 0xa0, 0x82, 0x31}

// usdcDecimals is USDC's number of decimals.
const usdcDecimals = 6

// Balances reads addr's native and USDC balances at one block.
func (c *Chain) Balances(ctx context.Context, addr common.Address) ([]client.WalletBalance, uint64, error) {
	block, err := c.RPC.BlockNumber(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("read the chain's block number: %w", err)
	}
	at := new(big.Int).SetUint64(block)
	wei, err := c.RPC.BalanceAt(ctx, addr, at)
	if err != nil {
		return nil, 0, fmt.Errorf("read the native balance of %s: %w", addr.Hex(), err)
	}
	data := append(append([]byte{}, balanceOfSelector...), common.LeftPadBytes(addr.Bytes(), 32)...)
	out, err := c.RPC.CallContract(ctx, ethereum.CallMsg{To: &c.USDC, Data: data}, at)
	if err != nil {
		return nil, 0, fmt.Errorf("read the USDC balance of %s: %w", addr.Hex(), err)
	}
	usdc := new(big.Int).SetBytes(out)
	token := c.USDC.Hex()
	return []client.WalletBalance{
		{Asset: "native", Symbol: "ETH", Amount: FormatUnits(wei, 18), Atomic: wei.String(), Decimals: 18},
		{Asset: "usdc", Symbol: "USDC", Token: &token, Amount: FormatUnits(usdc, usdcDecimals), Atomic: usdc.String(), Decimals: usdcDecimals},
	}, block, nil
}

// FormatUnits writes atomic (in units of 10^-decimals) as a decimal string without trailing zeros.
func FormatUnits(atomic *big.Int, decimals int) string {
	neg := atomic.Sign() < 0
	s := new(big.Int).Abs(atomic).String()
	if len(s) <= decimals {
		s = strings.Repeat("0", decimals-len(s)+1) + s
	}
	whole, frac := s[:len(s)-decimals], strings.TrimRight(s[len(s)-decimals:], "0")
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}
