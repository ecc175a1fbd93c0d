package devchain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/evm/usdc"
)

// fundTimeout bounds a Fund call (dial, submit, both receipts) when ctx has
// no tighter deadline.
const fundTimeout = 30 * time.Second

// etherDecimals is the number of decimals of an ether amount in wei.
const etherDecimals = 18

// deployerMu serialises the deployer's nonces within this process: each
// holder reads the pending nonce and submits before the next one does.
var deployerMu sync.Mutex

// usdcABI packs calls to the dev USDC.
var usdcABI = usdc.NewUSDC()

// FundResult names the faucet's transactions; a zero hash means that part
// was skipped because its amount was zero.
type FundResult struct {
	USDCTx common.Hash `json:"usdcTx"`
	ETHTx  common.Hash `json:"ethTx"`
}

// Fund is the dev faucet. Over JSON-RPC at rpcURL (so it works against the
// chain inside another process's `svcd dev`), the deployer mints usdcAtomic
// (6-decimal base units) dev USDC to to and sends it wei ether; a nil or zero
// amount skips that part. It returns once both transactions have successful
// receipts, and fails if either reverts or ctx (at most 30 s) runs out.
func Fund(ctx context.Context, rpcURL string, to common.Address, usdcAtomic, wei *big.Int) (FundResult, error) {
	if err := checkFund(to, usdcAtomic, wei); err != nil {
		return FundResult{}, fmt.Errorf("devchain: fund: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, fundTimeout)
	defer cancel()
	client, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return FundResult{}, fmt.Errorf("devchain: fund: dial %s: %w", rpcURL, err)
	}
	defer client.Close()
	res, err := fund(ctx, client, to, orZero(usdcAtomic), orZero(wei))
	if err != nil {
		return res, fmt.Errorf("devchain: fund %s via %s: %w", to, rpcURL, err)
	}
	return res, nil
}

// checkFund validates Fund's input before any network use.
func checkFund(to common.Address, usdcAtomic, wei *big.Int) error {
	usdcAtomic, wei = orZero(usdcAtomic), orZero(wei)
	switch {
	case to == (common.Address{}):
		return errors.New("recipient is the zero address")
	case usdcAtomic.Sign() < 0 || usdcAtomic.Cmp(evm.MaxUint256) > 0:
		return fmt.Errorf("USDC amount %s out of range", usdcAtomic)
	case wei.Sign() < 0 || wei.Cmp(evm.MaxUint256) > 0:
		return fmt.Errorf("ETH amount %s wei out of range", wei)
	case usdcAtomic.Sign() == 0 && wei.Sign() == 0:
		return errors.New("nothing to send: both amounts are zero")
	}
	return nil
}

// fund checks it talks to the dev chain, submits the transfers and waits for
// their receipts.
func fund(ctx context.Context, client *ethclient.Client, to common.Address, usdcAtomic, wei *big.Int) (FundResult, error) {
	if err := checkDevChain(ctx, client); err != nil {
		return FundResult{}, err
	}
	res, err := submitFunding(ctx, client, to, usdcAtomic, wei)
	if err != nil {
		return res, err
	}
	for _, hash := range []common.Hash{res.USDCTx, res.ETHTx} {
		if hash == (common.Hash{}) {
			continue
		}
		if _, err := waitReceipt(ctx, client, hash); err != nil {
			return res, err
		}
	}
	return res, nil
}

// checkDevChain refuses other chains, and dev chains without the dev USDC
// (a mint sent to an address without code would "succeed" doing nothing).
func checkDevChain(ctx context.Context, client *ethclient.Client) error {
	id, err := client.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("chain id: %w", err)
	}
	if id.Cmp(big.NewInt(ChainID)) != 0 {
		return fmt.Errorf("chain id is %s: the faucet only serves the dev chain (%d)", id, ChainID)
	}
	code, err := client.CodeAt(ctx, USDCAddress, nil)
	if err != nil {
		return fmt.Errorf("read code at %s: %w", USDCAddress, err)
	}
	if len(code) == 0 {
		return fmt.Errorf("no dev USDC at %s", USDCAddress)
	}
	return nil
}

// submitFunding sends the mint and the ether transfer from the deployer,
// holding deployerMu so their nonces do not collide with other senders here.
func submitFunding(ctx context.Context, client *ethclient.Client, to common.Address, usdcAtomic, wei *big.Int) (FundResult, error) {
	deployerMu.Lock()
	defer deployerMu.Unlock()
	var res FundResult
	if usdcAtomic.Sign() > 0 {
		data, err := usdcABI.TryPackMint(to, usdcAtomic)
		if err != nil {
			return res, fmt.Errorf("pack mint: %w", err)
		}
		usdcAddr := USDCAddress
		if res.USDCTx, err = sendTx(ctx, client, DeployerKey(), txCall{to: &usdcAddr, data: data}); err != nil {
			return res, fmt.Errorf("mint: %w", err)
		}
	}
	if wei.Sign() > 0 {
		var err error
		if res.ETHTx, err = sendTx(ctx, client, DeployerKey(), txCall{to: &to, value: wei}); err != nil {
			return res, fmt.Errorf("send ETH: %w", err)
		}
	}
	return res, nil
}

// ParseUSDC converts a positive decimal USD amount ("25", "25.5", "0.000001")
// to atomic dev USDC units (6 decimals).
func ParseUSDC(s string) (*big.Int, error) {
	v, err := evm.ParseUnits(s, usdc.Decimals)
	if err != nil {
		return nil, fmt.Errorf("USDC amount: %w", err)
	}
	if v.Sign() == 0 {
		return nil, fmt.Errorf("USDC amount %q: must be positive", s)
	}
	return v, nil
}

// ParseETH converts a non-negative decimal ether amount ("1", "0.5") to wei.
func ParseETH(s string) (*big.Int, error) {
	v, err := evm.ParseUnits(s, etherDecimals)
	if err != nil {
		return nil, fmt.Errorf("ETH amount: %w", err)
	}
	return v, nil
}
