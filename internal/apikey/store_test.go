package apikey

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
)

// TestRevokeRacesChildCreation revokes a parent while children of it are being created: whatever the
// interleaving, no child may end up live under a revoked parent.
func TestRevokeRacesChildCreation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	_, err := db.ExecContext(ctx, "INSERT INTO accounts (id, name) VALUES ('acct_r', 'r')")
	require.NoError(t, err)
	store := NewStore(db)
	root, _, err := store.Create(ctx, NewKey{ID: NewID(), AccountID: "acct_r", Grants: FullGrants()})
	require.NoError(t, err)
	parent, _, err := store.Create(ctx, NewKey{ID: NewID(), AccountID: "acct_r", Parent: root, Grants: FullGrants()})
	require.NoError(t, err)

	const creators = 12
	var wg sync.WaitGroup
	errs := make(chan error, creators)
	for range creators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := store.Create(ctx, NewKey{ID: NewID(), AccountID: "acct_r", Parent: parent, Grants: FullGrants()})
			errs <- err
		}()
	}
	_, revokeErr := store.Revoke(ctx, root, parent.ID, time.Now())
	wg.Wait()
	close(errs)
	require.NoError(t, revokeErr)
	for err := range errs {
		if err != nil {
			require.True(t, svcerr.Is(err, svcerr.Unauthenticated), "a creation may only fail because the parent was revoked: %v", err)
		}
	}
	live, err := db.NewSelect().Table("api_keys").Where("parent_id = ? AND revoked_at IS NULL", parent.ID).Count(ctx)
	require.NoError(t, err)
	require.Zero(t, live, "a child outlived its parent's revocation")
}
