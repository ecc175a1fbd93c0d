package run

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// fakeEngine answers cancellations and descriptions as a test sets them, and records the cancellations.
// Any other call panics on the nil embedded Engine: cancelling must start nothing.
type fakeEngine struct {
	Engine
	mu          sync.Mutex
	cancelErr   error
	status      enums.WorkflowExecutionStatus
	describeErr error
	cancelled   []string
}

func (f *fakeEngine) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.describeErr != nil {
		return nil, f.describeErr
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{
		WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: f.status}}, nil
}

func (f *fakeEngine) CancelWorkflow(_ context.Context, workflowID, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled = append(f.cancelled, workflowID)
	return f.cancelErr
}

func (f *fakeEngine) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.cancelled...)
}

// TestCancel covers the outcomes of Service.Cancel against a fake Temporal: the request reaches the run's
// workflow; finished, foreign and unauthorised runs change nothing; a run whose workflow is gone is
// recorded cancelled unless it may still be starting.
func TestCancel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	for _, q := range []string{
		"INSERT INTO accounts (id, name) VALUES ('acct_a', 'a'), ('acct_b', 'b')",
		"INSERT INTO api_keys (id, account_id, prefix, secret_hash, scopes, services) VALUES ('key_a', 'acct_a', 'p', 'h', '{}', '{}')",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err)
	}
	insert := func(id, status, age string) {
		t.Helper()
		_, err := db.ExecContext(ctx, `INSERT INTO runs (id, account_id, key_id, service_id, operation_id, status, input, workflow_id, created_at)
			VALUES (?, 'acct_a', 'key_a', 'managed-workflows', 'sleep', ?, '{"seconds":600}', ?, now() - ?::interval)`,
			id, status, "run/"+id, age)
		require.NoError(t, err)
	}
	own := tenant.Scope{AccountID: "acct_a"}
	newService := func(e *fakeEngine) *Service { return NewService(NewStore(db), e) }
	stored := func(id string) schema.Run {
		t.Helper()
		var r schema.Run
		require.NoError(t, db.NewSelect().Model(&r).Where("id = ?", id).Scan(ctx))
		return r
	}

	t.Run("running", func(t *testing.T) {
		insert("run_running", client.RunRunning, "0s")
		e := &fakeEngine{status: enums.WORKFLOW_EXECUTION_STATUS_RUNNING}
		r, err := newService(e).Cancel(ctx, own, "run_running", nil)
		require.NoError(t, err)
		require.Equal(t, client.RunRunning, r.Status, "the workflow, not the API, ends the run")
		require.Equal(t, []string{"run/run_running"}, e.calls())
	})
	t.Run("finished", func(t *testing.T) {
		insert("run_done", client.RunSucceeded, "0s")
		e := &fakeEngine{}
		_, err := newService(e).Cancel(ctx, own, "run_done", nil)
		require.True(t, svcerr.Is(err, svcerr.Conflict), "%v", err)
		require.Empty(t, e.calls())
	})
	t.Run("foreign and unknown", func(t *testing.T) {
		insert("run_foreign", client.RunRunning, "0s")
		e := &fakeEngine{}
		for _, c := range []struct {
			scope tenant.Scope
			id    string
		}{{tenant.Scope{AccountID: "acct_b"}, "run_foreign"}, {own, "run_nope"}} {
			_, err := newService(e).Cancel(ctx, c.scope, c.id, nil)
			require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
		}
		require.Empty(t, e.calls())
		require.Equal(t, client.RunRunning, stored("run_foreign").Status)
	})
	t.Run("unauthorised", func(t *testing.T) {
		insert("run_denied", client.RunRunning, "0s")
		e := &fakeEngine{}
		denied := svcerr.New(svcerr.ServiceAccessDenied, "no")
		_, err := newService(e).Cancel(ctx, own, "run_denied", func(r *schema.Run) error {
			require.Equal(t, "managed-workflows", r.ServiceID)
			return denied
		})
		require.ErrorIs(t, err, denied)
		require.Empty(t, e.calls())
	})
	t.Run("workflow gone", func(t *testing.T) {
		insert("run_gone", client.RunRunning, "0s")
		e := &fakeEngine{cancelErr: serviceerror.NewNotFound("workflow not found")}
		r, err := newService(e).Cancel(ctx, own, "run_gone", nil)
		require.NoError(t, err)
		require.Equal(t, client.RunCancelled, r.Status)
		require.Equal(t, "cancelled", *stored("run_gone").ErrorCode)
		require.NotNil(t, stored("run_gone").CompletedAt)
	})
	t.Run("workflow terminated", func(t *testing.T) {
		insert("run_terminated", client.RunRunning, "0s")
		e := &fakeEngine{status: enums.WORKFLOW_EXECUTION_STATUS_TERMINATED}
		r, err := newService(e).Cancel(ctx, own, "run_terminated", nil)
		require.NoError(t, err)
		require.Equal(t, client.RunCancelled, r.Status)
	})
	t.Run("workflow state unknown", func(t *testing.T) {
		insert("run_unknown", client.RunRunning, "0s")
		e := &fakeEngine{describeErr: serviceerror.NewUnavailable("down")}
		r, err := newService(e).Cancel(ctx, own, "run_unknown", nil)
		require.NoError(t, err)
		require.Equal(t, client.RunRunning, r.Status, "an unanswered question never rewrites a run")
	})
	t.Run("queued and maybe starting", func(t *testing.T) {
		insert("run_starting", client.RunQueued, "1s")
		e := &fakeEngine{cancelErr: serviceerror.NewNotFound("workflow not found")}
		_, err := newService(e).Cancel(ctx, own, "run_starting", nil)
		require.True(t, svcerr.Is(err, svcerr.Unavailable), "%v", err)
		require.Equal(t, client.RunQueued, stored("run_starting").Status)
	})
	t.Run("queued and never started", func(t *testing.T) {
		insert("run_stale", client.RunQueued, "1 hour")
		e := &fakeEngine{cancelErr: serviceerror.NewNotFound("workflow not found")}
		r, err := newService(e).Cancel(ctx, own, "run_stale", nil)
		require.NoError(t, err)
		require.Equal(t, client.RunCancelled, r.Status)
	})
	t.Run("temporal down", func(t *testing.T) {
		insert("run_down", client.RunRunning, "0s")
		e := &fakeEngine{cancelErr: serviceerror.NewUnavailable("down")}
		_, err := newService(e).Cancel(ctx, own, "run_down", nil)
		var unavailable *serviceerror.Unavailable
		require.ErrorAs(t, err, &unavailable, "the API answers 503 for it")
		require.Equal(t, client.RunRunning, stored("run_down").Status)
	})
}

// TestSweepPassesByARunCancelledSinceItWasListed: a queued run recorded cancelled (no workflow existed)
// after a sweep listed it is passed by when the sweep comes to it: its claim finds the row no longer
// unstarted, and nothing is started (the fake engine panics on a start).
func TestSweepPassesByARunCancelledSinceItWasListed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	for _, q := range []string{
		"INSERT INTO accounts (id, name) VALUES ('acct_a', 'a')",
		"INSERT INTO api_keys (id, account_id, prefix, secret_hash, scopes, services) VALUES ('key_a', 'acct_a', 'p', 'h', '{}', '{}')",
		`INSERT INTO runs (id, account_id, key_id, service_id, operation_id, status, input, workflow_id, created_at)
			VALUES ('run_1', 'acct_a', 'key_a', 'managed-workflows', 'echo', 'queued', '{}', 'run/run_1', now() - interval '2 minutes')`,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err)
	}
	s := NewService(NewStore(db), &fakeEngine{describeErr: serviceerror.NewNotFound("no workflow")})
	_, err := s.Cancel(ctx, tenant.Scope{AccountID: "acct_a"}, "run_1", nil)
	require.NoError(t, err)

	settled, err := s.sweepOne(ctx, "run_1")
	require.NoError(t, err)
	require.False(t, settled)
	var r schema.Run
	require.NoError(t, db.NewSelect().Model(&r).Where("id = 'run_1'").Scan(ctx))
	require.Equal(t, client.RunCancelled, r.Status)
	require.Nil(t, r.StartRetryAt, "not claimed")
}

// refusingEngine refuses every start; its descriptions are the fakeEngine's.
type refusingEngine struct{ *fakeEngine }

func (refusingEngine) ExecuteWorkflow(context.Context, sdkclient.StartWorkflowOptions, any, ...any) (sdkclient.WorkflowRun, error) {
	return nil, errors.New("temporal refused")
}

// TestAFailedStartKeepsARowOlderThanTheGrace: a create request whose start fails removes its run row only
// while the row is younger than StartGrace; an older one (a slow request, or a retry of one) may be the
// sweep's to start at that moment, and stays.
func TestAFailedStartKeepsARowOlderThanTheGrace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	for _, q := range []string{
		"INSERT INTO accounts (id, name) VALUES ('acct_a', 'a')",
		"INSERT INTO api_keys (id, account_id, prefix, secret_hash, scopes, services) VALUES ('key_a', 'acct_a', 'p', 'h', '{}', '{}')",
		`INSERT INTO runs (id, account_id, key_id, service_id, operation_id, status, input, workflow_id, created_at)
			VALUES ('run_old', 'acct_a', 'key_a', 'managed-workflows', 'echo', 'queued', '{}', 'run/run_old', now() - interval '2 minutes')`,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err)
	}
	s := NewService(NewStore(db), refusingEngine{&fakeEngine{describeErr: serviceerror.NewNotFound("no workflow")}})
	for _, id := range []string{"run_old", "run_new"} {
		_, err := s.Create(ctx, CreateParams{ID: id, Scope: tenant.Scope{AccountID: "acct_a"}, KeyID: "key_a",
			ServiceID: client.ServiceManagedWorkflows, OperationID: "echo"})
		require.True(t, svcerr.Is(err, svcerr.Unavailable), "%v", err)
	}
	var left []string
	require.NoError(t, db.NewSelect().Model((*schema.Run)(nil)).Column("id").Scan(ctx, &left))
	require.Equal(t, []string{"run_old"}, left, "the young row is forgotten, the old one left to the sweep")
}
