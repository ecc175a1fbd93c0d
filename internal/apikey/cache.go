package apikey

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// RevocationChannel is the PostgreSQL NOTIFY channel on which revocations are announced, with the
// account id as payload, so every API process drops that account's cached keys at once.
const RevocationChannel = "svc_api_keys_revoked"

// Cache answers repeated authentications from memory. It serves from memory only while its LISTEN
// connection is known to be up; when that connection fails it empties itself and reads PostgreSQL until
// it listens again, so a lost notification can never keep a revoked key alive.
type Cache struct {
	store      *Store
	ttl        time.Duration
	maxEntries int
	log        *slog.Logger

	listening atomic.Bool
	// generation counts invalidations: a key read from the database is cached only if none happened
	// during the read, so a read racing a revocation cannot cache the key it saw before the revocation.
	generation atomic.Uint64
	mu         sync.RWMutex
	entries    map[string]cached
}

type cached struct {
	caller  *Caller
	expires time.Time
}

// NewCache returns a cache in front of store. Keys are kept at most ttl; at most maxEntries are kept.
func NewCache(store *Store, ttl time.Duration, maxEntries int, log *slog.Logger) *Cache {
	return &Cache{store: store, ttl: ttl, maxEntries: maxEntries, log: log, entries: map[string]cached{}}
}

// Authenticate returns the live key whose secret this is, with its ancestors. The result is shared: do
// not modify it.
func (c *Cache) Authenticate(ctx context.Context, secret string) (*Caller, error) {
	if !c.listening.Load() {
		return c.store.Authenticate(ctx, secret)
	}
	if !WellFormed(secret) {
		return c.store.Authenticate(ctx, secret) // the store words the error
	}
	h := string(Hash(secret))
	now := time.Now()
	c.mu.RLock()
	e, ok := c.entries[h]
	c.mu.RUnlock()
	if ok && now.Before(e.expires) {
		return e.caller, nil
	}
	gen := c.generation.Load()
	caller, err := c.store.Authenticate(ctx, secret)
	if err != nil {
		return nil, err
	}
	c.put(h, caller, now, gen)
	return caller, nil
}

func (c *Cache) put(h string, caller *Caller, now time.Time, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listening.Load() || c.generation.Load() != gen {
		return // the listener dropped or something was revoked while we read: do not cache
	}
	if len(c.entries) >= c.maxEntries {
		for k := range c.entries { // evict an arbitrary entry
			delete(c.entries, k)
			break
		}
	}
	c.entries[h] = cached{caller: caller, expires: now.Add(c.ttl)}
}

// InvalidateAccount drops every cached key of the account.
func (c *Cache) InvalidateAccount(accountID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation.Add(1)
	for h, e := range c.entries {
		if e.caller.Key.AccountID == accountID {
			delete(c.entries, h)
		}
	}
}

func (c *Cache) stopServing() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation.Add(1)
	c.listening.Store(false)
	clear(c.entries)
}

// Listen follows revocations announced on RevocationChannel until ctx ends. Run it in a goroutine; the
// cache serves from memory only while it runs and its connection is healthy.
func (c *Cache) Listen(ctx context.Context, db *bun.DB) {
	ln := pgdriver.NewListener(db)
	defer c.stopServing()
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() }) // Receive does not watch ctx
	defer func() {
		stop()
		_ = ln.Close()
	}()
	for ctx.Err() == nil {
		if err := ln.Listen(ctx, RevocationChannel); err != nil {
			c.stopServing()
			c.log.Warn("api key cache: cannot listen for revocations; reading keys from the database", "err", err)
			wait(ctx, time.Second)
			continue
		}
		c.listening.Store(true)
		c.receive(ctx, ln)
	}
}

func (c *Cache) receive(ctx context.Context, ln *pgdriver.Listener) {
	for {
		_, accountID, err := ln.Receive(ctx)
		if err != nil {
			c.stopServing()
			if ctx.Err() == nil {
				c.log.Warn("api key cache: revocation listener failed; reconnecting", "err", err)
				wait(ctx, 200*time.Millisecond)
			}
			return
		}
		c.InvalidateAccount(accountID)
	}
}

func wait(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
