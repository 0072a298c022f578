package pipeline_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"seald.dev/seald"
)

// claimSpy keeps what each claim asked for and got.
type claimSpy struct {
	seald.Store
	mu     sync.Mutex
	claims []spiedClaim
}

type spiedClaim struct {
	at    time.Time // before the claim
	kinds []string
	lease time.Duration
	jobs  []seald.Job
}

func (c *claimSpy) ClaimJobs(ctx context.Context, kinds []string, limit int, now time.Time, lease time.Duration) ([]*seald.Job, error) {
	at := time.Now()
	jobs, err := c.Store.ClaimJobs(ctx, kinds, limit, now, lease)
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := spiedClaim{at: at, kinds: kinds, lease: lease}
	for _, j := range jobs {
		sc.jobs = append(sc.jobs, *j)
	}
	c.claims = append(c.claims, sc)
	return jobs, err
}

// claimsOf returns the claims that took job id, in order.
func (c *claimSpy) claimsOf(id int64) []spiedClaim {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []spiedClaim
	for _, sc := range c.claims {
		for _, j := range sc.jobs {
			if j.ID == id {
				out = append(out, sc)
			}
		}
	}
	return out
}

func (c *claimSpy) claimed() []seald.Job {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []seald.Job
	for _, sc := range c.claims {
		out = append(out, sc.jobs...)
	}
	return out
}

// A runner does not wait for a claim after each step: while the only runner is in a step, the next job is
// claimed already, leased for longer than the lease so that the wait for the runner does not shorten its
// step's time.
func TestPipelineClaimsAheadOfRunners(t *testing.T) {
	e := newEnv(t)
	e.workers, e.lease = 1, time.Minute
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	e.blobs.beforePut = func() {
		once.Do(func() {
			close(entered)
			<-release
		})
	}
	refs := []string{e.seal(1).Reference, e.seal(2).Reference, e.seal(3).Reference}
	spy := &claimSpy{Store: e.store}
	e.store = spy
	e.start(8)
	<-entered
	deadline := time.Now().Add(10 * time.Second)
	for len(spy.claimed()) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	claimed := spy.claimed()
	close(release)
	if len(claimed) < 2 {
		t.Fatalf("%d job claimed while the only runner was in a step; want the next one claimed ahead", len(claimed))
	}
	for _, sc := range spy.claimsOf(claimed[1].ID) {
		if sc.lease <= e.lease {
			t.Errorf("job claimed ahead leased for %s, want more than the lease (%s) to cover its wait", sc.lease, e.lease)
		}
	}
	for _, ref := range refs {
		e.waitState(ref, seald.StateCompleted)
	}
	if n := e.blobs.puts.Load(); n != int64(len(refs)) {
		t.Errorf("%d puts for %d records", n, len(refs))
	}
}

// A job claimed ahead that waited for a runner longer than its lease has to spare is not run then (its
// step could outlive its lease, and another runner take it over): it runs once its lease has ended and it
// is claimed again, and no record is lost or stored twice.
func TestPipelineClaimedJobWaitingTooLongRunsAfterItsLease(t *testing.T) {
	e := newEnv(t)
	e.workers, e.lease = 1, 4*time.Second
	e.patience = 30 * time.Second
	var mu sync.Mutex
	var puts []time.Time
	e.blobs.beforePut = func() {
		mu.Lock()
		puts = append(puts, time.Now())
		first := len(puts) == 1
		mu.Unlock()
		if first {
			// Longer than a claimed job may wait (a quarter of the lease), shorter than a step may take.
			time.Sleep(e.lease / 2)
		}
	}
	refs := []string{e.seal(1).Reference, e.seal(2).Reference}
	spy := &claimSpy{Store: e.store}
	e.store = spy
	e.start(8)
	for _, ref := range refs {
		e.waitState(ref, seald.StateCompleted)
	}
	if n := e.blobs.puts.Load(); n != int64(len(refs)) {
		t.Fatalf("%d puts for %d records", n, len(refs))
	}
	var second *seald.Job
	for _, j := range spy.claimed() {
		if j.Kind == seald.JobStore && len(spy.claimsOf(j.ID)) > 1 {
			second = &j
		}
	}
	if second == nil {
		t.Fatalf("no store job was claimed twice; claims %+v", spy.claimed())
	}
	first := spy.claimsOf(second.ID)[0]
	mu.Lock()
	defer mu.Unlock()
	if len(puts) != 2 || puts[1].Before(first.at.Add(first.lease)) {
		t.Errorf("the waiting job's step began at %v, before its first lease ended (%v)", puts, first.at.Add(first.lease))
	}
}

// claimCount is how many claims of the runners' jobs the spy saw (not the leader's of revocations), and how
// many of them took no job.
func (c *claimSpy) claimCount() (all, empty int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sc := range c.claims {
		if !slices.Contains(sc.kinds, seald.JobStore) {
			continue
		}
		all++
		if len(sc.jobs) == 0 {
			empty++
		}
	}
	return all, empty
}

// settle waits until the claimer has made its claims at start and gone idle, and forgets them.
func (c *claimSpy) settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for n, _ := c.claimCount(); n == 0; n, _ = c.claimCount() {
		if time.Now().After(deadline) {
			t.Fatal("the claimer never claimed at start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	c.mu.Lock()
	c.claims = nil
	c.mu.Unlock()
}

// Wakes that come close together are answered by one claim, not one each: at moderate rates every
// acceptance wakes the claimer, and each claim is a write transaction.
func TestPipelineGathersWakes(t *testing.T) {
	e := newEnv(t)
	e.workers, e.poll, e.gather = 16, time.Hour, 300*time.Millisecond
	release := make(chan struct{})
	e.blobs.beforePut = func() { <-release } // only the store claims are counted
	spy := &claimSpy{Store: e.store}
	e.store = spy
	e.start(8)
	spy.settle(t)
	var refs []string
	for i := range 10 {
		refs = append(refs, e.seal(i).Reference) // each wakes the claimer
		time.Sleep(5 * time.Millisecond)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(spy.claimed()) < len(refs) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	all, empty := spy.claimCount()
	got := len(spy.claimed())
	close(release)
	if got < len(refs) {
		t.Fatalf("%d jobs claimed for %d records", got, len(refs))
	}
	// The seals take about 50 ms, within one gathering; a second claim may begin before the last seal.
	if all > 2 || empty > 0 {
		t.Errorf("%d claims (%d of them empty) for a burst of %d wakes; want at most 2, none empty", all, empty, len(refs))
	}
	for _, ref := range refs {
		e.waitState(ref, seald.StateCompleted)
	}
}

// A claim that took fewer jobs than it asked for found every due job: the claimer does not claim again
// until a wake or a poll, so a lone record's stage costs one claim, not a second that finds nothing.
func TestPipelineClaimsOnceWhenNothingMoreIsDue(t *testing.T) {
	e := newEnv(t)
	e.poll = time.Hour
	spy := &claimSpy{Store: e.store}
	e.store = spy
	e.start(8)
	spy.settle(t)
	e.waitState(e.seal(1).Reference, seald.StateCompleted)
	all, empty := spy.claimCount()
	if empty > 0 {
		t.Errorf("%d of %d claims took no job on a lone record's way; want none", empty, all)
	}
}
