package apikey

import (
	"context"
	"log/slog"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/pgnotify"
)

// RevocationChannel is the PostgreSQL NOTIFY channel on which revocations are announced, with the
// account id as payload, so every API process drops that account's cached keys at once.
const RevocationChannel = "svc_api_keys_revoked"

// Cache answers repeated authentications from memory. It serves from memory only while its LISTEN
// connection is known to be up (see pgnotify), so a lost notification can never keep a revoked key alive.
type Cache struct {
	store *Store
	keys  *pgnotify.Cache[*Caller]
}

// NewCache returns a cache in front of store. Keys are kept at most ttl; at most maxEntries are kept.
func NewCache(store *Store, ttl time.Duration, maxEntries int, log *slog.Logger) *Cache {
	return &Cache{store: store, keys: pgnotify.New[*Caller]("api key", ttl, maxEntries, log)}
}

// Authenticate returns the live key whose secret this is, with its ancestors. The result is shared: do
// not modify it.
func (c *Cache) Authenticate(ctx context.Context, secret string) (*Caller, error) {
	if !WellFormed(secret) {
		return c.store.Authenticate(ctx, secret) // the store words the error
	}
	return c.keys.Load(ctx, string(Hash(secret)), func(ctx context.Context) (*Caller, string, error) {
		caller, err := c.store.Authenticate(ctx, secret)
		if err != nil {
			return nil, "", err
		}
		return caller, caller.Key.AccountID, nil
	})
}

// InvalidateAccount drops every cached key of the account.
func (c *Cache) InvalidateAccount(accountID string) { c.keys.Drop(accountID) }

// Listen follows revocations announced on RevocationChannel until ctx ends. Run it in a goroutine; the
// cache serves from memory only while it runs and its connection is healthy.
func (c *Cache) Listen(ctx context.Context, db *bun.DB) { c.keys.Listen(ctx, db, RevocationChannel) }
