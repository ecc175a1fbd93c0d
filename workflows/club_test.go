package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// fakeClub plays the subscription's row: renewals succeed `paid` times and then lapse; every renewal
// of one period end is answered once however often it is asked (as the ledger reference makes it).
type fakeClub struct {
	periodEnd time.Time
	status    string
	paid      int
	charges   map[time.Time]int
	renewals  int
}

func (f *fakeClub) state(context.Context, string) (workflows.ClubState, error) {
	return workflows.ClubState{Exists: true, Generation: 1, Status: f.status, PeriodEnd: f.periodEnd}, nil
}

func (f *fakeClub) renew(_ context.Context, in workflows.ClubRenewInput) (workflows.ClubRenewal, error) {
	if !in.PeriodEnd.Equal(f.periodEnd) {
		return workflows.ClubRenewal{Outcome: "renewed", PeriodEnd: f.periodEnd}, nil
	}
	if f.status == "cancelled" {
		f.status = "ended"
		return workflows.ClubRenewal{Outcome: "ended"}, nil
	}
	if f.renewals >= f.paid {
		f.status = "lapsed"
		return workflows.ClubRenewal{Outcome: "lapsed"}, nil
	}
	f.renewals++
	f.charges[in.PeriodEnd]++
	f.periodEnd = f.periodEnd.AddDate(0, 1, 0)
	return workflows.ClubRenewal{Outcome: "renewed", PeriodEnd: f.periodEnd}, nil
}

func clubEnv(f *fakeClub) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.ClubWorkflow, workflow.RegisterOptions{Name: workflows.ClubWorkflowName})
	env.RegisterActivityWithOptions(f.state, activity.RegisterOptions{Name: workflows.ActivityClubState})
	env.RegisterActivityWithOptions(f.renew, activity.RegisterOptions{Name: workflows.ActivityRenewClub})
	return env
}

// TestClubRenewsEachPeriodThenLapses: the workflow sleeps to each period's end on a durable timer,
// renews twice (one charge per period) and ends when the third renewal cannot be paid.
func TestClubRenewsEachPeriodThenLapses(t *testing.T) {
	t.Parallel()
	f := &fakeClub{status: "active", paid: 2, charges: map[time.Time]int{}}
	env := clubEnv(f)
	start := env.Now()
	f.periodEnd = start.Add(30 * 24 * time.Hour)
	env.ExecuteWorkflow(workflows.ClubWorkflowName, workflows.ClubParams{AccountID: "acct_test"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res workflows.ClubResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, workflows.ClubResult{Outcome: "lapsed", Renewals: 2}, res)
	require.Len(t, f.charges, 2)
	for _, n := range f.charges {
		require.Equal(t, 1, n)
	}
	require.GreaterOrEqual(t, env.Now().Sub(start), 80*24*time.Hour, "it waited for three period ends")
}

// TestClubCancelledEndsAtPeriodEnd: a cancelled subscription is not charged again; the signal wakes the
// workflow to read the row, which it keeps waiting on until the period's end.
func TestClubCancelledEndsAtPeriodEnd(t *testing.T) {
	t.Parallel()
	f := &fakeClub{status: "active", paid: 5, charges: map[time.Time]int{}}
	env := clubEnv(f)
	start := env.Now()
	f.periodEnd = start.Add(365 * 24 * time.Hour)
	env.RegisterDelayedCallback(func() {
		f.status = "cancelled"
		env.SignalWorkflow(workflows.ClubChangedSignal, nil)
	}, time.Hour)
	env.ExecuteWorkflow(workflows.ClubWorkflowName, workflows.ClubParams{AccountID: "acct_test"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res workflows.ClubResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, workflows.ClubResult{Outcome: "ended"}, res)
	require.Empty(t, f.charges)
	require.GreaterOrEqual(t, env.Now().Sub(start), 365*24*time.Hour)
}
