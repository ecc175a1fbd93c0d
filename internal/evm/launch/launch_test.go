package launch

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/stretchr/testify/require"
)

// signatures returns the ABI's function and event signatures, e.g. "getShares(bytes32,address)".
func signatures(t *testing.T, meta *bind.MetaData) (funcs, events map[string]bool) {
	t.Helper()
	parsed, err := meta.ParseABI()
	require.NoError(t, err)
	funcs, events = map[string]bool{}, map[string]bool{}
	for _, m := range parsed.Methods {
		funcs[m.Sig] = true
	}
	for _, e := range parsed.Events {
		events[e.Sig] = true
	}
	return funcs, events
}

// TestFeesManagerInterface pins the seed's fee-manager interface (what the API, the indexer and
// unsigned claim transactions rely on) and the launcher's.
func TestFeesManagerInterface(t *testing.T) {
	t.Parallel()
	funcs, events := signatures(t, &FeesManagerMetaData)
	for _, sig := range []string{
		"getShares(bytes32,address)", "getCumulatedFees0(bytes32)", "getCumulatedFees1(bytes32)",
		"getLastCumulatedFees0(bytes32,address)", "getLastCumulatedFees1(bytes32,address)",
		"collectFees(bytes32)", "updateBeneficiary(bytes32,address)", "pendingFees(bytes32,address)",
		"launch(bytes32,string,string,address,address,uint256)", "predictTokenAddress(address,bytes32)",
		"poolIdOf(address)", "getPool(bytes32)", "getDust(bytes32)", "getReleasedFees(bytes32)",
	} {
		require.True(t, funcs[sig], sig)
	}
	for _, sig := range []string{
		"Collect(bytes32,uint256,uint256)", "Release(bytes32,address,uint256,uint256)",
		"UpdateBeneficiary(bytes32,address,address,uint256)",
		"Launch(bytes32,address,address,address,address,address,bytes32,uint256,uint256)",
	} {
		require.True(t, events[sig], sig)
	}
}

// TestPoolAndTokenInterfaces pins the pool's swap and fee surface, and that the token cannot mint.
func TestPoolAndTokenInterfaces(t *testing.T) {
	t.Parallel()
	funcs, events := signatures(t, &LaunchPoolMetaData)
	for _, sig := range []string{
		"swapExactIn(address,uint256,uint256,address)", "getAmountOut(address,uint256)", "getReserves()",
		"getUncollectedFees()", "collect()", "poolId()", "initializer()", "token0()", "token1()",
	} {
		require.True(t, funcs[sig], sig)
	}
	require.True(t, events["Swap(address,address,address,uint256,uint256,uint256,uint256,uint256)"])

	funcs, _ = signatures(t, &LaunchTokenMetaData)
	require.True(t, funcs["vault()"])
	for sig := range funcs {
		require.NotContains(t, strings.ToLower(sig), "mint", "a LaunchToken's supply is fixed")
	}
}
