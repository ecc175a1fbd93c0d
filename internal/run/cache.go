package run

import (
	"sync"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/schema"
)

// finishedCache keeps finished runs, which never change again, up to a fixed number, with their wire form.
type finishedCache struct {
	max  int
	mu   sync.RWMutex
	runs map[string]cachedRun
}

type cachedRun struct {
	row  *schema.Run
	wire client.Run
}

func newFinishedCache(max int) *finishedCache {
	return &finishedCache{max: max, runs: map[string]cachedRun{}}
}

func (c *finishedCache) get(id string) (cachedRun, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.runs[id]
	return r, ok
}

func (c *finishedCache) put(r *schema.Run) cachedRun {
	e := cachedRun{row: r, wire: ToWire(r)}
	if c.max == 0 {
		return e
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.runs) >= c.max {
		for id := range c.runs { // evict an arbitrary entry
			delete(c.runs, id)
			break
		}
	}
	c.runs[r.ID] = e
	return e
}
