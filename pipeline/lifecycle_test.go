package pipeline_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/pipeline"
)

// lifecycleStore checks every state change the pipeline asks of the store against the lifecycle, before
// passing it on; the changes it saw are kept to show which moves were exercised.
type lifecycleStore struct {
	pipeline.Store
	t    *testing.T
	mu   sync.Mutex
	seen map[[2]seald.State]bool
}

func (s *lifecycleStore) check(op string, from, to seald.State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !seald.Allowed(from, to) {
		s.t.Errorf("%s moves a record from %s to %s, a move the lifecycle does not have", op, from, to)
	}
	s.seen[[2]seald.State{from, to}] = true
}

func (s *lifecycleStore) CompleteJob(ctx context.Context, j *seald.Job, u *seald.RecordUpdate, dropPayload bool, next ...*seald.Job) error {
	if u != nil && u.State != "" {
		s.check("CompleteJob("+j.Kind+")", u.When, u.State)
	}
	return s.Store.CompleteJob(ctx, j, u, dropPayload, next...)
}

func (s *lifecycleStore) FailJob(ctx context.Context, j *seald.Job, state seald.State, errorType, errorMessage string, ev *seald.Event, now time.Time) error {
	if state != "" {
		r, err := s.Store.Record(ctx, j.Reference)
		if err != nil {
			return err
		}
		s.check("FailJob("+j.Kind+")", r.State, state)
	}
	return s.Store.FailJob(ctx, j, state, errorType, errorMessage, ev, now)
}

func (s *lifecycleStore) CreateBatch(ctx context.Context, b *seald.Batch, entries []seald.BatchEntry, t seald.Transition, now time.Time) error {
	s.check("CreateBatch", t.From, t.To)
	return s.Store.CreateBatch(ctx, b, entries, t, now)
}

func (s *lifecycleStore) ConfirmBatch(ctx context.Context, b *seald.Batch, t seald.Transition, now time.Time) error {
	s.check("ConfirmBatch", t.From, t.To)
	return s.Store.ConfirmBatch(ctx, b, t, now)
}

func (s *lifecycleStore) FailBatch(ctx context.Context, b *seald.Batch, t seald.Transition, errorType, errorMessage string, now time.Time) error {
	s.check("FailBatch", t.From, t.To)
	return s.Store.FailBatch(ctx, b, t, errorType, errorMessage, now)
}

// Every state change the pipeline makes, on the way to COMPLETED and to FAILED, is a move of the lifecycle.
func TestPipelineMovesAreInTheLifecycle(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(e *env)
		want  seald.State
		moves [][2]seald.State
	}{
		{name: "completed", want: seald.StateCompleted, moves: [][2]seald.State{
			{seald.StatePending, seald.StateIPFSStored}, {seald.StateIPFSStored, seald.StateAnchorSubmitted},
			{seald.StateAnchorSubmitted, seald.StateAnchored}, {seald.StateAnchored, seald.StateCompleted}}},
		{name: "store failed", want: seald.StateFailed, moves: [][2]seald.State{{seald.StatePending, seald.StateFailed}},
			fault: func(e *env) { e.blobs.set("put", 1, seald.Permanent(fmt.Errorf("refused"))) }},
		{name: "mail failed", want: seald.StateFailed, moves: [][2]seald.State{{seald.StateAnchored, seald.StateFailed}},
			fault: func(e *env) { e.mailer.set("send", 1, seald.Permanent(fmt.Errorf("550 5.1.1 mailbox unavailable"))) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ls := &lifecycleStore{t: t, seen: map[[2]seald.State]bool{}}
			e.wrap = func(st pipeline.Store) pipeline.Store { ls.Store = st; return ls }
			if tc.fault != nil {
				tc.fault(e)
			}
			ref := e.seal(1).Reference
			e.start(8)
			e.waitState(ref, tc.want)
			e.halt()
			for _, m := range tc.moves {
				if !ls.seen[m] {
					t.Errorf("the pipeline never moved a record from %s to %s; moves seen: %v", m[0], m[1], ls.seen)
				}
			}
		})
	}
}
