package group

import (
	"context"
	"sync"
	"testing"
	"time"
)

// batchLog is a commit function that keeps each batch.
type batchLog struct {
	mu      sync.Mutex
	batches [][]int
}

func (l *batchLog) commit(batch []int) []error {
	l.mu.Lock()
	l.batches = append(l.batches, append([]int(nil), batch...))
	l.mu.Unlock()
	return nil
}

// sizes checks the sizes of the batches committed so far.
func (l *batchLog) sizes(t *testing.T, want ...int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	ok := len(l.batches) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = len(l.batches[i]) == want[i]
	}
	if !ok {
		t.Fatalf("batches %v, want batches of %v items", l.batches, want)
	}
}

func (l *batchLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.batches)
}

// submitAll submits items from one goroutine each and waits for them all.
func submitAll(t *testing.T, c *Committer[int], items ...int) {
	t.Helper()
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Go(func() {
			if err := c.Submit(context.Background(), it); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestLingerGathers: items that arrive one after another, shortly after a batch started, share the next
// batch instead of each starting its own.
func TestLingerGathers(t *testing.T) {
	var l batchLog
	c := New(64, 1, l.commit, nil, Linger[int](300*time.Millisecond, nil))
	defer c.Close()
	submitAll(t, c, 0)
	var wg sync.WaitGroup
	for i := 1; i <= 5; i++ {
		wg.Go(func() { submitAll(t, c, i) })
		time.Sleep(5 * time.Millisecond) // one after another, as a pipeline's saves come
	}
	wg.Wait()
	if n := l.count(); n != 2 {
		t.Fatalf("%d batches %v, want 2: the first, and the five that came while the worker lingered", n, l.batches)
	}
}

// TestLingerUrgent: an urgent item waiting when a batch is due is committed at once, however long the
// linger; and Close does not wait for a lingering worker.
func TestLingerUrgent(t *testing.T) {
	var l batchLog
	urgent := func(i int) bool { return i < 0 }
	c := New(64, 1, l.commit, nil, Linger(time.Hour, urgent))
	submitAll(t, c, 0)
	done := make(chan struct{})
	go func() { submitAll(t, c, -1); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("an urgent item waited for the linger")
	}
	// A plain item now lingers for an hour; Close ends the wait and commits it.
	go submitAll(t, c, 1)
	waitQueued(c, 1)
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close waited for the linger")
	}
	if n := l.count(); n != 3 {
		t.Fatalf("%d batches %v, want 3", n, l.batches)
	}
}

// TestDueAt: urgent items linger too while fewer than DueAt of them wait, and the one that makes DueAt ends
// the linger at once, all of them in one batch.
func TestDueAt(t *testing.T) {
	var l batchLog
	urgent := func(i int) bool { return i < 0 }
	c := New(64, 1, l.commit, nil, Linger(time.Hour, urgent), DueAt[int](3))
	defer c.Close()
	submitAll(t, c, 0)
	done := make(chan struct{})
	go func() { submitAll(t, c, -1, -2); close(done) }()
	waitQueued(c, 2)
	go submitAll(t, c, -3)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the third urgent item did not end the linger")
	}
	l.sizes(t, 1, 3) // [0], then the three urgent items together
}

// TestLingerFrom: after a batch of two items the worker lingers (see TestNoLingerAfterLoneBatch for a batch
// of one).
func TestLingerFrom(t *testing.T) {
	var l batchLog
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	commit := func(batch []int) []error {
		once.Do(func() { close(entered); <-release }) // the first batch waits until two more items are queued
		return l.commit(batch)
	}
	c := New(64, 1, commit, nil, Linger[int](time.Hour, nil), LingerFrom[int](2))
	go submitAll(t, c, 0)
	<-entered
	go submitAll(t, c, 1, 2)
	waitQueued(c, 2)
	close(release)
	deadline := time.Now().Add(30 * time.Second)
	for l.count() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("batches %v, want [0] and [1 2]", l.batches)
		}
		time.Sleep(time.Millisecond)
	}
	// After the batch of two the worker lingers (an hour): 3 waits until Close.
	done := make(chan struct{})
	go func() { submitAll(t, c, 3); close(done) }()
	waitQueued(c, 1)
	select {
	case <-done:
		t.Fatal("an item after a batch of two did not wait for the linger")
	case <-time.After(100 * time.Millisecond):
	}
	c.Close()
	<-done
	l.sizes(t, 1, 2, 1) // [0], [1 2], [3]
}

// TestNoLingerAfterLoneBatch: with LingerFrom(2), items that come one at a time, each after the one before
// was committed, are each committed at once however long the linger.
func TestNoLingerAfterLoneBatch(t *testing.T) {
	var l batchLog
	c := New(64, 1, l.commit, nil, Linger[int](time.Hour, nil), LingerFrom[int](2))
	defer c.Close()
	done := make(chan struct{})
	go func() {
		for i := range 5 {
			submitAll(t, c, i)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("items that came one at a time waited for the linger")
	}
	if n := l.count(); n != 5 {
		t.Errorf("%d batches %v, want 5", n, l.batches)
	}
}
