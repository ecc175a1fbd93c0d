package limit

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// base is 15.5 s past a minute, so the window resets in 44.5 s.
var base = time.Date(2026, 3, 4, 12, 0, 15, 500_000_000, time.UTC)

// clock is a settable clock shared by the Limiters of a test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock(t time.Time) *clock { return &clock{now: t} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newLimiter returns a Limiter on db with clk, closed when the test ends.
func newLimiter(t testing.TB, db bun.IDB, clk *clock) *Limiter {
	t.Helper()
	l := New(db, Options{Now: clk.Now})
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// secondProcess opens another connection pool on the test's schema, as another API process would.
func secondProcess(t testing.TB, name string) *bun.DB {
	t.Helper()
	db, err := pg.Open(context.Background(), testdb.URL(), pg.Options{SearchPath: name, MaxOpenConns: 10})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func rpm(op string, n int64) schema.Limit { return schema.Limit{Operation: op, RequestsPerMinute: n} }
func cpd(op string, n int64) schema.Limit { return schema.Limit{Operation: op, CreditsPerDay: n} }

// allowN calls Allow n times and returns how many were allowed and the last decision.
func allowN(t *testing.T, l *Limiter, owners []Owner, ops []string, n int) (int, Decision) {
	t.Helper()
	allowed := 0
	var d Decision
	for range n {
		var err error
		d, err = l.Allow(context.Background(), owners, ops)
		require.NoError(t, err)
		if d.Allowed {
			allowed++
		}
	}
	return allowed, d
}

// rowUsed reads a counter row's used.
func rowUsed(t *testing.T, db bun.IDB, key, selector, unit string, start time.Time) int64 {
	t.Helper()
	var used int64
	err := db.NewRaw(`SELECT used FROM limit_counters WHERE key_id = ? AND selector = ? AND unit = ? AND window_start = ?`,
		key, selector, unit, start).Scan(context.Background(), &used)
	require.NoError(t, err)
	return used
}

// queryCounter counts the queries of a bun.DB.
type queryCounter struct{ n atomic.Int64 }

func (q *queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	q.n.Add(1)
	return ctx
}

func (q *queryCounter) AfterQuery(context.Context, *bun.QueryEvent) {}
