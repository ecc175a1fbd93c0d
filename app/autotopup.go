package app

import (
	"math"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/autotopup"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeclaim"
	"github.com/svcplatform/svc/internal/feeread"
	"github.com/svcplatform/svc/internal/wallet"
)

// autoTopUpActivities convert launch fees to credits: the worker starts fee claims itself (its managed
// wallets, chain and an uncached fee reader on the launches' FeesManager), at SVC_NATIVE_USD_PRICE.
// Without a chain or the master key, rounds that find a balance low fail (retried) saying so.
func autoTopUpActivities(d WorkerDeps, l *activities.Launches) *activities.AutoTopUps {
	w := &autotopup.Worker{DB: d.DB, NativeCents: int64(math.Round(d.NativeUSDPrice * 100))}
	if d.Fault == activities.FaultAutoTopUpStallAfterCredit {
		w.AfterCredit = activities.StallAfterCharge
	}
	if l.Worker == nil || d.Box == nil || d.Temporal == nil {
		return &activities.AutoTopUps{Worker: w}
	}
	network, usdc := d.WalletNetwork, d.WalletUSDC
	if network == "" {
		network = client.ChainDev
	}
	if usdc == (common.Address{}) {
		usdc = devchain.USDCAddress
	}
	rpc := l.Worker.RPC
	w.Claims = &feeclaim.Service{DB: d.DB, Wallets: wallet.NewStore(d.DB, d.Box, network), Chain: &wallet.Chain{RPC: rpc, USDC: usdc},
		Prices: wallet.Prices{NativeCents: w.NativeCents}, Engine: d.Temporal,
		Fees: feeread.New(d.DB, rpc, feeread.Options{Manager: l.Worker.FeesManager, ChainID: d.Chain.ChainID().Int64(), CacheTTL: -1})}
	return &activities.AutoTopUps{Worker: w}
}

// autoTopUpWatcher wakes accounts' auto top-up after the LLM gateway's charges; nil without Temporal.
func autoTopUpWatcher(d APIDeps) *autotopup.Watcher {
	if d.Temporal == nil {
		return nil
	}
	return autotopup.NewWatcher(d.DB, d.Temporal, d.Logger, time.Minute)
}
