package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// fakeAutoTopUp plays the setting, the balance and the claims: each check under the threshold is a
// round (one per run key, as the rounds table makes it); a round claims `claimable` and credits it;
// the first await of each round is "not ended yet"; the setting is disabled after `checks` checks.
type fakeAutoTopUp struct {
	enabledChecks int
	below         int64
	balance       int64
	claimable     int64
	checks        int
	rounds        map[string]int
	credited      map[int]int
	awaited       map[int]int
}

func (f *fakeAutoTopUp) begin(_ context.Context, in workflows.AutoTopUpBeginInput) (workflows.AutoTopUpBegun, error) {
	if n, ok := f.rounds[in.RunKey]; ok {
		return workflows.AutoTopUpBegun{Enabled: true, Round: n}, nil
	}
	f.checks++
	if f.checks > f.enabledChecks {
		return workflows.AutoTopUpBegun{}, nil
	}
	if f.balance >= f.below {
		return workflows.AutoTopUpBegun{Enabled: true}, nil
	}
	f.rounds[in.RunKey] = len(f.rounds) + 1
	return workflows.AutoTopUpBegun{Enabled: true, Round: len(f.rounds)}, nil
}

func (f *fakeAutoTopUp) claim(_ context.Context, in workflows.AutoTopUpRoundInput) (workflows.AutoTopUpClaims, error) {
	if f.claimable == 0 {
		return workflows.AutoTopUpClaims{}, nil
	}
	return workflows.AutoTopUpClaims{ClaimIDs: []string{"fclm_round"}}, nil
}

func (f *fakeAutoTopUp) await(_ context.Context, in workflows.AutoTopUpRoundInput) error {
	f.awaited[in.Round]++
	if f.awaited[in.Round] == 1 {
		return errors.New("the claims have not ended yet")
	}
	return nil
}

func (f *fakeAutoTopUp) credit(_ context.Context, in workflows.AutoTopUpRoundInput) (workflows.AutoTopUpCredited, error) {
	f.credited[in.Round]++
	if f.credited[in.Round] == 1 {
		f.balance += f.claimable
		f.claimable = 0
	}
	return workflows.AutoTopUpCredited{ClaimedWei: "1", Millicredits: f.balance}, nil
}

func autoTopUpEnv(f *fakeAutoTopUp) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.AutoTopUpWorkflow, workflow.RegisterOptions{Name: workflows.AutoTopUpWorkflowName})
	env.RegisterActivityWithOptions(f.begin, activity.RegisterOptions{Name: workflows.ActivityAutoTopUpBegin})
	env.RegisterActivityWithOptions(f.claim, activity.RegisterOptions{Name: workflows.ActivityAutoTopUpClaim})
	env.RegisterActivityWithOptions(f.await, activity.RegisterOptions{Name: workflows.ActivityAutoTopUpAwait})
	env.RegisterActivityWithOptions(f.credit, activity.RegisterOptions{Name: workflows.ActivityAutoTopUpCredit})
	return env
}

func newFakeAutoTopUp(checks int, balance, claimable int64) *fakeAutoTopUp {
	return &fakeAutoTopUp{enabledChecks: checks, below: 100, balance: balance, claimable: claimable,
		rounds: map[string]int{}, credited: map[int]int{}, awaited: map[int]int{}}
}

// TestAutoTopUpClaimsCreditsOnceThenIdlesUntilDisabled: the first check finds the balance low: the
// round claims, waits past a "not ended" answer, credits once; later checks (each after the 15-minute
// timer) find the balance above the threshold and start no round; the workflow ends once the setting is
// disabled.
func TestAutoTopUpClaimsCreditsOnceThenIdlesUntilDisabled(t *testing.T) {
	t.Parallel()
	f := newFakeAutoTopUp(3, 10, 500)
	env := autoTopUpEnv(f)
	start := env.Now()
	env.ExecuteWorkflow(workflows.AutoTopUpWorkflowName, workflows.AutoTopUpParams{AccountID: "acct_test"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res workflows.AutoTopUpResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, workflows.AutoTopUpResult{Outcome: "disabled", Rounds: 1}, res)
	require.Equal(t, map[int]int{1: 1}, f.credited, "one round, credited once")
	require.Equal(t, 2, f.awaited[1], "the round waited for its claims")
	require.Equal(t, int64(510), f.balance)
	require.Equal(t, 4, f.checks)
	require.GreaterOrEqual(t, env.Now().Sub(start), 3*workflows.AutoTopUpInterval, "checks are 15 minutes apart")
}

// TestAutoTopUpSignalChecksNow: a signal (a charge left the balance low) starts a check before the
// timer; a round with nothing claimable credits nothing and skips the wait.
func TestAutoTopUpSignalChecksNow(t *testing.T) {
	t.Parallel()
	f := newFakeAutoTopUp(2, 500, 0)
	env := autoTopUpEnv(f)
	start := env.Now()
	env.RegisterDelayedCallback(func() {
		f.balance = 10
		env.SignalWorkflow(workflows.AutoTopUpCheckSignal, nil)
	}, time.Minute)
	env.ExecuteWorkflow(workflows.AutoTopUpWorkflowName, workflows.AutoTopUpParams{AccountID: "acct_test"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res workflows.AutoTopUpResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, workflows.AutoTopUpResult{Outcome: "disabled", Rounds: 1}, res)
	require.Equal(t, map[int]int{1: 1}, f.credited, "the no-op round is recorded once")
	require.Empty(t, f.awaited, "nothing claimed, nothing awaited")
	require.Less(t, env.Now().Sub(start), 2*workflows.AutoTopUpInterval, "the signal checked before the timer")
}

// TestAutoTopUpContinuesAsNew: after its checks per run the workflow continues as new, carrying the
// rounds counted.
func TestAutoTopUpContinuesAsNew(t *testing.T) {
	t.Parallel()
	f := newFakeAutoTopUp(1000, 500, 0)
	env := autoTopUpEnv(f)
	env.ExecuteWorkflow(workflows.AutoTopUpWorkflowName, workflows.AutoTopUpParams{AccountID: "acct_test", Rounds: 7})
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	require.Equal(t, 64, f.checks)
}
