package pipeline_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/pipeline"
)

// unavailableStore fails the save of the first n notify steps with EUNAVAILABLE, as a database that is
// restarting does.
type unavailableStore struct {
	seald.Store
	n atomic.Int32
}

func (s *unavailableStore) CompleteJob(ctx context.Context, j *seald.Job, r *seald.RecordUpdate, dropPayload bool, next ...*seald.Job) error {
	if j.Kind == seald.JobNotify && s.n.Add(-1) >= 0 {
		return seald.Errorf(seald.EUNAVAILABLE, "the database is unavailable")
	}
	return s.Store.CompleteJob(ctx, j, r, dropPayload, next...)
}

// TestPipelineWaitsOutUnavailableStore: when the store is down just after an e-mail went out, the step waits
// for it and saves the send, instead of failing the step and sending the e-mail again.
func TestPipelineWaitsOutUnavailableStore(t *testing.T) {
	e := newEnv(t)
	us := &unavailableStore{Store: e.store}
	us.n.Store(3)
	e.store = us
	ref := e.seal(1).Reference
	e.start(8)
	e.waitState(ref, seald.StateCompleted)
	if n := e.mailer.count(ref); n != 1 {
		t.Errorf("%d e-mails sent, want 1: an unavailable store made the step send again", n)
	}
	if us.n.Load() >= 0 {
		t.Errorf("the store's outage was not met (%d saves left to fail)", us.n.Load())
	}
}

// slowRetryStore takes longer to save a retry of a revocation than the revocation waits before it looks
// again, as a database under load may.
type slowRetryStore struct {
	pipeline.Store
	slow time.Duration
}

func (s *slowRetryStore) RetryJob(ctx context.Context, j *seald.Job, errorType, errorMessage string) error {
	if strings.HasPrefix(j.Kind, seald.JobRevoke+":") {
		time.Sleep(s.slow)
	}
	return s.Store.RetryJob(ctx, j, errorType, errorMessage)
}

// TestRevocationWaitingOnSlowStoreLetsBatchesGo: a revocation that waits for its token's batch is due again
// by the time its retry is saved when the store is slower than its wait; the leader still anchors the batch
// it waits for, instead of running the revocation again and again.
func TestRevocationWaitingOnSlowStoreLetsBatchesGo(t *testing.T) {
	e := newEnv(t)
	e.wrap = func(s pipeline.Store) pipeline.Store { return &slowRetryStore{Store: s, slow: 60 * time.Millisecond} }
	revokeBeforeAnchor(t, e)
}
