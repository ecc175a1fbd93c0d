package app

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/testdb"
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

// TestWorkerRunsTheFeeIndexer: the worker's fee indexer follows the dev chain until it stops, and does
// nothing without a FeesManager.
func TestWorkerRunsTheFeeIndexer(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ch := feetest.Start(t)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runFeeIndexer(ctx, db, ch.Chain.RPCURL(), devchain.ChainID, DevFees(FeeConfig{Confirmations: -1}), slog.New(slog.DiscardHandler))
	}()
	keys := ch.Keys(1)
	l := ch.Launch(keys[0], crypto.PubkeyToAddress(keys[0].PublicKey), "Worker Token", "WRK")
	require.Eventually(t, func() bool {
		n, err := db.NewSelect().Table("fee_pools").Where("token = ?", strings.ToLower(l.Token.Hex())).Count(ctx)
		return err == nil && n == 1
	}, 20*time.Second, 50*time.Millisecond, "the worker's indexer finds the launch")
	stop()
	<-done

	off := make(chan struct{})
	go func() {
		defer close(off)
		runFeeIndexer(context.Background(), db, ch.Chain.RPCURL(), devchain.ChainID, FeeConfig{}, nil)
	}()
	<-off // returns at once: no FeesManager
}
