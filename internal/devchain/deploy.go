package devchain

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/internal/evm/usdc"
)

// deployTimeout bounds the dev USDC deployment when Start's ctx has no
// tighter deadline.
const deployTimeout = 30 * time.Second

// ensureUSDC deploys the dev USDC at USDCAddress unless it is already there
// (a restart on an existing data dir). The deployment must be the deployer's
// first transaction, which is what puts the contract at USDCAddress.
func (c *Chain) ensureUSDC(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, deployTimeout)
	defer cancel()
	client := c.Client()
	defer client.Close()
	code, err := client.CodeAt(ctx, USDCAddress, nil)
	if err != nil {
		return fmt.Errorf("read code at %s: %w", USDCAddress, err)
	}
	if len(code) > 0 {
		return nil
	}
	deployerMu.Lock()
	defer deployerMu.Unlock()
	nonce, err := client.PendingNonceAt(ctx, DeployerAddress)
	if err != nil {
		return fmt.Errorf("deployer nonce: %w", err)
	}
	if nonce != 0 {
		return fmt.Errorf("no contract at %s but the deployer has already used nonce 0, "+
			"so the dev USDC cannot be put at its fixed address; start from an empty data dir", USDCAddress)
	}
	hash, err := sendTx(ctx, client, DeployerKey(), txCall{data: common.FromHex(usdc.USDCMetaData.Bin)})
	if err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	receipt, err := waitReceipt(ctx, client, hash)
	if err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	if receipt.ContractAddress != USDCAddress {
		return fmt.Errorf("deployed at %s, want %s", receipt.ContractAddress, USDCAddress)
	}
	return nil
}
