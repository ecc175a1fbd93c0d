package devchain

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/svcplatform/svc/internal/evm/usdc"
)

// deployTimeout bounds the dev USDC deployment when Start's ctx has no
// tighter deadline.
const deployTimeout = 30 * time.Second

// txIndexPoll is how often waitTxIndexed asks for the indexer's progress.
const txIndexPoll = 5 * time.Millisecond

// waitTxIndexed waits until geth's transaction indexer has indexed the chain (eth_syncing reports no
// transaction index left), or ctx ends. On a new chain the indexer starts only when the first block
// arrives, and until its first pass ends geth answers eth_getTransactionReceipt with "transaction
// indexing is in progress" and logs each such answer as a warning; asking only afterwards keeps a fresh
// start free of warnings. The first pass covers two blocks, so this takes milliseconds.
func waitTxIndexed(ctx context.Context, client *ethclient.Client) error {
	tick := time.NewTicker(txIndexPoll)
	defer tick.Stop()
	for {
		progress, err := client.SyncProgress(ctx)
		if err != nil {
			return fmt.Errorf("transaction index progress: %w", err)
		}
		if progress == nil || progress.TxIndexRemainingBlocks == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the transaction index: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

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
	if err := waitTxIndexed(ctx, client); err != nil {
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
