package app

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/internal/wallet"
)

// TradingConfig configures managed trading. Unset, it is the dev chain's venue: Uniswap V2's router
// with WETH, dev USDC and DEV.
type TradingConfig struct {
	// Router is a Uniswap V2 Router02 (SVC_TRADING_ROUTER); setting it needs TokensFile.
	Router string
	// TokensFile is the tradeable tokens, a JSON array of {symbol, address, decimals} that includes the
	// router's WETH as "WETH" (SVC_TRADING_TOKENS_FILE).
	TokensFile string
}

func tradingFromEnv(getenv func(string) string) TradingConfig {
	return TradingConfig{Router: getenv("SVC_TRADING_ROUTER"), TokensFile: getenv("SVC_TRADING_TOKENS_FILE")}
}

// DevTradingTokens are the dev chain's tradeable tokens besides ETH.
func DevTradingTokens() []trading.Token {
	return []trading.Token{
		{Symbol: "WETH", Address: devchain.WETHAddress, Decimals: 18},
		{Symbol: "USDC", Address: devchain.USDCAddress, Decimals: 6},
		{Symbol: devchain.DevTokenSymbol, Address: devchain.DevTokenAddress, Decimals: 18},
	}
}

// Trading is the trading venue's configuration with its dev defaults.
func (c TradingConfig) Trading() (trading.Config, error) {
	if c.Router == "" {
		if c.TokensFile != "" {
			return trading.Config{}, errors.New("SVC_TRADING_TOKENS_FILE goes with SVC_TRADING_ROUTER")
		}
		return trading.Config{Router: devchain.UniswapRouterAddress, WETH: devchain.WETHAddress, USDC: devchain.USDCAddress,
			Tokens: DevTradingTokens()}, nil
	}
	if !common.IsHexAddress(c.Router) {
		return trading.Config{}, fmt.Errorf("SVC_TRADING_ROUTER must be a 0x address, got %q", c.Router)
	}
	if c.TokensFile == "" {
		return trading.Config{}, errors.New("SVC_TRADING_ROUTER needs SVC_TRADING_TOKENS_FILE (the tradeable tokens)")
	}
	tokens, err := trading.ReadTokensFile(c.TokensFile)
	if err != nil {
		return trading.Config{}, fmt.Errorf("SVC_TRADING_TOKENS_FILE: %w", err)
	}
	out := trading.Config{Router: common.HexToAddress(c.Router), Tokens: tokens}
	for _, t := range tokens {
		switch strings.ToUpper(t.Symbol) {
		case "WETH":
			out.WETH = t.Address
		case "USDC":
			out.USDC = t.Address
		}
	}
	if out.WETH == (common.Address{}) {
		return trading.Config{}, errors.New("SVC_TRADING_TOKENS_FILE must list the router's WETH as WETH")
	}
	return out, nil
}

// tradingOf is the trading configuration (validated when the configuration was read).
func tradingOf(c TradingConfig) trading.Config {
	tc, _ := c.Trading()
	return tc
}

// tradingService quotes trades and places orders; nil (its routes answer 503) without wallets, Temporal
// or a chain.
func tradingService(wallets *wallet.Store, book *ledger.Ledger, cat *catalog.Catalog, d APIDeps) *trading.Service {
	chain := walletChain(d)
	if wallets == nil || d.Temporal == nil || chain == nil {
		return nil
	}
	cfg := d.Trading
	if cfg.Router == (common.Address{}) {
		cfg = tradingOf(TradingConfig{})
	}
	if d.X402 != nil && cfg.USDC == devchain.USDCAddress {
		cfg.USDC = d.X402.Asset
	}
	return &trading.Service{DB: d.DB, Wallets: wallets, Chain: chain, Venue: &trading.Venue{RPC: chain.RPC, Config: cfg},
		Prices: wallet.Prices{NativeCents: int64(math.Round(d.NativeUSDPrice * 100))}, Engine: d.Temporal, Ledger: book, FeeMillicredits: orderFee(cat),
		Signals: d.Temporal, Schedules: d.Temporal.ScheduleClient()}
}

// orderFee is the trading fee per order, from the pricing catalog.
func orderFee(cat *catalog.Catalog) int64 {
	svc, ok := cat.Lookup(client.ServiceManagedTrading)
	if !ok {
		return 0
	}
	for _, op := range svc.Operations {
		if op.ID == client.OpTradingOrdersCreate {
			return op.Millicredits
		}
	}
	return 0
}

// tradingActivities record orders' ends on the worker's chain (failing, retried, without one).
func tradingActivities(d WorkerDeps) *trading.Worker {
	if d.Chain == nil {
		return nil
	}
	cfg := d.Trading
	if cfg.Router == (common.Address{}) {
		cfg = tradingOf(TradingConfig{})
	}
	return &trading.Worker{DB: d.DB, Venue: &trading.Venue{RPC: d.Chain.Client(), Config: cfg}, Ledger: ledger.New(d.DB)}
}

// workerTrading fires limit and stop orders on the worker: managed wallets on the worker's chain and
// its venue; nil without a chain or the encryption key's box.
func workerTrading(d WorkerDeps) *trading.Service {
	if d.Chain == nil || d.Box == nil {
		return nil
	}
	network, usdc := d.WalletNetwork, d.WalletUSDC
	if network == "" {
		network = client.ChainDev
	}
	if usdc == (common.Address{}) {
		usdc = devchain.USDCAddress
	}
	cfg := d.Trading
	if cfg.Router == (common.Address{}) {
		cfg = tradingOf(TradingConfig{})
	}
	rpc := d.Chain.Client()
	return &trading.Service{DB: d.DB, Wallets: wallet.NewStore(d.DB, d.Box, network), Chain: &wallet.Chain{RPC: rpc, USDC: usdc},
		Venue: &trading.Venue{RPC: rpc, Config: cfg}, Prices: wallet.Prices{NativeCents: int64(math.Round(d.NativeUSDPrice * 100))},
		Engine: d.Temporal, Ledger: ledger.New(d.DB), Schedules: d.Schedules}
}
