package limit

import (
	"math"
	"strings"
	"sync"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/schema"
)

// inline is how many limits one request can match before its bookkeeping leaves the stack.
const inline = 8

// unit is what a counter counts; it fixes the counter's window.
type unit uint8

const (
	unitRequests     unit = iota // requestsPerMinute
	unitMillicredits             // creditsPerDay
)

// String is the unit as stored in limit_counters.unit.
func (u unit) String() string {
	if u == unitMillicredits {
		return "millicredits"
	}
	return "requests"
}

func (u unit) window() time.Duration {
	if u == unitMillicredits {
		return 24 * time.Hour
	}
	return time.Minute
}

// windowStart is the start of the UTC window holding now (Truncate works on absolute time, so minutes
// and days are aligned to UTC whatever now's location).
func (u unit) windowStart(now time.Time) time.Time {
	return now.Truncate(u.window()).UTC()
}

// reset is the time from now until the end of now's window.
func (u unit) reset(now time.Time) time.Duration {
	return u.windowStart(now).Add(u.window()).Sub(now)
}

// counterID names a counter: the key that owns the limit, its selector and its unit.
type counterID struct {
	owner    string
	selector string
	unit     unit
}

func (a counterID) compare(b counterID) int {
	if c := strings.Compare(a.owner, b.owner); c != 0 {
		return c
	}
	if c := strings.Compare(a.selector, b.selector); c != 0 {
		return c
	}
	return int(a.unit) - int(b.unit)
}

// applied is one limit that applies to a request, with its cap in the counter's unit.
type applied struct {
	id  counterID
	cap int64
}

// collect appends the limits of unit u that match operations, one per counter: a counter limited twice
// by its owner keeps the smaller cap.
func collect(dst []applied, owners []Owner, operations []string, u unit) []applied {
	for i := range owners {
		o := &owners[i]
		for j := range o.Limits {
			lim := &o.Limits[j]
			c := capOf(lim, u)
			if c <= 0 || !matches(lim.Operation, operations) {
				continue
			}
			dst = add(dst, applied{id: counterID{owner: o.KeyID, selector: lim.Operation, unit: u}, cap: c})
		}
	}
	return dst
}

func add(dst []applied, a applied) []applied {
	for i := range dst {
		if dst[i].id == a.id {
			dst[i].cap = min(dst[i].cap, a.cap)
			return dst
		}
	}
	return append(dst, a)
}

// maxCap keeps sums of caps and amounts inside bigint.
const maxCap = math.MaxInt64 / 4

func capOf(lim *schema.Limit, u unit) int64 {
	if u == unitRequests {
		return min(lim.RequestsPerMinute, maxCap)
	}
	if lim.CreditsPerDay > maxCap/1000 {
		return maxCap
	}
	return lim.CreditsPerDay * 1000
}

func matches(selector string, operations []string) bool {
	if selector == client.LimitAll {
		return true
	}
	for _, op := range operations {
		if op == selector {
			return true
		}
	}
	return false
}

// counter is this process's state of one requestsPerMinute counter. Every field is guarded by mu.
type counter struct {
	id counterID
	mu sync.Mutex

	dead           bool      // retired by Run or Close: look the counter up again
	window         time.Time // start of the window the lease belongs to
	local          int64     // leased from the database and not yet used
	dbUsed         int64     // the row's used as of this process's latest lease (an estimate)
	exhaustedUntil time.Time // the database had nothing left; do not ask again before this
	lastLease      time.Time // when the latest lease was asked for
	lastGrant      int64     // what the latest lease granted (drives the next chunk)
	lastUse        time.Time // when a request last drew from the lease
}

// roll moves the counter forward to the window starting at start, dropping the lease of the ended window.
// It never moves back: a request that read the clock just before another one rolled the counter into the
// next window counts in that next window, instead of throwing the next window's fresh lease away.
func (c *counter) roll(start time.Time) {
	if !start.After(c.window) {
		return
	}
	c.window, c.local, c.dbUsed, c.exhaustedUntil = start, 0, 0, time.Time{}
}

// remaining estimates the window's budget left: what the database had not handed out at the latest
// lease, plus this process's unused lease.
func (c *counter) remaining(limit int64) int64 {
	return max(0, min(limit, limit-c.dbUsed+c.local))
}

// chunk is how much the next lease asks for: double the last grant while leases run out within a second,
// half of it otherwise; never more than MaxLease nor 1/LeaseDivisor of the budget still in the database.
func (c *counter) chunk(limit int64, now time.Time, o *Options) int64 {
	want := c.lastGrant / 2
	if !c.lastLease.IsZero() && now.Sub(c.lastLease) < time.Second {
		want = c.lastGrant * 2
	}
	share := ceilDiv(limit-c.dbUsed, o.LeaseDivisor)
	return max(1, min(want, o.MaxLease, share))
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// sortCounters puts counters in the canonical lock order (insertion sort: a handful of elements, no
// allocation).
func sortCounters(cs []*counter) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].id.compare(cs[j-1].id) < 0; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

func lockAll(cs []*counter) {
	for _, c := range cs {
		c.mu.Lock()
	}
}

func unlockAll(cs []*counter) {
	for _, c := range cs {
		c.mu.Unlock()
	}
}
