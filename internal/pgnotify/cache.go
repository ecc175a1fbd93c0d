// Package pgnotify keeps per-process caches of database rows honest across API processes. A Cache
// serves from memory only while its PostgreSQL LISTEN connection is known to be up: every change to a
// cached row is announced with NOTIFY in the transaction that makes it, and the cache drops what the
// announcement names. When the listener fails, the cache empties itself and every read goes to the
// database until it listens again, so a lost notification can never keep a stale row alive.
package pgnotify

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/internal/ids"
)

// Cache is a bounded map of values, each belonging to a group (an account id, say) that notifications
// name. The zero value is not usable; make one with New.
type Cache[V any] struct {
	name       string
	ttl        time.Duration
	maxEntries int
	log        *slog.Logger

	listening atomic.Bool
	// generation counts invalidations: a value read from the database is kept only if none happened
	// during the read, so a read racing a change cannot keep what it saw before the change.
	generation atomic.Uint64
	mu         sync.RWMutex
	entries    map[string]entry[V]
}

type entry[V any] struct {
	value   V
	group   string
	expires time.Time
}

// New returns a cache that keeps values at most ttl and at most maxEntries of them. name appears in its
// log lines.
func New[V any](name string, ttl time.Duration, maxEntries int, log *slog.Logger) *Cache[V] {
	return &Cache[V]{name: name, ttl: ttl, maxEntries: maxEntries, log: log, entries: map[string]entry[V]{}}
}

// Load returns the cached value of key, or reads it with load, which also names the value's group, and
// keeps it when the listener is up and nothing in the cache was invalidated during the read. Errors are
// not cached.
func (c *Cache[V]) Load(ctx context.Context, key string, load func(context.Context) (V, string, error)) (V, error) {
	if !c.listening.Load() {
		v, _, err := load(ctx)
		return v, err
	}
	now := time.Now()
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if ok && now.Before(e.expires) {
		return e.value, nil
	}
	gen := c.generation.Load()
	v, group, err := load(ctx)
	if err != nil {
		return v, err
	}
	c.put(key, group, v, now, gen)
	return v, nil
}

func (c *Cache[V]) put(key, group string, v V, now time.Time, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listening.Load() || c.generation.Load() != gen {
		return // the listener dropped or something changed while we read: do not keep it
	}
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.maxEntries {
		for k := range c.entries { // evict an arbitrary entry
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = entry[V]{value: v, group: group, expires: now.Add(c.ttl)}
}

// Drop forgets every value of the group. Call it after a change commits so this process sees the
// change at once; other processes learn it from the notification.
func (c *Cache[V]) Drop(group string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation.Add(1)
	for k, e := range c.entries {
		if e.group == group {
			delete(c.entries, k)
		}
	}
}

// Len returns how many values are kept.
func (c *Cache[V]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Listening reports whether the cache serves from memory: its listener is connected.
func (c *Cache[V]) Listening() bool { return c.listening.Load() }

func (c *Cache[V]) stopServing() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation.Add(1)
	c.listening.Store(false)
	clear(c.entries)
}

// Listen follows channel until ctx ends, dropping the group each notification's payload names. Run it
// in a goroutine: the cache serves from memory only while it runs and its connection is healthy.
func (c *Cache[V]) Listen(ctx context.Context, db *bun.DB, channel string) {
	ln := pgdriver.NewListener(db)
	defer c.stopServing()
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() }) // Receive does not watch ctx
	defer func() {
		stop()
		_ = ln.Close()
	}()
	for ctx.Err() == nil {
		if err := c.listen(ctx, db, ln, channel); err != nil {
			c.stopServing()
			if ctx.Err() == nil {
				c.log.Warn(c.name+" cache: cannot listen for changes; reading the database", "channel", channel, "err", err)
				wait(ctx, time.Second)
			}
			continue
		}
		c.listening.Store(true)
		c.receive(ctx, ln, channel)
	}
}

// probeTimeout bounds the wait for a listener's own probe notification.
const probeTimeout = 10 * time.Second

// probePrefix starts the payload of the notification a cache sends itself to learn that its LISTEN is
// in force; every cache ignores such payloads otherwise.
const probePrefix = "pgnotify-probe:"

// listen subscribes to channel and returns once PostgreSQL has the subscription in force. The driver
// only sends LISTEN; it does not wait for the server. So the cache notifies itself with a probe until
// one comes back: a change committed after that probe reaches this listener, and anything committed
// before it is what the next read from the database sees.
func (c *Cache[V]) listen(ctx context.Context, db *bun.DB, ln *pgdriver.Listener, channel string) error {
	if err := ln.Listen(ctx, channel); err != nil {
		return err
	}
	probe := probePrefix + ids.New("probe")
	ctx, confirmed := context.WithCancel(ctx)
	defer confirmed()
	go c.sendProbes(ctx, db, channel, probe)
	deadline := time.Now().Add(probeTimeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("the listener's probe did not come back within %s", probeTimeout)
		}
		_, payload, err := ln.ReceiveTimeout(ctx, left)
		if err != nil {
			return fmt.Errorf("wait for the listener's probe: %w", err)
		}
		if payload == probe {
			return nil
		}
		// Other notifications are ignored: the cache keeps nothing until it serves.
	}
}

// sendProbes notifies channel with probe until ctx ends, at growing intervals: a probe committed before
// the server has taken the LISTEN is never delivered, so one is not enough.
func (c *Cache[V]) sendProbes(ctx context.Context, db *bun.DB, channel, probe string) {
	for interval := 10 * time.Millisecond; ctx.Err() == nil; interval = min(2*interval, time.Second) {
		if err := Notify(ctx, db, channel, probe); err != nil && ctx.Err() == nil {
			c.log.Warn(c.name+" cache: cannot send the listener's probe", "channel", channel, "err", err)
		}
		wait(ctx, interval)
	}
}

func (c *Cache[V]) receive(ctx context.Context, ln *pgdriver.Listener, channel string) {
	for {
		_, group, err := ln.Receive(ctx)
		if err != nil {
			c.stopServing()
			if ctx.Err() == nil {
				c.log.Warn(c.name+" cache: listener failed; reconnecting", "channel", channel, "err", err)
				wait(ctx, 200*time.Millisecond)
			}
			return
		}
		if !strings.HasPrefix(group, probePrefix) {
			c.Drop(group)
		}
	}
}

// Notify announces on channel that the group changed. Call it in the transaction that changes it:
// PostgreSQL delivers the notification when, and only if, the transaction commits.
func Notify(ctx context.Context, db bun.IDB, channel, group string) error {
	if _, err := db.ExecContext(ctx, "SELECT pg_notify(?, ?)", channel, group); err != nil {
		return fmt.Errorf("notify %s: %w", channel, err)
	}
	return nil
}

func wait(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
