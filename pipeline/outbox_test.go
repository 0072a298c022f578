package pipeline_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/mail"
)

// failingSaveStore fails the save of the first n notify steps with an error the step retries, so that the
// e-mail, already sent, is sent again.
type failingSaveStore struct {
	seald.Store
	n atomic.Int32
}

func (s *failingSaveStore) CompleteJob(ctx context.Context, j *seald.Job, r *seald.RecordUpdate, dropPayload bool, next ...*seald.Job) error {
	if j.Kind == seald.JobNotify && s.n.Add(-1) >= 0 {
		return errors.New("disk I/O error")
	}
	return s.Store.CompleteJob(ctx, j, r, dropPayload, next...)
}

// TestPipelineOutboxSendsOnce runs the notify step on the real outbox and makes it send an e-mail again: a
// crash between the send and its save (the process restarted, the outbox opened anew on its directory), and
// saves that fail after the send. The pipeline sends again each time (at least once); the outbox recognises
// the repeat, so each record's message is in the mbox exactly once, and the record keeps its Message-ID.
func TestPipelineOutboxSendsOnce(t *testing.T) {
	const records = 3
	openOutbox := func(t *testing.T, dir string) *mail.Outbox {
		t.Helper()
		o, err := mail.NewOutbox(dir, "Seald <noreply@seald.example.com>")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Close() })
		return o
	}
	check := func(t *testing.T, e *env, dir string, refs []string) {
		t.Helper()
		msgs, err := mail.Messages(dir)
		if err != nil {
			t.Fatal(err)
		}
		perRef := map[string]int{}
		for _, m := range msgs {
			perRef[m.Reference]++
		}
		for _, ref := range refs {
			r := e.waitState(ref, seald.StateCompleted)
			if perRef[ref] != 1 {
				t.Errorf("%s: %d messages in the outbox, want exactly 1", ref, perRef[ref])
			}
			if want := "<" + ref + "@seald.seald.example.com>"; r.MessageID != want {
				t.Errorf("%s: Message-ID %q, want %q", ref, r.MessageID, want)
			}
		}
		if len(msgs) != len(refs) {
			t.Errorf("%d messages for %d records", len(msgs), len(refs))
		}
	}

	t.Run("crash after the send", func(t *testing.T) {
		e := newEnv(t)
		dir := filepath.Join(t.TempDir(), "outbox")
		e.outbox = openOutbox(t, dir)
		var hit *atomic.Bool
		e.crash, hit = crashOnce(seald.CrashAfterMailSend)
		var refs []string
		for i := range records {
			refs = append(refs, e.seal(i).Reference)
		}
		e.start(8)
		for deadline := time.Now().Add(10 * time.Second); !hit.Load(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the crash point was never reached")
			}
		}
		e.halt()
		e.outbox = openOutbox(t, dir) // the restarted process's outbox
		e.restart(8)
		for _, ref := range refs {
			e.waitState(ref, seald.StateCompleted)
		}
		e.halt()
		check(t, e, dir, refs)
	})

	t.Run("saves that fail after the send", func(t *testing.T) {
		e := newEnv(t)
		dir := filepath.Join(t.TempDir(), "outbox")
		e.outbox = openOutbox(t, dir)
		fs := &failingSaveStore{Store: e.store}
		fs.n.Store(2)
		e.store = fs
		var refs []string
		for i := range records {
			refs = append(refs, e.seal(i).Reference)
		}
		e.start(8)
		for _, ref := range refs {
			e.waitState(ref, seald.StateCompleted)
		}
		e.halt()
		if fs.n.Load() >= 0 {
			t.Fatalf("the failing saves were not met (%d left)", fs.n.Load())
		}
		check(t, e, dir, refs)
	})
}
