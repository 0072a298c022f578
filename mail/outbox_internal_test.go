package mail

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
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

func openOutbox(t *testing.T, dir string) *Outbox {
	t.Helper()
	o, err := NewOutbox(dir, "Seald <noreply@seald.example.com>")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Recover(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o
}

func mailFor(ref string) *seald.Mail {
	return &seald.Mail{Reference: ref, To: []string{"a@example.com"}, Subject: "Sealed " + ref, Body: "Hello"}
}

func refN(i int) string { return fmt.Sprintf("D-%08d-0000-4000-8000-000000000000", i) }

// Sends that arrive while an append syncs are all written by the next append, with one sync of the files
// between them, not one each; none returns before the sync that covers its message has ended.
func TestOutboxSharesSyncs(t *testing.T) {
	o := openOutbox(t, t.TempDir())
	var calls atomic.Int32
	release := make(chan struct{})
	o.syncFiles = func(files ...*os.File) error {
		if calls.Add(1) == 1 {
			<-release // hold the first sync until every other Send is queued
		}
		return syncFiles(files...)
	}
	const n = 20
	var wg sync.WaitGroup
	var done atomic.Int32
	errs := make([]error, n+1)
	send := func(i int) {
		_, errs[i] = o.Send(context.Background(), mailFor(refN(i)))
		done.Add(1)
	}
	wg.Go(func() { send(0) })
	waitFor(t, "the first sync runs", func() bool { return calls.Load() == 1 })
	for i := 1; i <= n; i++ {
		wg.Go(func() { send(i) })
	}
	waitFor(t, "every other Send is queued", func() bool { return o.g.Queued() == n })
	if d := done.Load(); d != 0 {
		t.Fatalf("%d Sends returned while the first sync was still running", d)
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("send %d: %v", i, err)
		}
	}
	if got := calls.Load(); got != 2 {
		t.Errorf("%d syncs for %d messages in two bursts, want 2", got, n+1)
	}
	msgs, err := o.Messages()
	if err != nil || len(msgs) != n+1 {
		t.Errorf("%d messages in the mbox (%v), want %d", len(msgs), err, n+1)
	}
}

// A failed sync fails every Send of its group, and cuts the mbox and the log back so that the failed
// messages are neither kept nor counted; later Sends succeed. When even the cut fails, the outbox refuses
// Sends until it is opened again (a restart), which repairs it.
func TestOutboxSyncFailure(t *testing.T) {
	dir := t.TempDir()
	o := openOutbox(t, dir)
	if _, err := o.Send(context.Background(), mailFor(refN(1))); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("EIO")
	var fail atomic.Int32 // syncs left to fail
	o.syncFiles = func(files ...*os.File) error {
		if fail.Add(-1) >= 0 {
			return boom
		}
		return syncFiles(files...)
	}
	fail.Store(1)
	_, err := o.Send(context.Background(), mailFor(refN(2)))
	if !errors.Is(err, boom) || seald.IsPermanent(err) {
		t.Fatalf("Send with a failing sync: %v, want the transient sync error", err)
	}
	check := func(want ...string) {
		t.Helper()
		msgs, err := Messages(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range msgs {
			got = append(got, m.Reference)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("messages %v, want %v", got, want)
		}
		sends, err := Sends(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(sends) != len(want) {
			t.Errorf("sends %v, want one of each of %v", sends, want)
		}
		for _, ref := range want {
			if sends[ref] != 1 {
				t.Errorf("sends %v, want one of each of %v", sends, want)
			}
		}
	}
	check(refN(1))
	if _, err := o.Send(context.Background(), mailFor(refN(3))); err != nil {
		t.Fatalf("Send after the sync recovered: %v", err)
	}
	check(refN(1), refN(3))

	fail.Store(2) // the sync of the append and that of its undoing
	if _, err := o.Send(context.Background(), mailFor(refN(4))); !errors.Is(err, boom) {
		t.Fatalf("Send: %v, want the sync error", err)
	}
	if _, err := o.Send(context.Background(), mailFor(refN(5))); err == nil {
		t.Fatal("Send succeeded on an outbox whose failed append could not be undone")
	}
	_ = o.Close()
	o2 := openOutbox(t, dir)
	if _, err := o2.Send(context.Background(), mailFor(refN(6))); err != nil {
		t.Fatalf("Send after a restart: %v", err)
	}
	check(refN(1), refN(3), refN(6))
}
