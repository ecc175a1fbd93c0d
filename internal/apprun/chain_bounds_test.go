package apprun

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/require"
)

// longChain answers a chain 50,000 blocks long whose getLogs matches n logs; it counts getLogs calls.
type longChain struct {
	n     int
	reads int
}

func (c *longChain) BatchCallContext(_ context.Context, b []rpc.BatchElem) error {
	for i := range b {
		switch b[i].Method {
		case "eth_blockNumber":
			*b[i].Result.(*hexutil.Uint64) = 50_000
		case "eth_getLogs":
			c.reads++
			*b[i].Result.(*[]types.Log) = make([]types.Log, c.n)
		default:
			b[i].Error = fmt.Errorf("unexpected %s", b[i].Method)
		}
	}
	return nil
}

// TestGetLogsBounds: a range wider than MaxLogBlocks is refused before any log is read, naming the
// params; more than MaxLogs matches is an error asking for a narrower range.
func TestGetLogsBounds(t *testing.T) {
	t.Parallel()
	chain := &longChain{n: MaxLogs + 1}
	h := &Host{deps: HostDeps{Chain: chain}}
	call := func(from, to int) error {
		params, _ := json.Marshal(map[string]any{"address": common.Address{1}.Hex(), "fromBlock": from, "toBlock": to,
			"event": "event Transfer(address indexed from, address indexed to, uint256 value)"})
		_, err := h.Call(context.Background(), "chain.getLogs", []json.RawMessage{params})
		return err
	}
	err := call(1, MaxLogBlocks+1)
	require.ErrorContains(t, err, "params.fromBlock..params.toBlock spans 10001 blocks; at most 10000")
	require.Zero(t, chain.reads)
	require.ErrorContains(t, call(10, 5), "params.toBlock (5) is before params.fromBlock (10)")
	require.ErrorContains(t, call(1, 60_000), "params.toBlock (60000) is after the chain's head")
	require.ErrorContains(t, call(1, MaxLogBlocks), "1001 logs match, more than 1000")
	require.Equal(t, 1, chain.reads)
}
