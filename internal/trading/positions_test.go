package trading

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// TestPositionBookByHand: three buys of DEV with USDC and a sale, replayed by the average-cost rule with
// gas at 3,000 USD per ETH, give the numbers worked by hand:
//
//	buy 10 DEV for 30 USDC, gas 0.001 ETH (3 USD)    cost 33
//	buy 20 DEV for 62 USDC, gas 0.0005 ETH (1.5 USD) cost 63.5
//	buy 30 DEV for 90 USDC, gas 0.0005 ETH (1.5 USD) cost 91.5   → 60 DEV cost 188, average 3.133333…
//	sell 15 DEV for 48 USDC, gas 0.001 ETH (3 USD)  proceeds 45, cost out 188 × 15/60 = 47 → realised −2
//	45 DEV left, cost basis 141; at 3.5 USD: value 157.5, unrealised 16.5; gas counted 9 USD.
//
// A further sale of 50 DEV when the book holds 45 realises only the 45 it matches.
func TestPositionBookByHand(t *testing.T) {
	usdc, dev := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3"), common.HexToAddress("0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6")
	s := &Service{Venue: &Venue{Config: Config{WETH: common.HexToAddress("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"), USDC: usdc,
		Tokens: []Token{{Symbol: "USDC", Address: usdc, Decimals: 6}, {Symbol: "DEV", Address: dev, Decimals: 18}}}},
		Prices: wallet.Prices{NativeCents: 300_000}}
	order := func(side, in, out, gasWei string) *schema.TradingOrder {
		return &schema.TradingOrder{Side: side, Base: "DEV", Quote: "USDC", FilledIn: &in, FilledOut: &out, GasWei: &gasWei}
	}
	books := map[string]*book{}
	bookOf := func(sym string) *book {
		if books[sym] == nil {
			books[sym] = newBook()
		}
		return books[sym]
	}
	for _, o := range []*schema.TradingOrder{
		order(client.SideBuy, "30000000", "10000000000000000000", "1000000000000000"),
		order(client.SideBuy, "62000000", "20000000000000000000", "500000000000000"),
		order(client.SideBuy, "90000000", "30000000000000000000", "500000000000000"),
		order(client.SideSell, "15000000000000000000", "48000000", "1000000000000000"),
	} {
		s.replay(o, bookOf)
	}
	require.Len(t, books, 1, "USDC is the unit of account: no book")
	devTok, _ := s.Venue.Config.Lookup("DEV")
	held := new(big.Int).Mul(big.NewInt(45), big.NewInt(1_000_000_000_000_000_000))
	p := books["DEV"].position("wal_1", devTok, held, big.NewRat(7, 2))
	require.Equal(t, client.TradingPosition{WalletID: "wal_1", Token: "DEV", Address: dev.Hex(), Quantity: "45", TradedQuantity: "45",
		AverageCost: "3.133333", CostBasis: "141.000000", Price: "3.500000", Value: "157.500000", RealizedPnL: "-2.000000",
		UnrealizedPnL: "16.500000", GasUSD: "9.000000", Orders: 4}, p)

	s.replay(order(client.SideSell, "50000000000000000000", "200000000", "0"), bookOf)
	p = books["DEV"].position("wal_1", devTok, new(big.Int), big.NewRat(4, 1))
	require.Equal(t, "0", p.TradedQuantity)
	require.Equal(t, "0.000000", p.CostBasis)
	// 200 USDC for 50 DEV: the 45 matched bring 180 against their cost 141.
	require.Equal(t, "37.000000", p.RealizedPnL)
	require.Equal(t, "0.000000", p.UnrealizedPnL)
}
