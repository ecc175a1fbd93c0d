package devchain

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/evm/uniswap"
	"github.com/svcplatform/svc/internal/evm/usdc"
)

// deployTimeout bounds the contract deployments when Start's ctx has no
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

// deployment is one of the deployer's contracts: created by its transaction
// with nonce, which is what puts it at address.
type deployment struct {
	name    string
	address common.Address
	nonce   uint64
	code    []byte // init code, constructor arguments included
}

// deployments are the dev chain's contracts in the order of the deployer's
// first nonces: the dev USDC, WETH9, then the FeesManager (trading against
// that WETH, with the dev platform, ecosystem and protocol beneficiaries).
func deployments() []deployment {
	fees := launch.NewFeesManager()
	return []deployment{
		{name: "dev USDC", address: USDCAddress, nonce: 0, code: common.FromHex(usdc.USDCMetaData.Bin)},
		{name: "WETH9", address: WETHAddress, nonce: 1, code: common.FromHex(launch.WETH9MetaData.Bin)},
		{name: "FeesManager", address: FeesManagerAddress, nonce: 2, code: append(common.FromHex(launch.FeesManagerMetaData.Bin),
			fees.PackConstructor(WETHAddress, PlatformAddress, EcosystemAddress, ProtocolAddress)...)},
		{name: "UniswapV2Factory", address: UniswapFactoryAddress, nonce: 3, code: append(common.FromHex(uniswap.FactoryMetaData.Bin),
			uniswap.NewFactory().PackConstructor(DeployerAddress)...)},
		{name: "UniswapV2Router02", address: UniswapRouterAddress, nonce: 4, code: append(common.FromHex(uniswap.RouterMetaData.Bin),
			uniswap.NewRouter().PackConstructor(UniswapFactoryAddress, WETHAddress)...)},
	}
}

// ensureContracts deploys each of deployments() that is not at its address
// yet (all of them on a new chain, none on a restart, the missing ones on a
// data dir made before they existed) and seeds the Uniswap USDC/WETH pair
// unless it exists, sending everything back to back (one block takes it all),
// then waits for the receipts.
func (c *Chain) ensureContracts(ctx context.Context) error { return c.ensure(ctx, deployments(), true) }

// ensure deploys those of list (in nonce order) that are missing, then (with seed) the pair's liquidity
// if missing, and waits for their receipts.
func (c *Chain) ensure(ctx context.Context, list []deployment, seed bool) error {
	ctx, cancel := context.WithTimeout(ctx, deployTimeout)
	defer cancel()
	client := c.Client()
	defer client.Close()
	deployerMu.Lock()
	sent, next, err := deployMissing(ctx, client, list)
	var seeds []common.Hash
	if err == nil && seed {
		seeds, err = seedPairs(ctx, client, next)
	}
	deployerMu.Unlock()
	if err != nil || len(sent)+len(seeds) == 0 {
		return err
	}
	if err := waitTxIndexed(ctx, client); err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	for _, s := range sent {
		if err := s.wait(ctx, client); err != nil {
			return fmt.Errorf("%s: deploy: %w", s.name, err)
		}
	}
	for _, h := range seeds {
		if _, err := waitReceipt(ctx, client, h); err != nil {
			return fmt.Errorf("seed the dev pairs: %w", err)
		}
	}
	return nil
}

// seedPairs sends the missing liquidity of the dev pairs, USDC/WETH then DEV/WETH (seedMissing,
// devSeedMissing), from the deployer's next nonce next, and answers the transactions' hashes.
func seedPairs(ctx context.Context, client *ethclient.Client, next uint64) ([]common.Hash, error) {
	seeds, err := seedMissing(ctx, client, next)
	if err != nil {
		return nil, err
	}
	if len(seeds) > 0 {
		next = seedNonce + uint64(len(seeds))
	}
	dev, err := devSeedMissing(ctx, client, next)
	return append(seeds, dev...), err
}

// sentDeployment is a deployment whose transaction is submitted.
type sentDeployment struct {
	deployment
	hash common.Hash
}

// wait waits for the deployment's receipt and checks where the contract landed.
func (s sentDeployment) wait(ctx context.Context, client *ethclient.Client) error {
	receipt, err := waitReceipt(ctx, client, s.hash)
	if err != nil {
		return err
	}
	if receipt.ContractAddress != s.address {
		return fmt.Errorf("deployed at %s, want %s", receipt.ContractAddress, s.address)
	}
	return nil
}

// deployMissing submits, at their own nonces, the deployments whose address holds no code, and returns
// them with the deployer's next nonce after them. The caller holds deployerMu. The deployer's next nonce must be the first missing one's: otherwise
// the contract cannot land at its fixed address. The nonce is read once, before sending: the node's
// pending nonce can lag right after its own block.
func deployMissing(ctx context.Context, client *ethclient.Client, list []deployment) ([]sentDeployment, uint64, error) {
	next, err := client.PendingNonceAt(ctx, DeployerAddress)
	if err != nil {
		return nil, 0, fmt.Errorf("deployer nonce: %w", err)
	}
	var sent []sentDeployment
	for _, d := range list {
		code, err := client.CodeAt(ctx, d.address, nil)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: read code at %s: %w", d.name, d.address, err)
		}
		if len(code) > 0 {
			continue
		}
		if next != d.nonce {
			return nil, 0, fmt.Errorf("%s: no contract at %s but the deployer's next nonce is %d, not %d, "+
				"so it cannot be put at its fixed address (a data dir from before it existed, where the faucet "+
				"has used the deployer since?); delete the data dir to start a fresh dev chain", d.name, d.address, next, d.nonce)
		}
		hash, err := sendTxAt(ctx, client, DeployerKey(), d.nonce, txCall{data: d.code})
		if err != nil {
			return nil, 0, fmt.Errorf("%s: deploy: %w", d.name, err)
		}
		sent = append(sent, sentDeployment{d, hash})
		next++
	}
	return sent, next, nil
}
