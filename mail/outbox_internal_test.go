package mail

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor polls cond; the tests below use it to reach a state, never to time anything.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never reached: %s", what)
		}
	}
}

func (d *dirSync) waiters() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.waiting
}

// Writers that arrive while an fsync runs are all served by one more fsync, not one each; none returns
// before an fsync that began after its call has ended.
func TestDirSyncShared(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	var d dirSync
	var done []atomic.Bool
	d.fsync = func() error {
		if calls.Add(1) == 1 {
			<-release // hold the first fsync until every other writer waits
		}
		return nil
	}
	const n = 20
	done = make([]atomic.Bool, n+1)
	var wg sync.WaitGroup
	errs := make([]error, n+1)
	wg.Go(func() { errs[0] = d.after(); done[0].Store(true) })
	waitFor(t, "the first fsync runs", func() bool { return calls.Load() == 1 })
	for i := 1; i <= n; i++ {
		wg.Go(func() { errs[i] = d.after(); done[i].Store(true) })
	}
	waitFor(t, "every writer waits", func() bool { return d.waiters() == n+1 })
	for i := range done {
		if done[i].Load() {
			t.Fatalf("writer %d returned while the first fsync was still running", i)
		}
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	if got := calls.Load(); got != 2 {
		t.Errorf("%d fsyncs for %d writers in two bursts, want 2", got, n+1)
	}
}

// A failed fsync fails every writer it was to cover, and a writer whose own fsync came later learns of a
// failure after its call, too; once the directory syncs again, later writers succeed.
func TestDirSyncFailure(t *testing.T) {
	boom := errors.New("EIO")
	var fail atomic.Bool
	fail.Store(true)
	release := make(chan struct{})
	var calls atomic.Int32
	d := dirSync{fsync: func() error {
		if calls.Add(1) == 1 {
			<-release
		}
		if fail.Load() {
			return boom
		}
		return nil
	}}
	var wg sync.WaitGroup
	errs := make([]error, 6)
	wg.Go(func() { errs[0] = d.after() })
	waitFor(t, "the first fsync runs", func() bool { return calls.Load() == 1 })
	for i := 1; i < len(errs); i++ {
		wg.Go(func() { errs[i] = d.after() })
	}
	waitFor(t, "every writer waits", func() bool { return d.waiters() == len(errs) })
	close(release)
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, boom) {
			t.Errorf("writer %d: %v, want the fsync's error", i, err)
		}
	}
	fail.Store(false)
	if err := d.after(); err != nil {
		t.Errorf("after the directory syncs again: %v", err)
	}
}
