package feeread

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock is a clock a test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

// TestCacheKeepsAnswersForTheirTTL: an answer is served from the cache until its TTL passes, per key;
// failures are never cached; a negative TTL caches nothing.
func TestCacheKeepsAnswersForTheirTTL(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := newCache(DefaultCacheTTL, clock.Now)
	calls := 0
	compute := func() (*int, error) { calls++; v := calls; return &v, nil }
	v, err := cached(c, "token/a/30", compute)
	require.NoError(t, err)
	require.Equal(t, 1, *v)
	clock.add(DefaultCacheTTL - time.Second)
	v, _ = cached(c, "token/a/30", compute)
	require.Equal(t, 1, *v, "served from the cache within 2 minutes")
	v, _ = cached(c, "token/a/7", compute)
	require.Equal(t, 2, *v, "another window is another entry")
	clock.add(time.Second)
	v, _ = cached(c, "token/a/30", compute)
	require.Equal(t, 3, *v, "recomputed once the TTL has passed")

	_, err = cached(c, "bad", func() (*int, error) { return nil, errors.New("chain down") })
	require.Error(t, err)
	v, err = cached(c, "bad", compute)
	require.NoError(t, err)
	require.Equal(t, 4, *v, "a failure is not cached")

	off := newCache(-1, clock.Now)
	a, _ := cached(off, "k", compute)
	b, _ := cached(off, "k", compute)
	require.NotEqual(t, *a, *b, "a negative TTL caches nothing")
}

// TestFormats: ether-decimal strings and percent strings of WAD shares.
func TestFormats(t *testing.T) {
	t.Parallel()
	require.Equal(t, "57", Percent(bigOf("570000000000000000")))
	require.Equal(t, "36.1", Percent(bigOf("361000000000000000")))
	require.Equal(t, "1.9", Percent(bigOf("19000000000000000")))
	require.Equal(t, "0", Percent(bigOf("0")))
	require.Equal(t, "0.000000000000000001", Ether(bigOf("1")))
	require.Equal(t, "1.5", Ether(bigOf("1500000000000000000")))
	for in, ok := range map[string]bool{"": true, "1": true, "90": true, "0": false, "91": false, "01": false, "1.5": false, "x": false, "-3": false} {
		_, err := ParseDays(in)
		require.Equal(t, ok, err == nil, "days %q", in)
	}
}
