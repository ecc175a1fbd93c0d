package devchain

import (
	"bufio"
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"
)

// startChain starts a chain on a free port, closed when the test ends.
func startChain(t *testing.T, dataDir string) *Chain {
	t.Helper()
	begin := time.Now()
	chain, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", DataDir: dataDir})
	require.NoError(t, err)
	t.Logf("Start took %v (data dir %q)", time.Since(begin), dataDir)
	t.Cleanup(func() { require.NoError(t, chain.Close()) })
	return chain
}

// dial connects to the chain's HTTP endpoint.
func dial(t *testing.T, chain *Chain) *ethclient.Client {
	t.Helper()
	client, err := ethclient.Dial(chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(client.Close)
	return client
}

// newAddress returns a fresh random address.
func newAddress(t *testing.T) common.Address {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	return crypto.PubkeyToAddress(key.PublicKey)
}

// transfer sends wei from the deployer to to and waits for the receipt.
func transfer(t *testing.T, client *ethclient.Client, to common.Address, wei *big.Int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	deployerMu.Lock()
	hash, err := sendTx(ctx, client, DeployerKey(), txCall{to: &to, value: wei})
	deployerMu.Unlock()
	require.NoError(t, err)
	_, err = waitReceipt(ctx, client, hash)
	require.NoError(t, err)
}

// usdcBalance reads addr's dev USDC balance through the bindings.
func usdcBalance(t *testing.T, client *ethclient.Client, addr common.Address) *big.Int {
	t.Helper()
	token := usdcABI.Instance(client, USDCAddress)
	balance, err := bind.Call(token, &bind.CallOpts{Context: t.Context()}, usdcABI.PackBalanceOf(addr), usdcABI.UnpackBalanceOf)
	require.NoError(t, err)
	return balance
}

// ethBalance reads addr's ether balance.
func ethBalance(t *testing.T, client *ethclient.Client, addr common.Address) *big.Int {
	t.Helper()
	balance, err := client.BalanceAt(t.Context(), addr, nil)
	require.NoError(t, err)
	return balance
}

func TestAccounts(t *testing.T) {
	t.Parallel()
	require.Equal(t, DeployerAddress, crypto.PubkeyToAddress(DeployerKey().PublicKey))
	require.Equal(t, FacilitatorAddress, crypto.PubkeyToAddress(FacilitatorKey().PublicKey))
	require.Equal(t, common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3"), USDCAddress)
	require.Equal(t, common.HexToAddress("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"), WETHAddress)
	require.Equal(t, common.HexToAddress("0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0"), FeesManagerAddress)
	require.Equal(t, PlatformAddress, crypto.PubkeyToAddress(PlatformKey().PublicKey))
	require.Equal(t, EcosystemAddress, crypto.PubkeyToAddress(EcosystemKey().PublicKey))
	require.Equal(t, ProtocolAddress, crypto.PubkeyToAddress(ProtocolKey().PublicKey))
	require.Equal(t, fmt.Sprintf("eip155:%d", ChainID), Network)
	require.Equal(t, common.HexToAddress("0x976EA74026E726554dB657fA54763abd0C3a0aa9"), SponsorAddress, "Hardhat/Anvil account #6")
}

// TestGenesisIsStable pins the genesis hash: existing data dirs only open
// while it stays the same. If a go-ethereum upgrade changes it, old dev
// chains must be deleted; say so in the upgrade's notes, then update here.
func TestGenesisIsStable(t *testing.T) {
	t.Parallel()
	hash := genesis().ToBlock().Hash()
	require.Equal(t, hash, genesis().ToBlock().Hash())
	require.Equal(t, common.HexToHash(pinnedGenesisHash), hash)
}

// pinnedGenesisHash is genesis()'s hash with go-ethereum v1.17.10.
const pinnedGenesisHash = "0xe210ad0a615d9641d4f8ff44ed1a2c01d9661eb87bf0d058ca994fdbcff09151"

// TestTransferMinedWithinASecond is not parallel: its time bound should not
// measure the other tests' chains competing for the CPU. The start's blocks
// (deployments, the pair's seed, the sponsor's funding) may run chain time up
// to maxDrift ahead of the clock, and then the next block waits for it by
// design; the transfer is sent once the head is no longer ahead, so the bound
// measures mining alone.
func TestTransferMinedWithinASecond(t *testing.T) {
	chain := startChain(t, "")
	client := dial(t, chain)
	ctx := t.Context()
	require.Eventually(t, func() bool {
		head, err := client.HeaderByNumber(ctx, nil)
		return err == nil && int64(head.Time) < time.Now().Unix()
	}, 5*time.Second, 20*time.Millisecond, "chain time never fell back behind the clock")

	id, err := client.ChainID(ctx)
	require.NoError(t, err)
	require.EqualValues(t, ChainID, id.Int64())
	before, err := client.BlockNumber(ctx)
	require.NoError(t, err)

	to := newAddress(t)
	begin := time.Now()
	deployerMu.Lock()
	hash, err := sendTx(ctx, client, DeployerKey(), txCall{to: &to, value: big.NewInt(1e15)})
	deployerMu.Unlock()
	require.NoError(t, err)
	waitCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	receipt, err := waitReceipt(waitCtx, client, hash)
	require.NoError(t, err)
	elapsed := time.Since(begin)
	require.Less(t, elapsed, time.Second)
	t.Logf("send to receipt: %v (block %s)", elapsed, receipt.BlockNumber)

	after, err := client.BlockNumber(ctx)
	require.NoError(t, err)
	require.Greater(t, after, before)
	require.Equal(t, big.NewInt(1e15), ethBalance(t, client, to))
	require.Positive(t, ethBalance(t, client, FacilitatorAddress).Sign())
}

func TestStatePersistsAcrossRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	to := newAddress(t)
	wei, atomic := big.NewInt(123456789), big.NewInt(25_500_000)

	first, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", DataDir: dir})
	require.NoError(t, err)
	_, err = Fund(t.Context(), first.RPCURL(), to, atomic, wei)
	require.NoError(t, err)
	require.NoError(t, first.Close())

	second := startChain(t, dir)
	client := dial(t, second)
	require.Equal(t, wei, ethBalance(t, client, to))
	require.Equal(t, atomic, usdcBalance(t, client, to))
	requireContracts(t, client)
	transfer(t, client, to, wei) // and the restarted chain still mines
	require.Equal(t, new(big.Int).Add(wei, wei), ethBalance(t, client, to))
}

func TestFreshChainsShareTheUSDCAddress(t *testing.T) {
	t.Parallel()
	for range 2 {
		client := dial(t, startChain(t, t.TempDir()))
		requireContracts(t, client)
		require.Zero(t, usdcBalance(t, client, DeployerAddress).Sign())
	}
}

// requireContracts requires code at the dev USDC's, WETH9's and the FeesManager's addresses.
func requireContracts(t *testing.T, client *ethclient.Client) {
	t.Helper()
	for _, d := range deployments() {
		code, err := client.CodeAt(t.Context(), d.address, nil)
		require.NoError(t, err)
		require.NotEmpty(t, code, d.name)
	}
	bal, err := client.BalanceAt(t.Context(), SponsorAddress, nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, bal.Cmp(etherToWei(sponsorFloorETH)), 0, "the gas sponsor is funded at start")
}

// olderChain makes, in dir, a chain from before WETH9 and the FeesManager: only the dev USDC is
// deployed. With faucetUsed, the deployer has then sent a transfer (taking nonce 1).
func olderChain(t *testing.T, dir string, faucetUsed bool) {
	t.Helper()
	chain, err := startNode(Config{Addr: "127.0.0.1:0", DataDir: dir}, genesis())
	require.NoError(t, err)
	defer func() { require.NoError(t, chain.Close()) }()
	require.NoError(t, chain.ensure(t.Context(), deployments()[:1], false))
	if faucetUsed {
		client := chain.Client()
		defer client.Close()
		transfer(t, client, newAddress(t), big.NewInt(1))
	}
}

func TestOlderDataDirGetsTheLaunchContracts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	olderChain(t, dir, false)
	requireContracts(t, dial(t, startChain(t, dir)))
}

func TestOlderDataDirWithUsedNoncesIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	olderChain(t, dir, true)
	_, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", DataDir: dir})
	require.ErrorContains(t, err, "WETH9")
	require.ErrorContains(t, err, "delete the data dir")
}

func TestOtherGenesisIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := genesis()
	old.ExtraData = []byte("an older dev chain")
	chain, err := startNode(Config{Addr: "127.0.0.1:0", DataDir: dir}, old)
	require.NoError(t, err)
	require.NoError(t, chain.Close())

	_, err = Start(t.Context(), Config{Addr: "127.0.0.1:0", DataDir: dir})
	require.ErrorContains(t, err, "different genesis")
	require.ErrorContains(t, err, dir)
}

func TestDataDirInUseIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	startChain(t, dir)
	_, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", DataDir: dir})
	require.ErrorContains(t, err, "in use")
}

func TestBadAddrIsRefused(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"8545", ":8545", "127.0.0.1:http-alt", "127.0.0.1:70000"} {
		_, err := Start(t.Context(), Config{Addr: addr})
		require.ErrorContains(t, err, "listen address", addr)
	}
}

func TestFund(t *testing.T) {
	t.Parallel()
	chain := startChain(t, "")
	client := dial(t, chain)
	to := newAddress(t)

	res, err := Fund(t.Context(), chain.RPCURL(), to, big.NewInt(5_000_000), big.NewInt(1e18))
	require.NoError(t, err)
	require.NotZero(t, res.USDCTx)
	require.NotZero(t, res.ETHTx)
	require.Equal(t, big.NewInt(5_000_000), usdcBalance(t, client, to))
	require.Equal(t, big.NewInt(1e18), ethBalance(t, client, to))

	res, err = Fund(t.Context(), chain.RPCURL(), to, big.NewInt(1), nil)
	require.NoError(t, err)
	require.Zero(t, res.ETHTx)
	require.Equal(t, big.NewInt(5_000_001), usdcBalance(t, client, to))
}

func TestFundInParallel(t *testing.T) {
	t.Parallel()
	chain := startChain(t, "")
	client := dial(t, chain)
	to := newAddress(t)
	errs := make(chan error, 4)
	for range cap(errs) {
		go func() {
			_, err := Fund(t.Context(), chain.RPCURL(), to, big.NewInt(1_000_000), big.NewInt(1))
			errs <- err
		}()
	}
	for range cap(errs) {
		require.NoError(t, <-errs)
	}
	require.Equal(t, big.NewInt(4_000_000), usdcBalance(t, client, to))
	require.Equal(t, big.NewInt(4), ethBalance(t, client, to))
}

func TestFundRefusesBadInput(t *testing.T) {
	t.Parallel()
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	huge := new(big.Int).Lsh(big.NewInt(1), 256)
	for name, tc := range map[string]struct {
		to         common.Address
		usdc, wei  *big.Int
		wantSubstr string
	}{
		"zero address":  {common.Address{}, big.NewInt(1), nil, "zero address"},
		"nothing":       {to, nil, big.NewInt(0), "nothing to send"},
		"negative USDC": {to, big.NewInt(-1), nil, "out of range"},
		"negative ETH":  {to, nil, big.NewInt(-1), "out of range"},
		"too much USDC": {to, huge, nil, "out of range"},
		"unreachable":   {to, big.NewInt(1), nil, "dial"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Fund(t.Context(), "http://127.0.0.1:1", tc.to, tc.usdc, tc.wei)
			require.ErrorContains(t, err, tc.wantSubstr)
		})
	}
}

func TestRevertsAreErrors(t *testing.T) {
	t.Parallel()
	chain := startChain(t, "")
	tooMuch := new(big.Int).Lsh(big.NewInt(1), 255) // the second mint overflows the total supply
	_, err := Fund(t.Context(), chain.RPCURL(), newAddress(t), tooMuch, nil)
	require.NoError(t, err)
	_, err = Fund(t.Context(), chain.RPCURL(), newAddress(t), tooMuch, nil)
	require.ErrorContains(t, err, "mint")
	t.Log(err)

	// A transaction that gets mined but reverts (only the owner may mint).
	client := dial(t, chain)
	usdcAddr := USDCAddress
	mint := txCall{to: &usdcAddr, data: usdcABI.PackMint(FacilitatorAddress, big.NewInt(1)), gas: 100_000}
	hash, err := sendTx(t.Context(), client, FacilitatorKey(), mint)
	require.NoError(t, err)
	_, err = waitReceipt(t.Context(), client, hash)
	require.ErrorContains(t, err, "status 0")
}

func TestParseUSDC(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"25.5": 25_500_000, "1": 1_000_000, "0.000001": 1, "007.10": 7_100_000} {
		got, err := ParseUSDC(in)
		require.NoError(t, err, in)
		require.Equal(t, big.NewInt(want), got, in)
	}
	for _, in := range []string{"", "0", "0.0", "-1", "+1", "1.", ".5", "1.0000001", "1e6", "1,5", " 1", "abc"} {
		_, err := ParseUSDC(in)
		require.Error(t, err, in)
	}
}

func TestParseETH(t *testing.T) {
	t.Parallel()
	got, err := ParseETH("1.5")
	require.NoError(t, err)
	require.Equal(t, big.NewInt(15e17), got)
	got, err = ParseETH("0")
	require.NoError(t, err)
	require.Zero(t, got.Sign())
	_, err = ParseETH("0.0000000000000000001")
	require.Error(t, err)
}

// crashDirEnv tells the test binary to run crashChild instead of the tests.
const crashDirEnv = "DEVCHAIN_CRASH_DIR"

// crashAmount is what the child funds the crash recipient with.
var crashAmount = big.NewInt(42_000_000)

// TestStateSurvivesKill funds an address in a child process, SIGKILLs it
// (no Close, so no state flush on shutdown) and checks the next Start still
// has the state: archive-mode hash state is written through on every block.
func TestStateSurvivesKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	to := newAddress(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, "DEVCHAIN_CRASH_TO="+to.Hex())
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // if the test fails early
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "funded\n", line)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()

	client := dial(t, startChain(t, dir))
	require.Equal(t, crashAmount, usdcBalance(t, client, to))
	require.Equal(t, crashAmount, ethBalance(t, client, to))
}

// TestCrashChild is TestStateSurvivesKill's child: it funds the address,
// says so and waits to be killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("only runs as TestStateSurvivesKill's child process")
	}
	chain, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", DataDir: dir})
	require.NoError(t, err)
	to := common.HexToAddress(os.Getenv("DEVCHAIN_CRASH_TO"))
	_, err = Fund(t.Context(), chain.RPCURL(), to, crashAmount, crashAmount)
	require.NoError(t, err)
	// The producer syncs after sealing, but that may still be under way when
	// the receipt is visible; sync here so the kill cannot race it.
	require.NoError(t, chain.backend.ChainDb().SyncKeyValue())
	fmt.Println("funded")
	<-t.Context().Done() // the parent kills the process
}

// TestBurstKeepsChainTimeNearTheClock: 40 transfers sent back to back are all mined, and the chain's
// time stays within maxDrift seconds of the wall clock (blocks batch transactions instead of running
// ahead of real time, which would expire authorizations early).
func TestBurstKeepsChainTimeNearTheClock(t *testing.T) {
	t.Parallel()
	client := dial(t, startChain(t, ""))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	to := newAddress(t)
	var hashes []common.Hash
	deployerMu.Lock()
	for range 40 {
		h, err := sendTx(ctx, client, DeployerKey(), txCall{to: &to, value: big.NewInt(1)})
		if err != nil {
			deployerMu.Unlock()
			require.NoError(t, err)
		}
		hashes = append(hashes, h)
	}
	deployerMu.Unlock()
	for _, h := range hashes {
		_, err := waitReceipt(ctx, client, h)
		require.NoError(t, err)
	}
	head, err := client.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	require.LessOrEqual(t, int64(head.Time), time.Now().Unix()+maxDrift, "chain time ran ahead of the clock")
	require.Equal(t, big.NewInt(40), ethBalance(t, client, to))
}
