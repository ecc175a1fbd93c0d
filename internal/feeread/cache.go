package feeread

import (
	"sync"
	"time"
)

// maxEntries bounds the cache: past it, expired entries are dropped, and if none had expired, all.
const maxEntries = 10_000

// cache holds answers in the process for ttl (seed 002: public reads are cached 2 minutes per address
// and window). Only successful answers are kept; each process has its own.
type cache struct {
	ttl time.Duration
	now func() time.Time
	mu  sync.Mutex
	m   map[string]entry
}

// entry is one cached answer.
type entry struct {
	value   any
	expires time.Time
}

// newCache is a cache keeping answers for ttl (none when ttl is negative).
func newCache(ttl time.Duration, now func() time.Time) *cache {
	return &cache{ttl: ttl, now: now, m: map[string]entry{}}
}

// cached answers key's cached value, or computes, keeps and answers it.
func cached[T any](c *cache, key string, compute func() (*T, error)) (*T, error) {
	if c.ttl > 0 {
		c.mu.Lock()
		e, ok := c.m[key]
		c.mu.Unlock()
		if ok && c.now().Before(e.expires) {
			return e.value.(*T), nil
		}
	}
	v, err := compute()
	if err != nil || c.ttl <= 0 {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxEntries {
		c.evict()
	}
	c.m[key] = entry{value: v, expires: c.now().Add(c.ttl)}
	return v, nil
}

// evict drops expired entries, or everything when none had expired. The caller holds mu.
func (c *cache) evict() {
	now := c.now()
	for k, e := range c.m {
		if !now.Before(e.expires) {
			delete(c.m, k)
		}
	}
	if len(c.m) >= maxEntries {
		clear(c.m)
	}
}
