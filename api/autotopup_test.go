package api_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/autotopup"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/workflows"
)

// TestAutoTopUpClaimsLaunchFeesIntoCredits: an account launches a token from its managed wallet (the fee
// recipient) and the token is traded; with its balance under the threshold, enabling auto top-up starts
// workflow autotopup/<accountId>, whose round claims the fees (a fee claim of the account) and credits
// exactly the claimed WETH at the dev price (3,000 USD × 100 credits/USD), once, with reference
// autotopup:<claimId>; GET shows the round. Another account sees neither the round nor the claim.
// Disabling ends the workflow. With SVC_RECORD_HISTORIES=1 it records the workflow's history.
func TestAutoTopUpClaimsLaunchFeesIntoCredits(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1, WorkerNativeUSDPrice: app.DevNativeUSDPrice})
	tenant, other := newDatabaseAccount(t, env), newDatabaseAccount(t, env)
	c, co := sdkFor(env, tenant), sdkFor(env, other)
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	w, l, launched := launchAndTrade(t, env, c, ch)
	token := common.HexToAddress(l.TokenAddress)
	side := 0 // the pool's currencies are ordered by address: WETH is the other side of the token
	if bytes.Compare(token.Bytes(), devchain.WETHAddress.Bytes()) < 0 {
		side = 1
	}
	pending := ch.Pending(launched, common.HexToAddress(w.Address))
	want := autotopup.Millicredits(pending[side], app.DevNativeUSDPrice*100)
	// At least a credit: the round lifts the balance to `below` or over it, so no second round follows
	// and the round shown stays round 1.
	require.GreaterOrEqual(t, want, int64(1000), "the trades left WETH fees worth a credit or more: %v", pending)

	book := ledger.New(env.DB)
	before, err := book.Balance(ctx, tenant.id)
	require.NoError(t, err)
	below, target := before.Available/1000+1, int64(1_000_000)
	require.Less(t, before.Available+want, target*1000, "the target does not cap this test's credit")
	set := c.SetAutoTopUp(ctx, client.AutoTopUpRequest{Enabled: true, Below: &below, Target: &target})
	require.True(t, set.OK, "%v", set.Error)

	var round *client.AutoTopUpRound
	require.Eventually(t, func() bool {
		r := c.GetAutoTopUp(ctx)
		require.True(t, r.OK, "%v", r.Error)
		round = r.Body.AutoTopUp.LastRound
		return round != nil && round.EndedAt != nil
	}, 120*time.Second, 100*time.Millisecond, "the round never ended (last %+v)", round)
	require.Equal(t, 1, round.Round)
	require.Len(t, round.ClaimIDs, 1)
	claimID := round.ClaimIDs[0]
	require.Equal(t, autotopup.ClaimID(tenant.id, l.TokenAddress, 1), claimID, "the claim id is derived from account, token and round")
	require.Equal(t, ledger.FormatCredits(want), round.Credited)
	claim := c.FeeClaim(ctx, claimID)
	require.True(t, claim.OK, "%v", claim.Error)
	require.Equal(t, client.FeeClaimClaimed, claim.Body.Claim.Status)
	require.Equal(t, pending[side].String(), []string{claim.Body.Claim.Amount0, claim.Body.Claim.Amount1}[side])

	after, err := book.Balance(ctx, tenant.id)
	require.NoError(t, err)
	require.Equal(t, before.Available+want, after.Available, "credited exactly the claimed WETH at the price")
	var posted int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM ledger_transactions WHERE account_id = ? AND kind = ? AND reference = ?",
		tenant.id, ledger.KindTopUp, autotopup.Reference(claimID)).Scan(ctx, &posted))
	require.Equal(t, 1, posted, "one top-up for the claim")

	require.Equal(t, http.StatusNotFound, co.FeeClaim(ctx, claimID).StatusCode, "another account's claim is 404")
	theirs := co.GetAutoTopUp(ctx)
	require.True(t, theirs.OK, "%v", theirs.Error)
	require.Nil(t, theirs.Body.AutoTopUp.LastRound)

	off := c.SetAutoTopUp(ctx, client.AutoTopUpRequest{Enabled: false})
	require.True(t, off.OK, "%v", off.Error)
	id := workflows.AutoTopUpWorkflowID(tenant.id)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 30*time.Second, 20*time.Millisecond, "disabling ends the workflow")
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM ledger_transactions WHERE account_id = ? AND reference LIKE 'autotopup:%'",
		tenant.id).Scan(ctx, &posted))
	require.Equal(t, 1, posted, "nothing else was credited")
	if os.Getenv("SVC_RECORD_HISTORIES") == "1" {
		writeHistory(t, env, id, filepath.Join("..", "workflows", "testdata", "autotopup_credited.json"))
	}
}
