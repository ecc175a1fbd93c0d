package app

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/tokeninfo"
	"github.com/svcplatform/svc/internal/trading"
)

// tokenInfo answers the public token reads of an API process (issue 27): the fee index's launched
// tokens of the FeesManager and the trading list, priced on the chain; nil (their routes answer 503)
// without a chain.
func tokenInfo(d APIDeps) *tokeninfo.Service {
	if d.ChainRPCURL == "" || d.X402 == nil {
		return nil
	}
	rpc, err := ethclient.Dial(d.ChainRPCURL) // an HTTP endpoint: nothing is sent until the first call
	if err != nil {
		d.Logger.Warn("token reads: cannot use the chain's RPC; their routes answer 503", "err", err)
		return nil
	}
	var manager common.Address
	if d.Fees.Manager != "" {
		manager = common.HexToAddress(d.Fees.Manager)
	}
	return tokeninfo.New(d.DB, rpc, tokeninfo.Options{ChainID: d.X402.ChainID.Int64(), Network: d.X402.Network, Manager: manager,
		Trading: tokenVenue(d.Trading, d.X402.Asset), NativeUSD: nativeUSD(d.NativeUSDPrice)})
}

// tokenVenue is the trading configuration token reads price with (zero: the dev chain's), its USDC the
// platform's when the dev venue's is the dev chain's.
func tokenVenue(cfg trading.Config, usdc common.Address) trading.Config {
	if cfg.Router == (common.Address{}) {
		cfg = tradingOf(TradingConfig{})
	}
	if usdc != (common.Address{}) && cfg.USDC == devchain.USDCAddress {
		cfg.USDC = usdc
	}
	return cfg
}

// nativeUSD is ether's configured USD price as a fraction (nil when unknown).
func nativeUSD(price float64) *big.Rat {
	if price <= 0 {
		return nil
	}
	return new(big.Rat).SetFloat64(price)
}

// workerTokenInfo answers app scripts' svc.tokens.info on the worker's chain (nil without one).
func workerTokenInfo(d WorkerDeps) *tokeninfo.Service {
	if d.Chain == nil || d.DB == nil {
		return nil
	}
	manager := d.FeesManager
	if manager == (common.Address{}) {
		manager = devchain.FeesManagerAddress
	}
	return tokeninfo.New(d.DB, d.Chain.Client(), tokeninfo.Options{ChainID: d.Chain.ChainID().Int64(), Network: d.WalletNetwork,
		Manager: manager, Trading: tokenVenue(d.Trading, d.WalletUSDC), NativeUSD: nativeUSD(d.NativeUSDPrice)})
}
