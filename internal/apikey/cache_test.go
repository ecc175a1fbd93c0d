package apikey

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
)

// TestCacheDropsKeysRevokedElsewhere plays two API processes: one revokes, the other had the key
// cached and must refuse it as soon as the NOTIFY arrives.
func TestCacheDropsKeysRevokedElsewhere(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testdb.New(t)
	// Test schemas share one database, so notifications of other tests reach this listener too: the
	// account id is unique, and keeping a key may take a second read when another test's revocation
	// raced the first (the cache keeps nothing read while something was invalidated).
	accountID := ids.New("acct")
	_, err := db.ExecContext(ctx, "INSERT INTO accounts (id, name) VALUES (?, 'c')", accountID)
	require.NoError(t, err)
	store := NewStore(db)
	key, secret, err := store.Create(ctx, NewKey{ID: NewID(), AccountID: accountID, Grants: FullGrants()})
	require.NoError(t, err)

	other := NewCache(store, time.Minute, 100, slog.New(slog.NewTextHandler(io.Discard, nil)))
	// Before its listener runs, the cache reads the database every time and keeps nothing.
	_, err = other.Authenticate(ctx, secret)
	require.NoError(t, err)
	require.Zero(t, other.size())

	go other.Listen(ctx, db)
	require.Eventually(t, other.keys.Listening, 5*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool {
		_, err := other.Authenticate(ctx, secret)
		require.NoError(t, err)
		return other.size() == 1
	}, 5*time.Second, 5*time.Millisecond, "a live listener lets the cache keep keys")

	// Served from memory: a change the cache is not told about is not seen.
	_, err = db.ExecContext(ctx, "UPDATE api_keys SET name = 'renamed' WHERE id = ?", key.ID)
	require.NoError(t, err)
	cachedKey, err := other.Authenticate(ctx, secret)
	require.NoError(t, err)
	require.Equal(t, "", cachedKey.Key.Name)

	_, err = store.Revoke(ctx, key, key.ID, time.Now())
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := other.Authenticate(ctx, secret)
		return svcerr.Is(err, svcerr.Unauthenticated)
	}, 5*time.Second, 2*time.Millisecond, "the revocation never reached the other cache")

	cancel()
	require.Eventually(t, func() bool { return !other.keys.Listening() }, 5*time.Second, 5*time.Millisecond)
	require.Zero(t, other.size(), "a stopped listener empties the cache")
}

// size reads the number of cached keys.
func (c *Cache) size() int { return c.keys.Len() }
