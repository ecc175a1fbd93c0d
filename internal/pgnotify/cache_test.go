package pgnotify

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/testdb"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func value(v, group string) func(context.Context) (string, string, error) {
	return func(context.Context) (string, string, error) { return v, group, nil }
}

// TestCacheFollowsNotifications plays two processes: one changes a group and notifies, the other had
// it cached and drops it when the notification arrives; without a listener nothing is kept.
func TestCacheFollowsNotifications(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testdb.New(t)
	c := New[string]("test", time.Minute, 10, quiet)

	v, err := c.Load(ctx, "k", value("v1", "acct_a"))
	require.NoError(t, err)
	require.Equal(t, "v1", v)
	require.Zero(t, c.Len(), "nothing is kept while not listening")

	go c.Listen(ctx, db, "svc_test_changes")
	require.Eventually(t, c.Listening, 5*time.Second, 5*time.Millisecond)
	_, err = c.Load(ctx, "k", value("v1", "acct_a"))
	require.NoError(t, err)
	_, err = c.Load(ctx, "other", value("o1", "acct_b"))
	require.NoError(t, err)
	v, err = c.Load(ctx, "k", value("v2", "acct_a"))
	require.NoError(t, err)
	require.Equal(t, "v1", v, "served from memory")

	_, err = c.Load(ctx, "bad", func(context.Context) (string, string, error) { return "", "acct_a", errors.New("no") })
	require.Error(t, err)
	require.Equal(t, 2, c.Len(), "errors are not kept")

	require.NoError(t, Notify(ctx, db, "svc_test_changes", "acct_a"))
	require.Eventually(t, func() bool {
		v, err := c.Load(ctx, "k", value("v2", "acct_a"))
		return err == nil && v == "v2"
	}, 5*time.Second, 2*time.Millisecond, "the notification never reached the cache")
	v, err = c.Load(ctx, "other", value("o2", "acct_b"))
	require.NoError(t, err)
	require.Equal(t, "o1", v, "another group stays cached")

	cancel()
	require.Eventually(t, func() bool { return !c.Listening() }, 5*time.Second, 5*time.Millisecond)
	require.Zero(t, c.Len(), "a stopped listener empties the cache")
}

// TestCacheNotifyOnlyOnCommit: a rolled-back change announces nothing.
func TestCacheNotifyOnlyOnCommit(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testdb.New(t)
	c := New[string]("test", time.Minute, 10, quiet)
	go c.Listen(ctx, db, "svc_test_rollback")
	require.Eventually(t, c.Listening, 5*time.Second, 5*time.Millisecond)
	_, err := c.Load(ctx, "k", value("v1", "acct_a"))
	require.NoError(t, err)

	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	require.NoError(t, Notify(ctx, tx, "svc_test_rollback", "acct_a"))
	require.NoError(t, tx.Rollback())
	// A committed notification on the same channel after the rolled-back one: once it has dropped
	// "marker", the rolled-back one would have arrived before it.
	_, err = c.Load(ctx, "marker", value("m", "acct_m"))
	require.NoError(t, err)
	require.NoError(t, Notify(ctx, db, "svc_test_rollback", "acct_m"))
	require.Eventually(t, func() bool { return c.Len() == 1 }, 5*time.Second, 2*time.Millisecond)
	v, err := c.Load(ctx, "k", value("v2", "acct_a"))
	require.NoError(t, err)
	require.Equal(t, "v1", v)
}

func TestCacheSkipsReadsThatRaceAChange(t *testing.T) {
	t.Parallel()
	c := New[string]("test", time.Minute, 2, quiet)
	c.listening.Store(true)
	_, err := c.Load(context.Background(), "h", func(context.Context) (string, string, error) {
		c.Drop("acct_x") // a change lands while the read is in flight
		return "stale", "acct_x", nil
	})
	require.NoError(t, err)
	require.Zero(t, c.Len())

	for _, k := range []string{"a", "b", "c"} {
		_, err := c.Load(context.Background(), k, value(k, "g"))
		require.NoError(t, err)
	}
	require.Equal(t, 2, c.Len(), "the cache stays within its bound")
}

func TestCacheExpires(t *testing.T) {
	t.Parallel()
	c := New[string]("test", -time.Second, 10, quiet) // everything is already expired
	c.listening.Store(true)
	_, err := c.Load(context.Background(), "k", value("v1", "g"))
	require.NoError(t, err)
	v, err := c.Load(context.Background(), "k", value("v2", "g"))
	require.NoError(t, err)
	require.Equal(t, "v2", v)
}

// TestCacheServesOnlyOnceItsListenIsInForce: the driver sends LISTEN without waiting for the server, so
// a cache that served from memory as soon as LISTEN was sent could miss a change committed before the
// server took it. The cache's connections here reach PostgreSQL through a proxy that delays what they
// send; a change committed the moment the cache says it is listening must still reach it.
func TestCacheServesOnlyOnceItsListenIsInForce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, schemaName := testdb.NewWithSchema(t)
	slow := openThroughDelayingProxy(t, testdb.URL(), schemaName, 300*time.Millisecond)
	c := New[string]("test", time.Minute, 10, quiet)
	go c.Listen(ctx, slow, "svc_test_late_listen")
	require.Eventually(t, c.Listening, 10*time.Second, time.Millisecond)

	_, err := c.Load(ctx, "k", value("v1", "acct_a"))
	require.NoError(t, err)
	require.NoError(t, Notify(ctx, db, "svc_test_late_listen", "acct_a"))
	require.Eventually(t, func() bool {
		v, err := c.Load(ctx, "k", value("v2", "acct_a"))
		return err == nil && v == "v2"
	}, 5*time.Second, 2*time.Millisecond, "a change committed once the cache said it listened never reached it")
}

// openThroughDelayingProxy opens the schema's database through a local TCP proxy that holds everything
// a client sends for delay before passing it on (the answers come back at once).
func openThroughDelayingProxy(t *testing.T, rawURL, schemaName string, delay time.Duration) *bun.DB {
	t.Helper()
	u, err := url.Parse(rawURL)
	require.NoError(t, err)
	target := u.Host
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			client, err := l.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				_ = client.Close()
				continue
			}
			go func() { _, _ = io.Copy(client, server); _ = client.Close() }()
			go delayedCopy(server, client, delay)
		}
	}()
	u.Host = l.Addr().String()
	db, err := pg.Open(context.Background(), u.String(), pg.Options{SearchPath: schemaName, MaxOpenConns: 2})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// delayedCopy copies src to dst, each chunk delay after it was read, in order.
func delayedCopy(dst io.WriteCloser, src io.Reader, delay time.Duration) {
	type chunk struct {
		due  time.Time
		data []byte
	}
	chunks := make(chan chunk, 1024)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				chunks <- chunk{due: time.Now().Add(delay), data: buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	defer dst.Close()
	for c := range chunks {
		time.Sleep(time.Until(c.due)) // the injected latency, not synchronisation
		if _, err := dst.Write(c.data); err != nil {
			return
		}
	}
}
