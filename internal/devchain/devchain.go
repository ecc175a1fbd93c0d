// Package devchain runs an embedded Ethereum development chain for `svcd dev`:
// an in-process go-ethereum node that does what `geth --dev` does (chain id
// 1337, a block as soon as a transaction arrives, every fork active), serves
// standard JSON-RPC over HTTP, keeps its state in a data directory across
// restarts, and holds the dev USDC, WETH9 and the FeesManager (token launches
// and their fee split) at fixed addresses.
//
// The dev accounts are the public Hardhat/Anvil test keys. They are known to
// everyone: this chain is for local development only and nothing on it has
// any value.
package devchain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// DefaultAddr is where the JSON-RPC endpoint listens when Config.Addr is empty.
const DefaultAddr = "127.0.0.1:8545"

// instanceName names the node's folder inside Config.DataDir.
const instanceName = "devchain"

// Config configures Start.
type Config struct {
	// Addr is the host:port the HTTP JSON-RPC endpoint listens on; empty means
	// DefaultAddr. Port 0 picks a free port; read it back with Chain.RPCURL.
	Addr string
	// DataDir keeps the chain across restarts (e.g. ".data/chain"); empty
	// keeps it in memory only.
	DataDir string
	// Logger receives geth's warnings and errors (its debug output too when
	// the logger is enabled at debug level). Nil keeps geth silent. A non-nil
	// logger also becomes geth's process-wide logger until Close.
	Logger *slog.Logger
}

// Chain is a running dev chain. Close it to stop the node and flush its state.
type Chain struct {
	stack      *node.Node
	backend    *eth.Ethereum
	beacon     *catalyst.SimulatedBeacon
	producer   *producer
	rpcURL     string
	restoreLog func()
}

// Start starts the dev chain and makes sure the dev USDC, WETH9 and the
// FeesManager are deployed at USDCAddress, WETHAddress and FeesManagerAddress
// (deploying them when the chain is new), and funds the gas sponsor (SponsorAddress). ctx bounds the start-up
// only; the chain runs until Close.
func Start(ctx context.Context, cfg Config) (*Chain, error) {
	c, err := startNode(cfg, genesis())
	if err != nil {
		return nil, err
	}
	if err := c.ensureContracts(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("devchain: %w", err), c.Close())
	}
	if err := c.ensureSponsor(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("devchain: %w", err), c.Close())
	}
	return c, nil
}

// startNode assembles and starts the node, the Ethereum service and the
// on-demand block producer on genesis gen.
func startNode(cfg Config, gen *core.Genesis) (*Chain, error) {
	nodeCfg, err := nodeConfig(cfg)
	if err != nil {
		return nil, err
	}
	restore := installRootLogger(cfg.Logger, nodeCfg.Logger)
	stack, err := node.New(nodeCfg)
	if err != nil {
		restore()
		return nil, explainOpenError(err, cfg.DataDir)
	}
	c := &Chain{stack: stack, restoreLog: restore}
	if err := c.attachServices(gen); err != nil {
		return nil, errors.Join(explainOpenError(err, cfg.DataDir), c.Close())
	}
	if err := stack.Start(); err != nil {
		return nil, errors.Join(fmt.Errorf("devchain: start node: %w", err), c.Close())
	}
	c.producer = startProducer(c.beacon, c.backend.TxPool(), c.backend.ChainDb(), c.backend.BlockChain())
	c.rpcURL = stack.HTTPEndpoint()
	return c, nil
}

// attachServices registers the Ethereum service and the log-filter API on
// the (not yet started) node and creates the simulated beacon that seals its
// blocks.
func (c *Chain) attachServices(gen *core.Genesis) error {
	backend, err := eth.New(c.stack, ethConfig(gen))
	if err != nil {
		return fmt.Errorf("open chain: %w", err)
	}
	c.backend = backend
	fs := filters.NewFilterSystem(backend.APIBackend, filters.Config{})
	c.stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(fs)}})
	// Period 0: the beacon seals only when asked (by the producer).
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, backend)
	if err != nil {
		return fmt.Errorf("create block producer: %w", err)
	}
	c.beacon = beacon
	return nil
}

// nodeConfig is the node shell: HTTP JSON-RPC on cfg.Addr, no P2P, no IPC.
func nodeConfig(cfg Config) (*node.Config, error) {
	addr := cfg.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("devchain: listen address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(portText)
	if host == "" || err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("devchain: listen address %q: want host:port, e.g. %s", addr, DefaultAddr)
	}
	nc := node.DefaultConfig
	nc.Name = instanceName
	nc.DataDir = cfg.DataDir
	if cfg.DataDir != "" { // keep geth's (empty) keystore inside the instance folder
		nc.KeyStoreDir = filepath.Join(cfg.DataDir, instanceName, "keystore")
	}
	nc.IPCPath = ""
	nc.HTTPHost, nc.HTTPPort = host, port
	nc.HTTPModules = []string{"eth", "net", "web3", "txpool"}
	nc.HTTPVirtualHosts = []string{"localhost"} // IP-literal hosts are always accepted
	nc.HTTPCors = []string{"*"}                 // browser dapps on any dev origin
	nc.P2P = p2p.Config{NoDiscovery: true, NoDial: true, MaxPeers: 0, ListenAddr: ""}
	nc.Logger = gethLogger(cfg.Logger)
	return &nc, nil
}

// ethConfig is the Ethereum service: full sync on gen, archive-mode hash
// state (every block's state is written through, so a killed process loses
// nothing), a 1 wei minimum tip (as geth --dev: the miner must include all
// the pool accepts, or the on-demand sealer spins), small caches.
func ethConfig(gen *core.Genesis) *ethconfig.Config {
	ec := ethconfig.Defaults
	ec.Genesis = gen
	ec.NetworkId = ChainID
	ec.SyncMode = ethconfig.FullSync
	ec.StateScheme = rawdb.HashScheme
	ec.NoPruning = true
	ec.Miner.GasPrice = common.Big1
	ec.TxPool.NoLocals = true
	ec.TxPool.Journal = ""   // pending transactions are not kept across restarts
	ec.BlobPool.Datadir = "" // nor are blob transactions
	ec.DatabaseCache = 32
	ec.TrieCleanCache = 16
	ec.TrieDirtyCache = 0
	ec.SnapshotCache = 0
	// No log index: eth_getLogs scans block blooms instead, which is quick on
	// a chain that only grows when transactions arrive, and the indexer would
	// add ~0.4 s to every start and stop.
	ec.LogNoHistory = true
	return &ec
}

// explainOpenError adds the likely fix to errors opening dataDir.
func explainOpenError(err error, dataDir string) error {
	var mismatch *core.GenesisMismatchError
	var compat *params.ConfigCompatError
	switch {
	case errors.As(err, &mismatch), errors.As(err, &compat):
		return fmt.Errorf("devchain: %s holds a chain from a different genesis "+
			"(made by another svcd/go-ethereum version?); delete that directory to start a fresh dev chain: %w",
			dataDir, err)
	case errors.Is(err, node.ErrDatadirUsed):
		return fmt.Errorf("devchain: %s is in use (is another svcd dev running?): %w", dataDir, err)
	}
	return fmt.Errorf("devchain: %w", err)
}

// RPCURL is the HTTP JSON-RPC endpoint, e.g. "http://127.0.0.1:8545".
func (c *Chain) RPCURL() string { return c.rpcURL }

// Client returns a new in-process JSON-RPC client of the chain (no HTTP);
// the caller closes it.
func (c *Chain) Client() *ethclient.Client { return ethclient.NewClient(c.stack.Attach()) }

// Close stops the chain, flushing its state to the data directory.
func (c *Chain) Close() error {
	if c.producer != nil {
		c.producer.close()
		c.producer = nil
	}
	err := c.stack.Close()
	if errors.Is(err, node.ErrNodeStopped) {
		err = nil
	}
	c.restoreLog()
	if err != nil {
		return fmt.Errorf("devchain: close: %w", err)
	}
	return nil
}
