package app

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeread"
)

// DefaultFeeIndexConfirmations is how many blocks the fee indexer stays behind the head outside dev
// mode, where blocks may still be reorganised.
const DefaultFeeIndexConfirmations = 12

// FeeConfig is where token-launch fees are read: the FeesManager and WETH on the chain of ChainConfig.
// An empty Manager turns the fee routes (503) and the fee indexer off.
type FeeConfig struct {
	// Manager is the FeesManager (SVC_FEES_MANAGER_ADDRESS; svcd dev: devchain.FeesManagerAddress).
	Manager string
	// WETH is the wrapped ether its pools trade against (SVC_WETH_ADDRESS; svcd dev: devchain.WETHAddress).
	WETH string
	// Confirmations keeps the indexer this many blocks behind the head (SVC_FEE_INDEX_CONFIRMATIONS;
	// default 12, 0 on svcd dev's chain, which never reorganises). Negative means unset.
	Confirmations int
	// StartBlock is the first block the indexer reads (SVC_FEE_INDEX_START_BLOCK: the manager's deployment).
	StartBlock uint64
	// CacheTTL is how long public fee reads are cached (feeread.DefaultCacheTTL when 0).
	CacheTTL time.Duration
}

// feesFromEnv reads FeeConfig.
func feesFromEnv(getenv func(string) string) (FeeConfig, error) {
	c := FeeConfig{Manager: getenv("SVC_FEES_MANAGER_ADDRESS"), WETH: getenv("SVC_WETH_ADDRESS"), Confirmations: -1}
	for name, v := range map[string]string{"SVC_FEES_MANAGER_ADDRESS": c.Manager, "SVC_WETH_ADDRESS": c.WETH} {
		if v != "" && !common.IsHexAddress(v) {
			return c, fmt.Errorf("%s must be a 0x address, got %q", name, v)
		}
	}
	if c.Manager != "" && c.WETH == "" {
		return c, fmt.Errorf("SVC_WETH_ADDRESS is required with SVC_FEES_MANAGER_ADDRESS")
	}
	if v := getenv("SVC_FEE_INDEX_CONFIRMATIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 10_000 {
			return c, fmt.Errorf("SVC_FEE_INDEX_CONFIRMATIONS must be a whole number from 0 to 10000, got %q", v)
		}
		c.Confirmations = n
	}
	if v := getenv("SVC_FEE_INDEX_START_BLOCK"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return c, fmt.Errorf("SVC_FEE_INDEX_START_BLOCK must be a block number, got %q", v)
		}
		c.StartBlock = n
	}
	return c, nil
}

// DevFees points c at the dev chain's contracts (unless configured), indexing with no confirmations.
func DevFees(c FeeConfig) FeeConfig {
	if c.Manager == "" {
		c.Manager, c.WETH = devchain.FeesManagerAddress.Hex(), devchain.WETHAddress.Hex()
	}
	if c.Confirmations < 0 {
		c.Confirmations = 0
	}
	return c
}

// feeReader answers the public fee routes; nil without a chain or a FeesManager.
func feeReader(d APIDeps) *feeread.Reader {
	if d.ChainRPCURL == "" || d.X402 == nil || d.Fees.Manager == "" {
		return nil
	}
	rpc, err := ethclient.Dial(d.ChainRPCURL) // an HTTP endpoint: nothing is sent until the first call
	if err != nil {
		d.Logger.Warn("token fees: cannot use the chain's RPC; their routes answer 503", "err", err)
		return nil
	}
	return feeread.New(d.DB, rpc, feeread.Options{Manager: common.HexToAddress(d.Fees.Manager), WETH: common.HexToAddress(d.Fees.WETH),
		ChainID: d.X402.ChainID.Int64(), Chain: d.X402.Network, CacheTTL: d.Fees.CacheTTL})
}

// runFeeIndexer runs the fee indexer of the worker process until ctx ends (one worker at a time indexes:
// feeindex.Indexer.Run holds an advisory lock). It does nothing without a chain or a FeesManager.
func runFeeIndexer(ctx context.Context, db *bun.DB, rpcURL string, chainID int64, c FeeConfig, log *slog.Logger) {
	if rpcURL == "" || c.Manager == "" {
		return
	}
	rpc, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		log.Warn("fee indexer: cannot use the chain's RPC; fees are not indexed", "err", err)
		return
	}
	defer rpc.Close()
	conf := c.Confirmations
	if conf < 0 {
		conf = DefaultFeeIndexConfirmations
	}
	feeindex.New(db, rpc, feeindex.Options{Manager: common.HexToAddress(c.Manager), ChainID: chainID, Confirmations: uint64(conf),
		StartBlock: c.StartBlock, Logger: log}).Run(ctx)
}
