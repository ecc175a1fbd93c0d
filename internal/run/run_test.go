package run

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/workflows"
)

// TestFinishedRunsCachedWithinScope: a finished run read once is served from memory, but only to its own
// account and project.
func TestFinishedRunsCachedWithinScope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	for _, q := range []string{
		"INSERT INTO accounts (id, name) VALUES ('acct_a', 'a'), ('acct_b', 'b')",
		"INSERT INTO projects (id, account_id, name) VALUES ('proj_a', 'acct_a', 'p')",
		"INSERT INTO api_keys (id, account_id, prefix, secret_hash, scopes, services) VALUES ('key_a', 'acct_a', 'p', 'h', '{}', '{}')",
		`INSERT INTO runs (id, account_id, key_id, service_id, operation_id, status, input, workflow_id)
		 VALUES ('run_1', 'acct_a', 'key_a', 'managed-workflows', 'echo', 'running', '{"x":1}', 'run/run_1')`,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err)
	}
	s := NewStore(db)
	own := tenant.Scope{AccountID: "acct_a"}
	r, err := s.Read(ctx, own, "run_1")
	require.NoError(t, err)
	require.Equal(t, "running", r.Status)
	require.NoError(t, s.Finish(ctx, workflows.RunOutcome{RunID: "run_1", Status: "succeeded", Output: []byte(`{"y":2}`)}))
	r, err = s.Read(ctx, own, "run_1")
	require.NoError(t, err)
	require.Equal(t, "succeeded", r.Status, "a running run is never cached")
	require.Equal(t, map[string]any{"y": float64(2)}, r.Output)

	_, err = db.ExecContext(ctx, "UPDATE runs SET error_message = 'changed behind the cache' WHERE id = 'run_1'")
	require.NoError(t, err)
	r, err = s.Read(ctx, own, "run_1")
	require.NoError(t, err)
	require.Nil(t, r.Error, "served from the cache")

	project := "proj_a"
	for _, other := range []tenant.Scope{{AccountID: "acct_b"}, {AccountID: "acct_a", ProjectID: &project}} {
		_, err = s.Read(ctx, other, "run_1")
		require.True(t, svcerr.Is(err, svcerr.NotFound), "scope %+v", other)
	}
}

func TestBookkeepingOnAMissingRowFails(t *testing.T) {
	t.Parallel()
	s := NewWriteStore(testdb.New(t))
	ctx := context.Background()
	_, err := s.MarkRunning(ctx, "run_elsewhere")
	require.ErrorIs(t, err, ErrRunMissing)
	require.ErrorIs(t, s.Finish(ctx, workflows.RunOutcome{RunID: "run_elsewhere", Status: "succeeded"}), ErrRunMissing)
}
