package app

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/evm/usdc"
	"github.com/svcplatform/svc/internal/x402"
)

// DefaultMaxTimeoutSeconds is how long a top-up's payment offer stays payable.
const DefaultMaxTimeoutSeconds = 300

// ChainConfig is the chain x402 top-ups are paid on. Empty RPCURL (outside dev mode) turns top-ups off.
type ChainConfig struct {
	// RPCURL is the chain's JSON-RPC endpoint (SVC_CHAIN_RPC_URL). svcd dev starts its own chain when unset.
	RPCURL string
	// Network is the CAIP-2 network (SVC_X402_NETWORK, default eip155:8453, Base mainnet).
	Network string
	// USDC is the token contract (SVC_USDC_ADDRESS; Base mainnet USDC by default on eip155:8453).
	USDC string
	// TokenName and TokenVersion are the token's EIP-712 domain (SVC_USDC_NAME default "USD Coin",
	// SVC_USDC_VERSION default "2").
	TokenName, TokenVersion string
	// PayTo receives the payments (SVC_X402_PAY_TO; required with RPCURL).
	PayTo string
	// FacilitatorURL is an external x402 facilitator (SVC_X402_FACILITATOR_URL); empty means the
	// built-in one, which submits with FacilitatorKey.
	FacilitatorURL string
	// FacilitatorKey is the built-in facilitator's hex private key (SVC_FACILITATOR_PRIVATE_KEY); it
	// pays the settlements' gas. Workers need it unless FacilitatorURL is set.
	FacilitatorKey string
	// MaxTimeoutSeconds is how long a payment offer stays payable (SVC_X402_MAX_TIMEOUT_SECONDS, 300).
	MaxTimeoutSeconds int
	// DevAddr is where svcd dev's chain serves JSON-RPC (SVC_DEV_CHAIN_ADDR, default 127.0.0.1:8545).
	DevAddr string
	// Fault injects a test fault into settlement or wallet sends (SVC_TEST_FAULT); never set it in
	// production.
	Fault string
}

// baseUSDC is USDC on Base mainnet, the default token of eip155:8453.
const baseUSDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"

func chainFromEnv(getenv func(string) string) (ChainConfig, error) {
	c := ChainConfig{
		RPCURL: getenv("SVC_CHAIN_RPC_URL"), Network: or(getenv("SVC_X402_NETWORK"), "eip155:8453"),
		USDC: getenv("SVC_USDC_ADDRESS"), TokenName: or(getenv("SVC_USDC_NAME"), usdc.DomainName),
		TokenVersion: or(getenv("SVC_USDC_VERSION"), usdc.DomainVersion), PayTo: getenv("SVC_X402_PAY_TO"),
		FacilitatorURL: getenv("SVC_X402_FACILITATOR_URL"), FacilitatorKey: getenv("SVC_FACILITATOR_PRIVATE_KEY"),
		DevAddr: or(getenv("SVC_DEV_CHAIN_ADDR"), devchain.DefaultAddr), Fault: getenv("SVC_TEST_FAULT"),
	}
	if c.USDC == "" && c.Network == "eip155:8453" {
		c.USDC = baseUSDC
	}
	var err error
	c.MaxTimeoutSeconds, err = intVar(getenv, "SVC_X402_MAX_TIMEOUT_SECONDS", DefaultMaxTimeoutSeconds)
	return c, err
}

// X402 is what top-ups are paid in and to; nil (no error) when no chain is configured.
func (c ChainConfig) X402() (*x402.Config, error) {
	if c.RPCURL == "" {
		return nil, nil
	}
	id, err := x402.ParseNetwork(c.Network)
	if err != nil {
		return nil, fmt.Errorf("SVC_X402_NETWORK: %w", err)
	}
	for name, v := range map[string]string{"SVC_USDC_ADDRESS": c.USDC, "SVC_X402_PAY_TO": c.PayTo} {
		if !common.IsHexAddress(v) {
			return nil, fmt.Errorf("%s must be a 0x address when SVC_CHAIN_RPC_URL is set, got %q", name, v)
		}
	}
	cfg := &x402.Config{Network: c.Network, ChainID: id, Asset: common.HexToAddress(c.USDC), PayTo: common.HexToAddress(c.PayTo),
		Name: c.TokenName, Version: c.TokenVersion, MaxTimeoutSeconds: c.MaxTimeoutSeconds}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// facilitatorKey parses FacilitatorKey; nil when unset.
func (c ChainConfig) facilitatorKey() (*ecdsa.PrivateKey, error) {
	if c.FacilitatorKey == "" {
		return nil, nil
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(c.FacilitatorKey, "0x"))
	if err != nil {
		return nil, errors.New("SVC_FACILITATOR_PRIVATE_KEY is not a hex secp256k1 private key")
	}
	return key, nil
}

// workerChain dials the chain for a worker's settlements; all nil when no chain is configured.
func (c ChainConfig) workerChain(ctx context.Context) (*evm.Chain, *x402.HTTPFacilitator, *x402.Config, error) {
	xc, err := c.X402()
	if err != nil || xc == nil {
		return nil, nil, nil, err
	}
	key, err := c.facilitatorKey()
	if err != nil {
		return nil, nil, nil, err
	}
	var fac *x402.HTTPFacilitator
	if c.FacilitatorURL != "" {
		fac = &x402.HTTPFacilitator{BaseURL: c.FacilitatorURL}
	} else if key == nil {
		return nil, nil, nil, errors.New("settling top-ups needs SVC_FACILITATOR_PRIVATE_KEY (the built-in facilitator's key) or SVC_X402_FACILITATOR_URL")
	}
	ch, err := evm.Dial(ctx, c.RPCURL, xc.ChainID, xc.Asset, key)
	if err != nil {
		return nil, nil, nil, err
	}
	return ch, fac, xc, nil
}

// startDevChain starts svcd dev's embedded chain (unless SVC_CHAIN_RPC_URL points elsewhere) and
// points the configuration at it: its RPC URL, network, dev USDC, treasury and facilitator key.
func startDevChain(ctx context.Context, cfg *Config, log *slog.Logger, progress io.Writer) (stop func(), err error) {
	if cfg.Chain.RPCURL != "" {
		fmt.Fprintf(progress, "chain: using %s\n", cfg.Chain.RPCURL)
		return func() {}, nil
	}
	fmt.Fprintln(progress, "chain: starting the embedded dev chain")
	ch, err := devchain.Start(ctx, devchain.Config{Addr: cfg.Chain.DevAddr, DataDir: filepath.Join(cfg.DataDir, "chain"), Logger: log})
	if err != nil {
		return nil, fmt.Errorf("dev chain: %w", err)
	}
	c := &cfg.Chain
	c.RPCURL, c.Network, c.USDC, c.PayTo = ch.RPCURL(), devchain.Network, devchain.USDCAddress.Hex(), devchain.PayTo.Hex()
	c.TokenName, c.TokenVersion = usdc.DomainName, usdc.DomainVersion
	c.FacilitatorKey = common.Bytes2Hex(crypto.FromECDSA(devchain.FacilitatorKey()))
	cfg.Fees = DevFees(cfg.Fees)
	fmt.Fprintf(progress, "chain: JSON-RPC %s (chain id %d), dev USDC %s, WETH %s, FeesManager %s, Uniswap V2 router %s (factory %s), DEV %s, treasury %s\n",
		ch.RPCURL(), devchain.ChainID, devchain.USDCAddress.Hex(), devchain.WETHAddress.Hex(),
		devchain.FeesManagerAddress.Hex(), devchain.UniswapRouterAddress.Hex(), devchain.UniswapFactoryAddress.Hex(),
		devchain.DevTokenAddress.Hex(), devchain.PayTo.Hex())
	return func() {
		if err := ch.Close(); err != nil {
			log.Warn("stop dev chain", "err", err)
		}
	}, nil
}

// devFaucet is POST /dev/faucet's funding function in dev mode (the dev chain's deployer mints USDC and
// sends ETH); nil, so the route is absent, in every other mode.
func devFaucet(cfg Config, keyMode KeyMode) api.Faucet {
	if keyMode != KeyFileOrCreate || cfg.Chain.RPCURL == "" {
		return nil
	}
	url := cfg.Chain.RPCURL
	return func(ctx context.Context, to common.Address, usdcAtomic, wei *big.Int) (api.Funded, error) {
		res, err := devchain.Fund(ctx, url, to, usdcAtomic, wei)
		if err != nil {
			return api.Funded{}, err
		}
		return api.Funded{USDCTx: res.USDCTx, ETHTx: res.ETHTx}, nil
	}
}
