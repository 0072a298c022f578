package pipeline_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/pipeline"
)

// togetherStore passes the pipeline's saves to the store, counting them; its CompleteJobs fails the
// completions of the first failGroups groups that hold a notify step with EUNAVAILABLE, as a database that is
// restarting does.
type togetherStore struct {
	pipeline.Store
	mu         sync.Mutex
	groups     int // CompleteJobs calls
	together   int // completions saved by CompleteJobs
	largest    int
	alone      atomic.Int64 // CompleteJob calls
	failGroups atomic.Int32
}

func (s *togetherStore) CompleteJobs(ctx context.Context, cs []seald.Completion) []error {
	notify := false
	for _, c := range cs {
		notify = notify || c.Job.Kind == seald.JobNotify
	}
	if notify && s.failGroups.Add(-1) >= 0 {
		errs := make([]error, len(cs))
		for i := range errs {
			errs[i] = seald.Errorf(seald.EUNAVAILABLE, "the database is unavailable")
		}
		return errs
	}
	errs := s.Store.(seald.JobsTogether).CompleteJobs(ctx, cs)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups++
	for _, err := range errs {
		if err == nil {
			s.together++
		}
	}
	s.largest = max(s.largest, len(cs))
	return errs
}

func (s *togetherStore) CompleteJob(ctx context.Context, j *seald.Job, u *seald.RecordUpdate, dropPayload bool, next ...*seald.Job) error {
	s.alone.Add(1)
	return s.Store.CompleteJob(ctx, j, u, dropPayload, next...)
}

// sealTogether seals n records in an env whose pipeline saves through a togetherStore that fails the first
// failGroups groups holding a notify step.
func sealTogether(t *testing.T, n int, failGroups int32) (*env, *togetherStore, []string) {
	e := newEnv(t)
	ts := &togetherStore{}
	ts.failGroups.Store(failGroups)
	e.wrap = func(s pipeline.Store) pipeline.Store { ts.Store = s; return ts }
	var refs []string
	for i := range n {
		refs = append(refs, e.seal(i).Reference)
	}
	return e, ts, refs
}

// TestStepsSavedTogether: with a store that saves completions together, the store and notify steps of every
// record are saved by CompleteJobs, none by a CompleteJob of its own.
func TestStepsSavedTogether(t *testing.T) {
	e, ts, refs := sealTogether(t, 40, 0)
	e.workers = 8
	e.start(16)
	for _, ref := range refs {
		e.waitState(ref, seald.StateCompleted)
	}
	e.halt()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if n := ts.alone.Load(); n != 0 {
		t.Errorf("%d steps saved alone by CompleteJob, want none", n)
	}
	// Each record: its store step and its notify step (which signs and completes it).
	if ts.together != 2*len(refs) {
		t.Errorf("%d completions saved together, want %d (a store and a notify step per record)", ts.together, 2*len(refs))
	}
	t.Logf("%d completions in %d transactions, the largest of %d", ts.together, ts.groups, ts.largest)
}

// TestStepsSavedTogetherWaitOutUnavailableStore: when the group's save fails because the store is down just
// after the e-mails went out, each step is saved again alone once the store is back, instead of failing and
// sending its e-mail again.
func TestStepsSavedTogetherWaitOutUnavailableStore(t *testing.T) {
	e, ts, refs := sealTogether(t, 6, 1)
	e.start(8)
	for _, ref := range refs {
		e.waitState(ref, seald.StateCompleted)
		if n := e.mailer.count(ref); n != 1 {
			t.Errorf("%s: %d e-mails sent, want 1: the failed group save made the step send again", ref, n)
		}
	}
	if ts.failGroups.Load() > 0 {
		t.Errorf("the store's outage was not met (%d group saves left to fail)", ts.failGroups.Load())
	}
	if ts.alone.Load() == 0 {
		t.Error("no step was saved alone after its group's save failed")
	}
}
