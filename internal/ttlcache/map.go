package ttlcache

import (
	"maps"
	"sync"
	"time"
)

// Map is a map whose entries each expire at their own time. Its zero value is empty and ready; it is safe for
// concurrent use.
//
// A fill that read its value from elsewhere is stored only if the map was not invalidated meanwhile: read
// Generation before the read and pass it to Put, so that a value read before an invalidation (a key revoked in
// this process) is never stored after it.
//
// Expired entries are dropped by the first Put at least SweepEvery after the last drop, so that what a map holds
// follows what its entries' lifetimes let in, not what was ever put until Limit: the verification answers of a
// 10-minute soak, one minute each, filled their bound of 24,576 over eight minutes and were most of its heap's
// growth (issue 45). A map that a drop leaves at less than half is made anew, so that its table shrinks too.
type Map[K comparable, V any] struct {
	// Limit bounds the number of entries (0: DefaultLimit). Past it, expired entries are dropped first and,
	// if that is not enough, every entry (a refill costs one read per entry).
	Limit int

	mu    sync.RWMutex
	gen   uint64 // bumped by every Invalidate
	m     map[K]entry[V]
	swept time.Time // when expired entries were last dropped
}

// SweepEvery is how often a Put drops a Map's expired entries: a pass over the map (a millisecond or two at
// 24,576 entries) every ten seconds at most.
const SweepEvery = 10 * time.Second

// DefaultLimit is a Map's Limit when none is set.
const DefaultLimit = 10_000

type entry[V any] struct {
	v     V
	until time.Time
}

// Get returns k's value while now is before its expiry.
func (c *Map[K, V]) Get(k K, now time.Time) (V, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e, ok := c.m[k]; ok && now.Before(e.until) {
		return e.v, true
	}
	var zero V
	return zero, false
}

// Generation is the number of invalidations so far: read it before reading a value to Put.
func (c *Map[K, V]) Generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

// Put stores v under k until the given time, unless the map was invalidated since gen was read (then it
// stores nothing and returns false).
func (c *Map[K, V]) Put(gen uint64, k K, v V, until, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return false
	}
	if c.m == nil {
		c.m = map[K]entry[V]{}
	}
	if now.Sub(c.swept) >= SweepEvery {
		c.dropExpired(now)
	}
	c.room(now)
	c.m[k] = entry[V]{v: v, until: until}
	return true
}

// room makes space for one more entry: expired entries go first, then, if still full, all of them.
func (c *Map[K, V]) room(now time.Time) {
	limit := c.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(c.m) < limit {
		return
	}
	c.dropExpired(now)
	if len(c.m) >= limit {
		clear(c.m)
	}
}

// dropExpired deletes the entries expired at now, and makes the map anew when that left less than half of it
// (a Go map keeps its table however many entries it loses).
func (c *Map[K, V]) dropExpired(now time.Time) {
	c.swept = now
	n := len(c.m)
	for k, e := range c.m {
		if !now.Before(e.until) {
			delete(c.m, k)
		}
	}
	if len(c.m) < n/2 {
		c.m = maps.Clone(c.m)
	}
}

// Len is the number of entries held, expired ones included until they are dropped.
func (c *Map[K, V]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

// Invalidate drops every entry and bumps the generation, so that fills begun before it are not stored.
func (c *Map[K, V]) Invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.m)
}
