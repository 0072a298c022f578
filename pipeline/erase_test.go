package pipeline_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
)

// The erase job deletes the stored copy, takes the record's messages out of a mailer that keeps them
// (retrying when that fails), and only then ends with a record.erased event for the project's webhooks.
func TestPipelineEraseRemovesMailAndSendsEvent(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.svc.Webhooks = e.store.(seald.Webhooks)
	hook, _, err := e.svc.CreateWebhook(ctx, e.caller, seald.WebhookRequest{URL: "https://hooks.example.com/seald",
		Events: []string{string(seald.EventRecordErased)}})
	if err != nil {
		t.Fatal(err)
	}
	r := e.seal(1)
	kept := e.seal(2)
	e.start(2)
	done := e.waitState(r.Reference, seald.StateCompleted)
	e.waitState(kept.Reference, seald.StateCompleted)
	e.mailer.set("erase", 2, errors.New("outbox: disk full"))
	if _, erased, err := e.svc.Erase(ctx, e.caller, r.Reference, "asked"); err != nil || !erased {
		t.Fatalf("Erase = %v, %v", erased, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	var ds []*seald.Delivery
	for len(ds) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no record.erased delivery; mail erased %d times", e.mailer.erasedOf(r.Reference))
		}
		time.Sleep(5 * time.Millisecond)
		if ds, err = e.store.(seald.Webhooks).Deliveries(ctx, hook.ID, 10); err != nil {
			t.Fatal(err)
		}
	}
	if len(ds) != 1 || ds[0].EventType != seald.EventRecordErased || ds[0].Reference != r.Reference {
		t.Errorf("deliveries %+v, want one record.erased of %s", ds, r.Reference)
	}
	if n := e.mailer.erasedOf(r.Reference); n != 1 {
		t.Errorf("EraseMail succeeded %d times for the erased record, want 1 (after two failures)", n)
	}
	if n := e.mailer.erasedOf(kept.Reference); n != 0 {
		t.Errorf("EraseMail called for the record not erased")
	}
	if _, err := e.blobs.Get(ctx, done.CID); seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Errorf("the stored copy is still there: %v", err)
	}
	got, err := e.store.Record(ctx, r.Reference)
	if err != nil || got.Mail != nil {
		t.Errorf("the erased record's mail request: %+v, %v; want none", got.Mail, err)
	}
}

// A crash test that stops at CrashAfterEraseSave must find the copy still stored, even when a runner takes
// the erase job before the service passes that point after its commit: the job passes it too, before it
// deletes the copy (a runner that won that race once made e2e TestEraseKill9 find the copy gone).
func TestPipelineErasePassesTheEraseSavePointFirst(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	var cid atomic.Pointer[string]
	var present, absent atomic.Int32 // passes of the point with the copy stored, and without it
	e.crash = func(point string) {
		if point != seald.CrashAfterEraseSave {
			return
		}
		if _, err := e.blobs.Get(context.Background(), *cid.Load()); err == nil {
			present.Add(1)
		} else {
			absent.Add(1)
		}
	}
	r := e.seal(1)
	e.start(1)
	done := e.waitState(r.Reference, seald.StateCompleted)
	cid.Store(&done.CID)
	if _, erased, err := e.svc.Erase(ctx, e.caller, r.Reference, "asked"); err != nil || !erased {
		t.Fatalf("Erase = %v, %v", erased, err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := e.blobs.Get(ctx, done.CID); seald.ErrorCode(err) == seald.ENOTFOUND {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the erase job did not delete the copy")
		}
	}
	if present.Load() == 0 || absent.Load() != 0 {
		t.Errorf("the erase job passed %s %d times with the copy stored and %d without, want at least once and never",
			seald.CrashAfterEraseSave, present.Load(), absent.Load())
	}
}

// An erasure while the record's message is being sent: the erase job takes the record's messages out
// before the outbox has kept the new one, so the notify step must take it out before it ends.
func TestPipelineEraseDuringSendTakesMessageOut(t *testing.T) {
	e := newEnv(t)
	r := e.seal(1)
	raced := make(chan bool, 1)
	var once sync.Once
	e.mailer.beforeKeep = func(m *seald.Mail) {
		if m.Reference == r.Reference {
			once.Do(func() { erase(e, r, raced) })
		}
	}
	e.start(1)
	e.waitState(r.Reference, seald.StateCompleted)
	if !<-raced {
		t.Fatal("the erase job never ran while the message was being sent")
	}
	if e.mailer.keeps(r.Reference) {
		t.Error("the outbox still keeps the erased record's message")
	}
}

// erase erases r, waits for the erase job to have taken its messages out, and tells whether it did.
func erase(e *env, r *seald.Record, raced chan<- bool) {
	if _, erased, err := e.svc.Erase(e.t.Context(), e.caller, r.Reference, "asked"); err != nil || !erased {
		e.t.Errorf("Erase = %v, %v", erased, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for e.mailer.erasedOf(r.Reference) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	raced <- e.mailer.erasedOf(r.Reference) > 0
}
