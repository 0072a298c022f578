package sqlstore

import (
	"errors"
	"sync"

	"seald.dev/seald"
)

// ErrClosed is the error of a lock asked of a closed store.
var ErrClosed = errors.New("the store is closed")

// Held is the set of leader locks a store holds, so that closing the store releases them and a closed store
// hands out no more. A lock's Release calls Drop.
type Held struct {
	mu     sync.Mutex
	locks  map[seald.Lock]struct{}
	closed bool
}

// Closed tells whether the store has been closed.
func (h *Held) Closed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// Add keeps l; false, and l is not kept, once the store is closed.
func (h *Held) Add(l seald.Lock) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	if h.locks == nil {
		h.locks = map[seald.Lock]struct{}{}
	}
	h.locks[l] = struct{}{}
	return true
}

// Drop forgets a released lock.
func (h *Held) Drop(l seald.Lock) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.locks, l)
}

// Close marks the store closed and releases every lock it holds.
func (h *Held) Close() {
	h.mu.Lock()
	h.closed = true
	held := make([]seald.Lock, 0, len(h.locks))
	for l := range h.locks {
		held = append(held, l)
	}
	h.mu.Unlock()
	for _, l := range held {
		l.Release()
	}
}
