// Package group runs group commit: items submitted by concurrent callers are queued, and worker goroutines
// hand them to a commit function in batches, so that one costly step (an fsync, a WAL flush) is shared by
// the whole batch, while each caller still gets the outcome of its own item.
//
// It is written by hand because no well-kept Go library does group commit with a per-item outcome and this
// cancellation rule: a caller whose context ends while its item is still queued withdraws it (it is never
// committed, and an abandon hook may release what it holds), but once a worker has taken the item the
// caller waits for the batch's end, so that it always learns whether its item was committed. Batching
// libraries (channels with a size or time flush) either lose per-item results or the withdrawal rule.
package group

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is the error of an item submitted after Close.
var ErrClosed = errors.New("group: closed")

// Item states: queued, taken by a worker, or abandoned by its caller before that.
const (
	queued int32 = iota
	taken
	abandoned
)

// req is one caller's item waiting for a worker.
type req[T any] struct {
	item  T
	state atomic.Int32
	done  chan error // receives the item's outcome once
}

// Committer queues items and commits them in batches of at most maxGroup, on a fixed number of workers.
type Committer[T any] struct {
	maxGroup int
	workers  int
	commit   func(batch []T) []error
	abandon  func(T)
	key      func(T) string
	// linger, urgent and dueAt: see Linger and DueAt.
	linger time.Duration
	urgent func(T) bool
	dueAt  int
	due    chan struct{} // dueAt urgent items wait: a lingering worker stops lingering
	from   int           // see LingerFrom

	mu      sync.Mutex
	queue   []*req[T]
	closed  bool
	wake    chan struct{} // an item was queued, or the workers must stop
	closing chan struct{} // closed by Close: a lingering worker stops lingering
	exited  chan struct{}
}

// Option changes how New sets up a Committer.
type Option[T any] func(*Committer[T])

// Distinct keeps two items of one key out of one batch: the second waits, in its place in the queue, for a
// later batch. It is for commits where two such items would be ambiguous (which of two creates of one
// reference won?).
func Distinct[T any](key func(T) string) Option[T] {
	return func(c *Committer[T]) { c.key = key }
}

// Linger makes a worker start a batch no sooner than d after it started its previous one, while no urgent
// item (urgent may be nil: none is) and fewer than maxGroup items wait, so that at moderate rates the items
// that would each have gone alone, or nearly, share one commit: the commit's fixed cost (a transaction, an
// fsync) is paid by more of them. An urgent item waiting when a batch is due is taken at once with whatever
// waits (DueAt of them, when DueAt says more than one); one queued while the worker lingers waits at most the
// rest of d. Under load batches take longer
// than d and nothing lingers.
func Linger[T any](d time.Duration, urgent func(T) bool) Option[T] {
	return func(c *Committer[T]) { c.linger, c.urgent = d, urgent }
}

// DueAt makes a batch due when n urgent items wait (see Linger; default 1): a worker lingers while fewer
// wait, and stops lingering as soon as the n-th is queued. With n above one, urgent items share the linger
// too, up to n of them: at moderate rates a batch then holds many of them (fewer commits, each writing its
// pages once for all), while a burst of them is taken as soon as n have come.
func DueAt[T any](n int) Option[T] {
	return func(c *Committer[T]) { c.dueAt = max(1, n) }
}

// LingerFrom makes a worker linger (see Linger) only after a batch of at least n items (default 1: after
// every batch). When the writes come one at a time, each step of a chain waiting for the one before (a lone
// record on its way through a pipeline), lingering only delays each of them and groups nothing; a batch of
// two or more says that items come faster than they are committed, which is when lingering pays.
func LingerFrom[T any](n int) Option[T] {
	return func(c *Committer[T]) { c.from = max(1, n) }
}

// New starts workers goroutines (at least one) that hand the queued items, up to maxGroup at a time (at
// least one), to commit. commit returns the outcome of each item of batch, in order (nil: every item
// succeeded); it runs on one worker at a time per batch, and with several workers several batches may be
// in flight at once. abandon, when not nil, is called once, on the submitter's goroutine, for each item
// that is never given to commit (submitted after Close, or withdrawn by its caller's context), before
// Submit returns, so that it may release what the item holds.
func New[T any](maxGroup, workers int, commit func(batch []T) []error, abandon func(T), opts ...Option[T]) *Committer[T] {
	c := &Committer[T]{
		maxGroup: max(1, maxGroup),
		workers:  max(1, workers),
		commit:   commit,
		abandon:  abandon,
		wake:     make(chan struct{}, 1),
		due:      make(chan struct{}, 1),
		dueAt:    1,
		from:     1,
		closing:  make(chan struct{}),
		exited:   make(chan struct{}),
	}
	for _, o := range opts {
		o(c)
	}
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(c.run)
	}
	go func() { wg.Wait(); close(c.exited) }()
	return c
}

// Submit queues item and waits for its outcome: commit's error for it (nil once committed), or, when the
// item was never given to commit, ErrClosed or ctx.Err(). Once a worker has taken the item, Submit waits
// for the batch's end whatever ctx says, so that the caller always learns whether its item was committed.
func (c *Committer[T]) Submit(ctx context.Context, item T) error {
	if err := ctx.Err(); err != nil {
		c.drop(item)
		return err
	}
	r := &req[T]{item: item, done: make(chan error, 1)}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.drop(item)
		return ErrClosed
	}
	c.queue = append(c.queue, r)
	due := c.dueAt > 1 && c.urgent != nil && c.urgent(item) && c.urgentQueued() >= c.dueAt
	c.mu.Unlock()
	if due {
		select {
		case c.due <- struct{}{}:
		default:
		}
	}
	c.signal()
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		if r.state.CompareAndSwap(queued, abandoned) {
			// Never taken: no worker will touch it (they skip abandoned items), so it is the caller's again.
			c.drop(item)
			return ctx.Err()
		}
		// A worker has it: the batch runs to its end whatever the caller's context says (one batch, bounded
		// by commit's own timeouts), and the caller waits for its item's outcome.
		return <-r.done
	}
}

// Queued returns the number of items waiting for a worker, for tests that need a burst queued.
func (c *Committer[T]) Queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// Close stops taking items and returns once every queued item has been committed. It may be called more
// than once.
func (c *Committer[T]) Close() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.closing)
	}
	c.mu.Unlock()
	c.signal()
	<-c.exited
}

func (c *Committer[T]) drop(item T) {
	if c.abandon != nil {
		c.abandon(item)
	}
}

// signal wakes a worker, unless one is already due to wake.
func (c *Committer[T]) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *Committer[T]) run() {
	var last time.Time // when this worker last took a batch
	size := 0          // how many items it held
	for range c.wake {
		for {
			if c.linger > 0 {
				if size >= c.from {
					c.lingerAfter(last)
				}
				last = time.Now()
			}
			batch, empty, closed := c.take()
			size = len(batch)
			if !empty && c.workers > 1 {
				c.signal() // let another worker start the next batch while this one commits
			}
			if len(batch) > 0 {
				c.run1(batch)
			}
			if empty {
				if closed {
					c.signal() // wake the other workers so that they stop too
					return
				}
				break
			}
		}
	}
}

// lingerAfter waits until linger has passed since last, unless an urgent item or maxGroup items wait, or
// the Committer is closing (see Linger).
func (c *Committer[T]) lingerAfter(last time.Time) {
	if last.IsZero() {
		return // the worker's first batch
	}
	wait := c.linger - time.Since(last)
	if wait <= 0 {
		return
	}
	select {
	case <-c.due: // a signal from an earlier batch's items: the count below says whether it still holds
	default:
	}
	c.mu.Lock()
	full, urgent := len(c.queue) >= c.maxGroup, c.urgentQueued() >= c.dueAt
	c.mu.Unlock()
	if full || urgent {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.due:
	case <-c.closing:
	}
}

// urgentQueued counts the urgent items that wait, up to dueAt; c.mu is held.
func (c *Committer[T]) urgentQueued() int {
	n := 0
	for i := 0; c.urgent != nil && i < len(c.queue) && n < c.dueAt; i++ {
		if c.queue[i].state.Load() == queued && c.urgent(c.queue[i].item) {
			n++
		}
	}
	return n
}

// take removes up to maxGroup items from the head of the queue and marks them taken, dropping those
// abandoned and, with Distinct, leaving in place the items whose key is already in the batch.
func (c *Committer[T]) take() (batch []*req[T], empty, closed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var later []*req[T]
	var seen map[string]bool
	if c.key != nil {
		seen = map[string]bool{}
	}
	i := 0
	for ; i < len(c.queue) && len(batch) < c.maxGroup; i++ {
		r := c.queue[i]
		if seen != nil && seen[c.key(r.item)] {
			later = append(later, r)
			continue
		}
		if r.state.CompareAndSwap(queued, taken) {
			if seen != nil {
				seen[c.key(r.item)] = true
			}
			batch = append(batch, r)
		}
	}
	rest := c.queue[i:]
	if len(later) > 0 {
		c.queue = append(later, rest...)
	} else {
		c.queue = append(c.queue[:0], rest...)
	}
	return batch, len(c.queue) == 0, c.closed
}

// run1 commits one batch and hands each caller its item's outcome.
func (c *Committer[T]) run1(batch []*req[T]) {
	items := make([]T, len(batch))
	for i, r := range batch {
		items[i] = r.item
	}
	errs := c.commit(items)
	if errs != nil && len(errs) != len(batch) {
		panic("group: commit returned a number of errors other than the batch's")
	}
	for i, r := range batch {
		var err error
		if errs != nil {
			err = errs[i]
		}
		r.done <- err
	}
}
