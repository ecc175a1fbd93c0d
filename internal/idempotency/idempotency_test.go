package idempotency

import (
	"context"
	"crypto/rand"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
)

// clock is a settable time source shared by the stores of one test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newStore(t *testing.T) (*Store, *clock) {
	t.Helper()
	db := testdb.New(t)
	key := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(key)
	box, err := secretbox.New(key)
	require.NoError(t, err)
	s := NewStore(db, box, Options{Lease: time.Minute, TTL: 24 * time.Hour})
	c := &clock{now: time.Now()}
	s.now = c.Now
	_, err = db.ExecContext(context.Background(), "INSERT INTO accounts (id, name) VALUES ('acct_1', 'a')")
	require.NoError(t, err)
	return s, c
}

func req(key, body string) Request {
	return Request{AccountID: "acct_1", Key: key, Method: "POST", Path: "/v1/runs", Fingerprint: Fingerprint("key:k1", "POST", "/v1/runs", "", []byte(body))}
}

func TestClaimCompleteReplay(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	r := req("k", `{"a":1}`)
	c, err := s.Claim(ctx, r)
	require.NoError(t, err)
	require.Nil(t, c.Replay)
	require.NoError(t, s.Complete(ctx, r, c.Seed, Response{Status: 201, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"ok":true}`)}, true))

	again, err := s.Claim(ctx, r)
	require.NoError(t, err)
	require.NotNil(t, again.Replay)
	require.Equal(t, 201, again.Replay.Status)
	require.Equal(t, `{"ok":true}`, string(again.Replay.Body))
	require.Equal(t, "application/json", again.Replay.Header.Get("Content-Type"))

	var stored []byte
	require.NoError(t, s.db.NewRaw("SELECT response_body FROM idempotency_keys WHERE key = 'k'").Scan(ctx, &stored))
	require.NotContains(t, string(stored), `"ok"`, "sealed bodies are encrypted at rest")

	_, err = s.Claim(ctx, req("k", `{"a":2}`))
	require.True(t, svcerr.Is(err, svcerr.IdempotencyKeyReused), "got %v", err)
}

func TestInFlightThenTakeOverKeepsSeed(t *testing.T) {
	t.Parallel()
	s, clk := newStore(t)
	ctx := context.Background()
	r := req("k", `{}`)
	first, err := s.Claim(ctx, r)
	require.NoError(t, err)

	_, err = s.Claim(ctx, r)
	require.True(t, svcerr.Is(err, svcerr.IdempotencyInFlight), "got %v", err)

	clk.Add(61 * time.Second) // the first holder crashed: its lease ran out
	second, err := s.Claim(ctx, r)
	require.NoError(t, err)
	require.Nil(t, second.Replay)
	require.Equal(t, first.Seed, second.Seed, "a takeover derives the same resource ids")

	_, err = s.Claim(ctx, r)
	require.True(t, svcerr.Is(err, svcerr.IdempotencyInFlight), "the taker holds a fresh lease")
}

func TestUnlockAllowsRetryWithTheSameSeed(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	r := req("k", `{}`)
	c, err := s.Claim(ctx, r)
	require.NoError(t, err)
	require.NoError(t, s.Unlock(ctx, r, c.Seed))
	again, err := s.Claim(ctx, r)
	require.NoError(t, err, "an unlocked key is taken over at once, without waiting for the lease")
	require.Equal(t, c.Seed, again.Seed)
	_, err = s.Claim(ctx, req("k", `{"other":1}`))
	require.True(t, svcerr.Is(err, svcerr.IdempotencyKeyReused), "the key still belongs to the first input")
}

func TestExpiredKeyIsForgotten(t *testing.T) {
	t.Parallel()
	s, clk := newStore(t)
	ctx := context.Background()
	r := req("k", `{}`)
	c, err := s.Claim(ctx, r)
	require.NoError(t, err)
	require.NoError(t, s.Complete(ctx, r, c.Seed, Response{Status: 200, Body: []byte("{}")}, false))

	clk.Add(23 * time.Hour)
	kept, err := s.Claim(ctx, r)
	require.NoError(t, err)
	require.NotNil(t, kept.Replay, "kept for at least 24 hours")

	clk.Add(2 * time.Hour)
	other := req("k", `{"new":true}`)
	fresh, err := s.Claim(ctx, other)
	require.NoError(t, err, "after expiry the key is free, even for other input")
	require.Nil(t, fresh.Replay)
	require.NotEqual(t, c.Seed, fresh.Seed)

	clk.Add(25 * time.Hour)
	n, err := s.Purge(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}

func TestConcurrentClaimsOneWinner(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	const n = 20
	var wg sync.WaitGroup
	results := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Claim(ctx, req("race", `{}`))
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		if err == nil {
			won++
			continue
		}
		require.True(t, svcerr.Is(err, svcerr.IdempotencyInFlight), "got %v", err)
	}
	require.Equal(t, 1, won)
}

func TestValidKey(t *testing.T) {
	t.Parallel()
	require.True(t, ValidKey("a"))
	require.True(t, ValidKey(string(make([]byte, 0))+"~!x"))
	require.False(t, ValidKey(""))
	require.False(t, ValidKey("has space"))
	require.False(t, ValidKey("clé"))
	long := make([]byte, 256)
	for i := range long {
		long[i] = 'k'
	}
	require.False(t, ValidKey(string(long)))
	require.True(t, ValidKey(string(long[:255])))
}

func TestFingerprintIgnoresJSONFormatting(t *testing.T) {
	t.Parallel()
	a := Fingerprint("key:k1", "POST", "/v1/runs", "", []byte(`{"a":1,"b":[1,2]}`))
	require.Equal(t, a, Fingerprint("key:k1", "POST", "/v1/runs", "", []byte("{ \"b\": [1, 2],\n \"a\": 1 }")))
	require.NotEqual(t, a, Fingerprint("key:k1", "POST", "/v1/runs", "", []byte(`{"a":1,"b":[2,1]}`)))
	require.NotEqual(t, a, Fingerprint("key:k1", "POST", "/v1/runs", "proj_x", []byte(`{"a":1,"b":[1,2]}`)))
	require.NotEqual(t, a, Fingerprint("key:k2", "POST", "/v1/runs", "", []byte(`{"a":1,"b":[1,2]}`)), "another caller")
	require.NotEqual(t, Fingerprint("key:k1", "POST", "/p", "", []byte(`{"a":1.0}`)), Fingerprint("key:k1", "POST", "/p", "", []byte(`{"a":1}`)),
		"numbers keep their spelling")
}

// TestCompleteCommitsWithItsEffects: statements given to Complete commit with the answer, or neither
// does; a question mark or quote in the stored answer does not disturb the batch.
func TestCompleteCommitsWithItsEffects(t *testing.T) {
	t.Parallel()
	s, c := newStore(t)
	ctx := context.Background()
	effect := func(name string) Statement {
		return s.db.NewRaw("UPDATE accounts SET name = ? WHERE id = 'acct_1'", name)
	}
	nameNow := func() string {
		var name string
		require.NoError(t, s.db.NewRaw("SELECT name FROM accounts WHERE id = 'acct_1'").Scan(ctx, &name))
		return name
	}
	answer := Response{Status: 200, Header: http.Header{"Location": {"/v1/runs?x=1&y='2'"}}, Body: []byte(`{"q":"why?","s":"it's"}`)}

	r := req("fails", `{}`)
	claim, err := s.Claim(ctx, r)
	require.NoError(t, err)
	err = s.Complete(ctx, r, claim.Seed, answer, false, effect("changed"), s.db.NewRaw("SELECT 1/0"))
	require.Error(t, err)
	require.Equal(t, "a", nameNow(), "the effect rolled back with the failed batch")
	require.NoError(t, s.Unlock(ctx, r, claim.Seed))
	retry, err := s.Claim(ctx, r)
	require.NoError(t, err)
	require.Nil(t, retry.Replay, "no answer was stored")
	require.Equal(t, claim.Seed, retry.Seed)

	require.NoError(t, s.Complete(ctx, r, retry.Seed, answer, false, effect("changed")))
	require.Equal(t, "changed", nameNow())
	c.Add(time.Second)
	replayed, err := s.Claim(ctx, r)
	require.NoError(t, err)
	require.NotNil(t, replayed.Replay)
	require.Equal(t, answer.Body, replayed.Replay.Body)
	require.Equal(t, answer.Header.Get("Location"), replayed.Replay.Header.Get("Location"))
}
