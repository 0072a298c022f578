package ttlcache

import (
	"sync"
	"time"
)

// Map is a map whose entries each expire at their own time. Its zero value is empty and ready; it is safe for
// concurrent use.
//
// A fill that read its value from elsewhere is stored only if the map was not invalidated meanwhile: read
// Generation before the read and pass it to Put, so that a value read before an invalidation (a key revoked in
// this process) is never stored after it.
type Map[K comparable, V any] struct {
	// Limit bounds the number of entries (0: DefaultLimit). Past it, expired entries are dropped first and,
	// if that is not enough, every entry (a refill costs one read per entry).
	Limit int

	mu  sync.RWMutex
	gen uint64 // bumped by every Invalidate
	m   map[K]entry[V]
}

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
	for k, e := range c.m {
		if !now.Before(e.until) {
			delete(c.m, k)
		}
	}
	if len(c.m) >= limit {
		clear(c.m)
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
