package limit

import (
	"context"
	"testing"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// benchAllow runs Allow in parallel on a real clock and database and fails on any refusal.
func benchAllow(b *testing.B, owners []Owner) {
	l := New(testdb.New(b), Options{})
	b.Cleanup(func() { _ = l.Close(context.Background()) })
	ops := []string{client.OpRunsRead}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			d, err := l.Allow(ctx, owners, ops)
			if err != nil || !d.Allowed {
				b.Errorf("allow: %v %+v", err, d)
				return
			}
		}
	})
}

// BenchmarkAllowNoLimits is a GET by a child key when neither it nor its parent has limits.
func BenchmarkAllowNoLimits(b *testing.B) {
	benchAllow(b, []Owner{{KeyID: "key_child"}, {KeyID: "key_parent"}})
}

// BenchmarkAllowThreeLimits is a GET by a child key with three limits that all apply (two of its own and
// its parent's), none of them near its cap.
func BenchmarkAllowThreeLimits(b *testing.B) {
	const high = 1 << 40
	benchAllow(b, []Owner{
		{KeyID: "key_child", Limits: []schema.Limit{rpm(client.LimitAll, high), rpm(client.OpRunsRead, high)}},
		{KeyID: "key_parent", Limits: []schema.Limit{rpm(client.LimitAll, high)}},
	})
}

// BenchmarkAllowSpent is a GET refused by a spent limit: refusals are decided from memory too.
func BenchmarkAllowSpent(b *testing.B) {
	l := New(testdb.New(b), Options{RecheckExhausted: time.Minute})
	b.Cleanup(func() { _ = l.Close(context.Background()) })
	owners := []Owner{{KeyID: "key_a", Limits: []schema.Limit{rpm(client.OpRunsRead, 1)}}}
	ops := []string{client.OpRunsRead}
	ctx := context.Background()
	_, _ = l.Allow(ctx, owners, ops)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := l.Allow(ctx, owners, ops); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
