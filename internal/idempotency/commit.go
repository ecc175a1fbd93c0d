package idempotency

import (
	"context"

	"github.com/uptrace/bun"
)

// Commit commits an effect of a request (a charge, say). On a route with an Idempotency-Key it commits
// q together with the answer stored for replay, in the same transaction and round trip (see
// Store.Complete), so the answer a retry replays and the effect it reports commit together; elsewhere
// it is CommitNow. q may be nil (nothing to commit). after, when not nil, runs once q has committed or
// failed to (to give reserved credits back, say). It fails only when q, run at once, did not commit.
//
// A handler obtains its request's Commit once and passes it to the domain call whose effect it is.
type Commit func(ctx context.Context, q *bun.RawQuery, after func(ctx context.Context, committed bool)) error

// CommitNow is the Commit of a request without a stored answer: it runs q at once, then after.
func CommitNow(ctx context.Context, q *bun.RawQuery, after func(ctx context.Context, committed bool)) error {
	var err error
	if q != nil {
		_, err = q.Exec(ctx)
	}
	if after != nil {
		after(ctx, err == nil)
	}
	return err
}
