package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/workflows"
)

// TestWorkerKilledMidAutoTopUpCreditsOnce launches a token and trades it, enables auto top-up with the
// balance under the threshold and kills the svcd worker (SIGKILL) once the round's credits committed and
// before its activity answered; another worker finishes the round: the claim is credited exactly once
// (one ledger top-up autotopup:<claimId>, the balance up by its amount once), and disabling ends the
// workflow.
func TestWorkerKilledMidAutoTopUpCreditsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true, FeeCacheTTL: -1})
	dir := t.TempDir()
	price := "SVC_NATIVE_USD_PRICE=3000"
	plain := startWorker(t, svcd, env, "", dir, append(chainEnv(env), price)...)
	ch := feetest.Attach(t, env.Chain)

	acct, key := accountKey(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	launchTradedFor(t, env, c, ch, plain)
	plain.kill(t)

	first := startWorker(t, svcd, env, "", dir, append(chainEnv(env), price, "SVC_TEST_FAULT="+activities.FaultAutoTopUpStallAfterCredit)...)
	book := ledger.New(env.DB)
	before, err := book.Balance(ctx, acct)
	require.NoError(t, err)
	below, target := before.Available/1000+1, int64(1_000_000)
	set := c.SetAutoTopUp(ctx, client.AutoTopUpRequest{Enabled: true, Below: &below, Target: &target})
	require.True(t, set.OK, "%v", set.Error)

	wid := workflows.AutoTopUpWorkflowID(acct)
	posted := func() int {
		var n int
		require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM ledger_transactions WHERE account_id = ? AND kind = ? AND reference LIKE 'autotopup:%'",
			acct, ledger.KindTopUp).Scan(ctx, &n))
		return n
	}
	require.Eventually(t, func() bool {
		return posted() == 1 && running(t, env, wid, workflows.ActivityAutoTopUpCredit)
	}, 120*time.Second, 10*time.Millisecond, "the round never stalled after its credit; worker log:\n%s", first.log)
	credited, err := book.Balance(ctx, acct)
	require.NoError(t, err)
	require.Greater(t, credited.Available, before.Available, "the round credited the claimed fees")
	first.kill(t)
	second := startWorker(t, svcd, env, "", dir, append(chainEnv(env), price)...)

	require.Eventually(t, func() bool { return !pending(t, env, wid, workflows.ActivityAutoTopUpCredit) },
		90*time.Second, 100*time.Millisecond, "the round never finished; second worker log:\n%s", second.log)
	off := c.SetAutoTopUp(ctx, client.AutoTopUpRequest{Enabled: false})
	require.True(t, off.OK, "%v", off.Error)
	require.Eventually(t, func() bool { return closedWorkflow(t, env, wid) }, 60*time.Second, 50*time.Millisecond,
		"disabling never ended the workflow; second worker log:\n%s", second.log)
	require.Equal(t, 1, posted(), "the claim was credited once")
	after, err := book.Balance(ctx, acct)
	require.NoError(t, err)
	require.Equal(t, credited.Available, after.Available, "no second credit")
	r := c.GetAutoTopUp(ctx)
	require.True(t, r.OK, "%v", r.Error)
	require.NotNil(t, r.Body.AutoTopUp.LastRound)
	require.Equal(t, ledger.FormatCredits(credited.Available-before.Available), r.Body.AutoTopUp.LastRound.Credited)
}

// pending reports whether the workflow has an activity of the type scheduled or started.
func pending(t *testing.T, env *apptest.Env, workflowID, activityType string) bool {
	t.Helper()
	desc, err := env.Temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
	require.NoError(t, err)
	for _, a := range desc.GetPendingActivities() {
		if a.GetActivityType().GetName() == activityType {
			return true
		}
	}
	return false
}

// closedWorkflow reports whether the workflow has ended.
func closedWorkflow(t *testing.T, env *apptest.Env, workflowID string) bool {
	t.Helper()
	desc, err := env.Temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
	require.NoError(t, err)
	return desc.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
}
