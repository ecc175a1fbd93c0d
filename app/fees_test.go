package app

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/devchain"
)

// TestFeeConfig: the fee settings are read and checked; svcd dev points them at its chain with no
// confirmations, and the other modes default to DefaultFeeIndexConfirmations.
func TestFeeConfig(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	c, err := feesFromEnv(env(nil))
	require.NoError(t, err)
	require.Empty(t, c.Manager, "no FeesManager: no fee routes, no indexer")
	dev := DevFees(c)
	require.Equal(t, devchain.FeesManagerAddress.Hex(), dev.Manager)
	require.Equal(t, devchain.WETHAddress.Hex(), dev.WETH)
	require.Zero(t, dev.Confirmations)

	manager, weth := "0x00000000000000000000000000000000000000f1", "0x00000000000000000000000000000000000000e1"
	c, err = feesFromEnv(env(map[string]string{"SVC_FEES_MANAGER_ADDRESS": manager, "SVC_WETH_ADDRESS": weth,
		"SVC_FEE_INDEX_CONFIRMATIONS": "3", "SVC_FEE_INDEX_START_BLOCK": "100"}))
	require.NoError(t, err)
	require.Equal(t, FeeConfig{Manager: manager, WETH: weth, Confirmations: 3, StartBlock: 100}, c)
	require.Equal(t, c, DevFees(c), "configured contracts and confirmations stay in dev mode")

	for name, vars := range map[string]map[string]string{
		"SVC_FEES_MANAGER_ADDRESS":     {"SVC_FEES_MANAGER_ADDRESS": "nope", "SVC_WETH_ADDRESS": weth},
		"SVC_WETH_ADDRESS is required": {"SVC_FEES_MANAGER_ADDRESS": manager},
		"SVC_FEE_INDEX_CONFIRMATIONS":  {"SVC_FEE_INDEX_CONFIRMATIONS": "-1"},
		"SVC_FEE_INDEX_START_BLOCK":    {"SVC_FEE_INDEX_START_BLOCK": "x"},
	} {
		_, err := feesFromEnv(env(vars))
		require.ErrorContains(t, err, name)
	}
}
