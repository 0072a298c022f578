package ttlcache

import (
	"context"
	"sync"
	"time"
)

// Value is one value read again when it is older than the age its callers accept. When it is due, one
// caller reads it while the others go on at once with the previous value: holding every caller behind a slow
// read each interval would stall them for as long as it runs. Its zero value reads at the first Get. It is
// safe for concurrent use.
type Value[T any] struct {
	mu         sync.Mutex
	at         time.Time
	v          T
	err        error
	refreshing bool
}

// Get returns the value, calling read first when the value is maxAge old or older and no other caller is
// reading it. After a failed
// read, Get returns the last value read successfully (the zero value if none) with that read's error, until
// the next read.
func (c *Value[T]) Get(ctx context.Context, maxAge time.Duration, read func(context.Context) (T, error)) (T, error) {
	c.mu.Lock()
	refresh := !c.refreshing && time.Since(c.at) >= maxAge
	if refresh {
		c.refreshing = true
	}
	v, err := c.v, c.err
	c.mu.Unlock()
	if !refresh {
		return v, err
	}
	got, err := read(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at, c.refreshing, c.err = time.Now(), false, err
	if err == nil {
		c.v = got
	}
	return c.v, c.err
}
