package apprun_test

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/schema"
)

// chainScript reads the dev USDC through every chain method and returns what it read; the failures
// it provokes are caught and returned too.
const chainScript = `
const { usdc, who } = args;
const erc20 = [
  "function balanceOf(address owner) view returns (uint256)",
  "function totalSupply() view returns (uint256)",
  "function decimals() view returns (uint8)",
  "function transfer(address to, uint256 amount) returns (bool)",
];
const supplyABI = [{ type: "function", name: "totalSupply", stateMutability: "view", inputs: [],
  outputs: [{ name: "", type: "uint256" }] }];
const out: any = {};
out.balance = await svc.chain.readContract({ address: usdc, abi: erc20, functionName: "balanceOf", args: [who] });
out.supply = await svc.chain.readContract({ address: usdc, abi: JSON.stringify(supplyABI), functionName: "totalSupply", args: [] });
out.multi = await svc.chain.multicall({ calls: [
  { address: usdc, abi: erc20, functionName: "balanceOf", args: [who] },
  { address: usdc, abi: supplyABI, functionName: "totalSupply", args: [] },
  { address: who, abi: erc20, functionName: "decimals", args: [] },
] });
out.native = await svc.chain.getBalance({ address: who });
out.token = await svc.chain.getBalance({ address: who, token: usdc });
out.logs = await svc.chain.getLogs({ address: usdc, event: "event Transfer(address indexed from, address indexed to, uint256 value)",
  args: { to: who }, fromBlock: 0, toBlock: "latest" });
out.calldata = await svc.chain.encodeFunctionData({ abi: erc20, functionName: "transfer", args: [who, "12345"] });
const refused = async (f: () => any) => { try { await f(); return "no error"; } catch (e) { return String(e.message || e); } };
out.badAddress = await refused(() => svc.chain.getBalance({ address: "0x12" }));
out.noFrom = await refused(() => svc.chain.getLogs({ address: usdc, event: "event Transfer(address indexed from, address indexed to, uint256 value)" }));
out.strict = await refused(() => svc.chain.readContract({ address: usdc, abi: erc20, functionName: "balanceOf", args: [who], gas: 1 }));
out.strictMulti = await refused(() => svc.chain.multicall({ allowFailure: false, calls: [{ address: who, abi: erc20, functionName: "decimals", args: [] }] }));
return out;`

// TestChainReadsOnDevChain: a script reads the dev USDC's balanceOf and totalSupply (readContract and
// one batched multicall), a funded address's native and token balances, the mint's Transfer log, and
// encodes calldata exactly as go-ethereum does; bad params are refused naming the field.
func TestChainReadsOnDevChain(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	chain, err := devchain.Start(ctx, devchain.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = chain.Close() })
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	who := crypto.PubkeyToAddress(key.PublicKey)
	_, err = devchain.Fund(ctx, chain.RPCURL(), who, big.NewInt(2_500_000), big.NewInt(3e15))
	require.NoError(t, err)
	rc, err := rpc.DialContext(ctx, chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rc.Close)

	f := newFixture(t, []string{"read:chain"}, map[string]string{"chain": chainScript})
	f.runner.Host.Chain = rc
	id := f.queue(t, "chain")
	_, err = f.db.NewUpdate().Model((*schema.AppScriptRun)(nil)).Set("args = ?", `{"usdc": "`+devchain.USDCAddress.Hex()+`", "who": "`+strings.ToLower(who.Hex())+`"}`).
		Where("id = ?", id).Exec(ctx)
	require.NoError(t, err)
	out, err := f.runner.Run(ctx, id)
	require.NoError(t, err)
	require.Equal(t, schema.AppRunSucceeded, out.Status, out.Error)

	var got struct {
		Balance, Supply, Calldata, BadAddress, NoFrom, Strict, StrictMulti string
		Multi                                                              []map[string]any
		Native, Token                                                      map[string]any
		Logs                                                               []map[string]any
	}
	require.NoError(t, json.Unmarshal(f.row(t, id).Result, &got))
	var supply hexutil.Bytes
	supplyData := crypto.Keccak256([]byte("totalSupply()"))[:4]
	require.NoError(t, rc.CallContext(ctx, &supply, "eth_call", map[string]any{"to": devchain.USDCAddress, "data": hexutil.Bytes(supplyData)}, "latest"))
	require.Equal(t, "2500000", got.Balance)
	require.Equal(t, new(big.Int).SetBytes(supply).String(), got.Supply)
	require.Equal(t, "success", got.Multi[0]["status"])
	require.Equal(t, "2500000", got.Multi[0]["result"])
	require.Equal(t, got.Supply, got.Multi[1]["result"])
	require.Equal(t, "failure", got.Multi[2]["status"], "decimals of an address without code fails, alone")
	require.NotEmpty(t, got.Multi[2]["error"])
	require.Equal(t, map[string]any{"address": who.Hex(), "token": nil, "balance": "3000000000000000", "decimals": float64(18), "formatted": "0.003"}, got.Native)
	require.Equal(t, map[string]any{"address": who.Hex(), "token": devchain.USDCAddress.Hex(), "balance": "2500000", "decimals": float64(6), "formatted": "2.5"}, got.Token)

	require.Len(t, got.Logs, 1, "the mint to who")
	require.Equal(t, "Transfer", got.Logs[0]["eventName"])
	require.Equal(t, devchain.USDCAddress.Hex(), got.Logs[0]["address"])
	require.Equal(t, map[string]any{"from": common.Address{}.Hex(), "to": who.Hex(), "value": "2500000"}, got.Logs[0]["args"])

	erc20, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"type":"bool"}]}]`))
	require.NoError(t, err)
	want, err := erc20.Pack("transfer", who, big.NewInt(12345))
	require.NoError(t, err)
	require.Equal(t, hexutil.Encode(want), got.Calldata)

	require.Contains(t, got.BadAddress, "params.address")
	require.Contains(t, got.NoFrom, "params.fromBlock")
	require.Contains(t, got.Strict, "params.gas")
	require.Contains(t, got.StrictMulti, "params.calls[0]")
}

// TestChainReadsNeedReadChain: without read:chain every chain method is refused at once, naming the
// permission, and no chain is read (the Host has none).
func TestChainReadsNeedReadChain(t *testing.T) {
	t.Parallel()
	f := newFixture(t, []string{"read:appdata"}, map[string]string{"main": `
return await svc.chain.encodeFunctionData({ abi: "function f()", functionName: "f", args: [] });`})
	id := f.queue(t, "main")
	out, err := f.runner.Run(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, schema.AppRunFailed, out.Status)
	require.Contains(t, out.Error, `"read:chain"`)
	require.Zero(t, f.row(t, id).HostCalls)
}

// movingBalance is a chain whose every eth_getBalance answers a larger balance than the last.
type movingBalance struct {
	mu    sync.Mutex
	reads int64
}

func (m *movingBalance) BatchCallContext(_ context.Context, b []rpc.BatchElem) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range b {
		m.reads++
		*b[i].Result.(*hexutil.Big) = hexutil.Big(*big.NewInt(m.reads))
	}
	return nil
}

// TestRetriedRunReadsTheJournalledBalance: a run whose worker died after a chain read is retried and
// answered that read from the journal, not a new one, so it returns what its first attempt saw.
func TestRetriedRunReadsTheJournalledBalance(t *testing.T) {
	t.Parallel()
	f := newFixture(t, []string{"read:chain", "write:appdata"}, map[string]string{"bal": `
const b = await svc.chain.getBalance({ address: "0x52908400098527886E0F7030069857D2E4169EE7" });
await appKV.set("seen", b.balance);
return b.balance;`})
	chain := &movingBalance{}
	f.runner.Host.Chain = chain
	ctx := context.Background()
	id := f.queue(t, "bal")
	dying, cancel := context.WithCancel(ctx)
	f.runner.AfterJournal = func(context.Context) { cancel() } // the worker dies right after the read
	_, _ = f.runner.Run(dying, id)
	require.EqualValues(t, 1, chain.reads)
	require.Equal(t, schema.AppRunRunning, f.row(t, id).Status, "the first attempt died")

	f.runner.AfterJournal = nil
	out, err := f.runner.Run(ctx, id)
	require.NoError(t, err)
	require.Equal(t, schema.AppRunSucceeded, out.Status, out.Error)
	require.JSONEq(t, `"1"`, string(f.row(t, id).Result), "the retry saw the first attempt's balance")
	require.EqualValues(t, 1, chain.reads, "the retry read nothing")
}
