package group

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// waitQueued waits until n items are in c's queue (taken items have left it).
func waitQueued[T any](c *Committer[T], n int) {
	for {
		c.mu.Lock()
		l := len(c.queue)
		c.mu.Unlock()
		if l >= n {
			return
		}
		runtime.Gosched()
	}
}

// gate is a commit function whose first batch waits until release is closed.
type gate struct {
	entered chan struct{} // closed once the first batch is inside commit
	release chan struct{}
	once    sync.Once

	mu      sync.Mutex
	batches [][]int
}

func newGate() *gate {
	return &gate{entered: make(chan struct{}), release: make(chan struct{})}
}

func (g *gate) commit(batch []int) []error {
	g.once.Do(func() { close(g.entered); <-g.release })
	g.mu.Lock()
	g.batches = append(g.batches, append([]int(nil), batch...))
	g.mu.Unlock()
	return nil
}

func (g *gate) committed() map[int]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := map[int]int{}
	for _, b := range g.batches {
		for _, v := range b {
			n[v]++
		}
	}
	return n
}

func TestPerItemErrors(t *testing.T) {
	errOdd := errors.New("odd")
	var maxBatch atomic.Int64
	c := New(4, 1, func(batch []int) []error {
		maxBatch.Store(max(maxBatch.Load(), int64(len(batch))))
		errs := make([]error, len(batch))
		for i, v := range batch {
			if v%2 == 1 {
				errs[i] = fmt.Errorf("item %d: %w", v, errOdd)
			}
		}
		return errs
	}, nil)
	defer c.Close()
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range errs {
		wg.Go(func() { errs[i] = c.Submit(context.Background(), i) })
	}
	wg.Wait()
	for i, err := range errs {
		if i%2 == 1 {
			if want := fmt.Sprintf("item %d: odd", i); err == nil || err.Error() != want {
				t.Errorf("item %d: got %v, want %s", i, err, want)
			}
		} else if err != nil {
			t.Errorf("item %d: got %v, want nil", i, err)
		}
	}
	if m := maxBatch.Load(); m > 4 {
		t.Errorf("a batch of %d items, more than maxGroup 4", m)
	}
}

func TestBatchesShareCommit(t *testing.T) {
	g := newGate()
	c := New(3, 1, g.commit, nil)
	defer c.Close()
	var wg sync.WaitGroup
	wg.Go(func() { c.Submit(context.Background(), 0) })
	<-g.entered
	for i := 1; i <= 7; i++ {
		wg.Go(func() { c.Submit(context.Background(), i) })
	}
	waitQueued(c, 7)
	close(g.release)
	wg.Wait()
	// The first batch held item 0 alone; the seven queued behind it go in batches of at most three.
	if len(g.batches) != 4 {
		t.Fatalf("batches %v, want 4 of them", g.batches)
	}
	for _, b := range g.batches[1:] {
		if len(b) > 3 {
			t.Errorf("batch %v is larger than maxGroup 3", b)
		}
	}
}

func TestCancelWhileQueued(t *testing.T) {
	g := newGate()
	var abandoned []int
	var mu sync.Mutex
	c := New(8, 1, g.commit, func(v int) { mu.Lock(); abandoned = append(abandoned, v); mu.Unlock() })
	first := make(chan error, 1)
	go func() { first <- c.Submit(context.Background(), 1) }()
	<-g.entered // item 1 is taken and its batch is blocked

	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() { second <- c.Submit(ctx, 2) }()
	waitQueued(c, 1)
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("queued item canceled: got %v, want context.Canceled", err)
	}
	mu.Lock()
	if len(abandoned) != 1 || abandoned[0] != 2 {
		t.Errorf("abandoned %v when Submit returned, want [2]", abandoned)
	}
	mu.Unlock()
	close(g.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	c.Close()
	if n := g.committed(); n[2] != 0 || n[1] != 1 {
		t.Errorf("committed %v: item 2 was abandoned and must never be committed", n)
	}
}

func TestCancelWhileTaken(t *testing.T) {
	errOutcome := errors.New("the item's own outcome")
	entered, release := make(chan struct{}), make(chan struct{})
	var abandons atomic.Int64
	c := New(8, 1, func(batch []int) []error {
		close(entered)
		<-release
		return []error{errOutcome}
	}, func(int) { abandons.Add(1) })
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Submit(ctx, 1) }()
	<-entered
	cancel() // the item is taken: its caller must wait for and get the outcome
	close(release)
	if err := <-done; !errors.Is(err, errOutcome) {
		t.Fatalf("taken item canceled: got %v, want the commit's outcome", err)
	}
	if n := abandons.Load(); n != 0 {
		t.Errorf("abandon called %d times for a taken item", n)
	}
}

func TestCanceledBeforeSubmit(t *testing.T) {
	var abandons atomic.Int64
	committed := false
	c := New(8, 1, func([]int) []error { committed = true; return nil }, func(int) { abandons.Add(1) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Submit(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	c.Close()
	if committed || abandons.Load() != 1 {
		t.Errorf("committed %v, abandons %d; want false, 1", committed, abandons.Load())
	}
}

func TestCloseDrains(t *testing.T) {
	g := newGate()
	var abandons atomic.Int64
	c := New(2, 1, g.commit, func(int) { abandons.Add(1) })
	results := make(chan error, 6)
	go func() { results <- c.Submit(context.Background(), 0) }()
	<-g.entered
	for i := 1; i < 6; i++ {
		go func() { results <- c.Submit(context.Background(), i) }()
	}
	waitQueued(c, 5)
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	// Close has begun (or will): a Submit now is refused, not queued.
	for {
		c.mu.Lock()
		cl := c.closed
		c.mu.Unlock()
		if cl {
			break
		}
		runtime.Gosched()
	}
	if err := c.Submit(context.Background(), 99); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit during Close: got %v, want ErrClosed", err)
	}
	close(g.release)
	<-closed
	for range 6 {
		if err := <-results; err != nil {
			t.Errorf("queued item: got %v, want nil", err)
		}
	}
	n := g.committed()
	for i := range 6 {
		if n[i] != 1 {
			t.Errorf("item %d committed %d times, want once: Close must drain the queue", i, n[i])
		}
	}
	if n[99] != 0 || abandons.Load() != 1 {
		t.Errorf("item refused by Close: committed %d times, abandoned %d; want 0, 1", n[99], abandons.Load())
	}
	c.Close() // a second Close returns
}

func TestDistinct(t *testing.T) {
	g := newGate()
	c := New(8, 1, func(batch []string) []error {
		ints := make([]int, len(batch))
		for i, s := range batch {
			ints[i] = int(s[1] - '0')
		}
		return g.commit(ints)
	}, nil, Distinct(func(s string) string { return s[:1] }))
	var wg sync.WaitGroup
	wg.Go(func() { c.Submit(context.Background(), "z0") })
	<-g.entered
	for i, s := range []string{"a1", "a2", "b3", "a4", "c5"} {
		wg.Go(func() { c.Submit(context.Background(), s) })
		waitQueued(c, i+1) // keep the submission order
	}
	close(g.release)
	wg.Wait()
	c.Close()
	// [0], then one "a" with b and c, then the second "a", then the third.
	want := [][]int{{0}, {1, 3, 5}, {2}, {4}}
	if fmt.Sprint(g.batches) != fmt.Sprint(want) {
		t.Errorf("batches %v, want %v", g.batches, want)
	}
}

// TestConcurrent submits from many goroutines to several workers, some callers canceling, and checks that
// every item ends exactly once: committed (and its caller told so) or abandoned (and its caller told so).
func TestConcurrent(t *testing.T) {
	const workers, maxGroup, callers, each = 3, 5, 16, 200
	var (
		mu          sync.Mutex
		committed   = map[int]int{}
		abandoned   = map[int]int{}
		inFlight    atomic.Int64
		maxInFlight atomic.Int64
		tooBig      atomic.Bool
	)
	c := New(maxGroup, workers, func(batch []int) []error {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := maxInFlight.Load()
			if n <= m || maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		if len(batch) > maxGroup {
			tooBig.Store(true)
		}
		errs := make([]error, len(batch))
		mu.Lock()
		for i, v := range batch {
			committed[v]++
			if v%7 == 0 {
				errs[i] = fmt.Errorf("item %d refused", v)
			}
		}
		mu.Unlock()
		runtime.Gosched()
		return errs
	}, func(v int) { mu.Lock(); abandoned[v]++; mu.Unlock() })

	outcome := make([]error, callers*each)
	var wg sync.WaitGroup
	for g := range callers {
		wg.Go(func() {
			for k := range each {
				v := g*each + k
				ctx, cancel := context.WithCancel(context.Background())
				if v%3 == 0 {
					go cancel()
				}
				outcome[v] = c.Submit(ctx, v)
				cancel()
			}
		})
	}
	wg.Wait()
	c.Close()

	var nCommitted, nAbandoned int
	for v, err := range outcome {
		switch {
		case committed[v] == 1 && abandoned[v] == 0:
			nCommitted++
			if v%7 == 0 && (err == nil || err.Error() != fmt.Sprintf("item %d refused", v)) {
				t.Errorf("item %d: got %v, want its refusal", v, err)
			} else if v%7 != 0 && err != nil {
				t.Errorf("item %d committed, but its caller got %v", v, err)
			}
		case committed[v] == 0 && abandoned[v] == 1:
			nAbandoned++
			if !errors.Is(err, context.Canceled) {
				t.Errorf("item %d abandoned, but its caller got %v", v, err)
			}
			if v%3 != 0 {
				t.Errorf("item %d abandoned without being canceled", v)
			}
		default:
			t.Errorf("item %d committed %d times and abandoned %d times, want exactly one of them", v, committed[v], abandoned[v])
		}
	}
	if nCommitted+nAbandoned != callers*each {
		t.Errorf("%d committed + %d abandoned != %d submitted", nCommitted, nAbandoned, callers*each)
	}
	if tooBig.Load() {
		t.Error("a batch was larger than maxGroup")
	}
	if m := maxInFlight.Load(); m > workers {
		t.Errorf("%d batches in flight at once, more than %d workers", m, workers)
	}
}
