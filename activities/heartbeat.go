package activities

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
)

// heartbeat records an activity heartbeat at once and then every interval, with details() when details
// is not nil, until the returned stop is called (it returns once the last heartbeat is recorded).
func heartbeat(ctx context.Context, every time.Duration, details func() any) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if details != nil {
				activity.RecordHeartbeat(ctx, details())
			} else {
				activity.RecordHeartbeat(ctx)
			}
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
