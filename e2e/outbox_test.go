package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/mail"
	"seald.dev/seald/sqlite"
)

// TestServeOutboxMbox runs the real binary on a data dir whose outbox the .eml outbox of an earlier version
// wrote (mail/testdata/eml-outbox: three records' files and the send log of four sends). At start it moves
// the files into the mbox; a record sealed then is appended after them. Killed with SIGKILL, and with half a
// message appended to the mbox as a crash inside an append leaves it, it starts again, sets the torn bytes
// aside, and appends the next record's message after the whole ones: the mbox reads as exactly the messages
// sent, and the send log keeps counting the old sends with the new.
func TestServeOutboxMbox(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	dir := t.TempDir()
	outbox := filepath.Join(dir, "outbox")
	if err := os.MkdirAll(outbox, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "mail", "testdata", "eml-outbox")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var emls [][]byte
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), ".eml") {
			emls = append(emls, b)
		}
		if err := os.WriteFile(filepath.Join(outbox, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	p := startProcess(t, bin, dir, nil)
	msgs := outboxMessages(t, dir)
	if len(msgs) != len(emls) {
		t.Fatalf("after the start the mbox holds %d messages, want the %d .eml files", len(msgs), len(emls))
	}
	for _, m := range msgs {
		found := false
		for _, e := range emls {
			found = found || bytes.Equal(m.Raw, e)
		}
		if !found {
			t.Errorf("message %s of the mbox is none of the .eml files", m.MessageID)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(outbox, "*.eml")); len(left) != 0 {
		t.Errorf(".eml files left after the start: %q", left)
	}

	seal := func(in *instance) string {
		t.Helper()
		r := in.post(authPath, map[string]any{"data": map[string]any{"n": time.Now().String()}, "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		ref := str(r.Body, "data.reference")
		in.waitState(ref, "COMPLETED", time.Minute)
		return ref
	}
	ref1 := seal(p.in)
	p.kill()

	mbox := filepath.Join(outbox, mail.MboxName)
	whole, err := os.ReadFile(mbox)
	if err != nil {
		t.Fatal(err)
	}
	torn := []byte("From noreply@seald.localhost Thu Nov 26 00:04:00 2026\nDate: Thu, 26 Nov 2026 00:04:00 +0000\nMIME-Vers")
	if err := os.WriteFile(mbox, append(whole, torn...), 0o600); err != nil {
		t.Fatal(err)
	}

	p = startProcess(t, bin, dir, nil)
	if kept, _ := os.ReadFile(filepath.Join(outbox, mail.TornName)); !bytes.Equal(kept, torn) {
		t.Errorf("outbox.mbox.torn holds %q, want the torn message", kept)
	}
	ref2 := seal(p.in)
	p.terminate(t)

	data, err := os.ReadFile(mbox)
	if err != nil {
		t.Fatal(err)
	}
	all, err := mail.ReadMbox(data) // the whole file, as a mail tool reads it
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, m := range all[len(emls):] {
		refs = append(refs, m.Reference)
	}
	if len(all) != len(emls)+2 || strings.Join(refs, " ") != ref1+" "+ref2 {
		t.Errorf("the mbox holds %d messages, the new ones of %q; want the %d imported, then %s and %s", len(all), refs, len(emls), ref1, ref2)
	}
	sends, err := mail.Sends(outbox)
	if err != nil {
		t.Fatal(err)
	}
	if sends[ref1] != 1 || sends[ref2] != 1 || sends["D-11111111-0000-4000-8000-000000000001"] != 2 || len(sends) != 5 {
		t.Errorf("sends %v, want the old log's four and one of each new record", sends)
	}
}

// TestKill9OutboxOnce seals a few hundred records with e-mail through the real binary (the crashtest build,
// 32 job runners, 8 clients) and stops it twice while their messages are being written: once with SIGKILL
// when a third of the round's messages are in the outbox, once at the crash point after-mail-send (the 40th
// send: a message durable in the outbox, its record's save not made), while others are in flight at other
// steps. Before each restart the test opens the stopped store and counts the records whose message is in
// the outbox but whose send was not saved: the pipeline sends those again. After the last restart every
// record is COMPLETED and outbox.mbox, read whole as a mail tool reads it, holds exactly one message per
// record, as sent.log counts them.
func TestKill9OutboxOnce(t *testing.T) {
	t.Parallel()
	const clients, perRound = 8, 150
	bin := buildBinary(t, "crashtest")
	dir := t.TempDir()
	outbox := filepath.Join(dir, "outbox")
	var all []sealResult
	var seq atomic.Int64
	inFlight := 0
	for round, env := range [][]string{
		nil,
		{"SEALD_CRASH_AT=" + seald.CrashAfterMailSend, "SEALD_CRASH_AFTER=40"},
	} {
		before := len(outboxMessages(t, dir))
		p := startProcess(t, bin, dir, env)
		var (
			mu  sync.Mutex
			got []sealResult
			wg  sync.WaitGroup
		)
		url, sub, api := p.in.URL, p.in.Sub, p.in.API
		for range clients {
			wg.Go(func() {
				for n := seq.Add(1); n <= int64((round+1)*perRound); n = seq.Add(1) {
					r := trySeal(url, sub, api, map[string]any{"outbox": round, "n": n}, nil)
					mu.Lock()
					got = append(got, r)
					mu.Unlock()
					if r.Status == 0 {
						return // the server is gone
					}
				}
			})
		}
		if env == nil {
			for deadline := time.Now().Add(time.Minute); len(outboxMessages(t, dir)) < before+perRound/3; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("round %d: the outbox never reached %d messages\n%s", round, before+perRound/3, p.in.logText())
				}
			}
			p.kill()
		} else if code := p.wait(t, time.Minute); code != 137 {
			t.Fatalf("round %d: seald exited with %d, want 137 from the crash point\n%s", round, code, p.in.logText())
		}
		wg.Wait()
		seq.Store(int64((round + 1) * perRound))
		all = append(all, got...)

		// Sent, not saved: the records whose message is in the outbox and whose Message-ID the store lacks.
		st, err := sqlite.Open(t.Context(), filepath.Join(dir, "seald.db"))
		if err != nil {
			t.Fatal(err)
		}
		unsaved := 0
		for _, m := range outboxMessages(t, dir) {
			r, err := st.Record(t.Context(), m.Reference)
			if err != nil {
				t.Fatal(err)
			}
			if r.MessageID == "" {
				unsaved++
			}
		}
		st.Close()
		if env != nil && unsaved == 0 {
			t.Errorf("round %d: no message was sent and not saved at the crash point after-mail-send", round)
		}
		inFlight += unsaved
		t.Logf("round %d: %d requests, %d messages in the outbox at the stop, %d of them sent and not saved", round, len(got), len(outboxMessages(t, dir)), unsaved)
	}

	p := startProcess(t, bin, dir, nil)
	var refs []string
	for _, r := range all {
		if r.Status == 201 {
			refs = append(refs, r.Ref)
			continue
		}
		code, env := tryGet(p.in.URL, p.in.Sub, p.in.API, verifyBase+"hash?hash="+r.Hash)
		switch code {
		case 200:
			refs = append(refs, str(env, "data.details.reference"))
		case 404:
		default:
			t.Fatalf("verify by hash: %d %v", code, env)
		}
	}
	completeAll(t, p.in, refs, 2*time.Minute)
	p.terminate(t)

	whole, err := mail.ReadMbox([]byte(readFile(t, filepath.Join(outbox, mail.MboxName))))
	if err != nil {
		t.Fatal(err)
	}
	sends, err := mail.Sends(outbox)
	if err != nil {
		t.Fatal(err)
	}
	perRef := map[string]int{}
	for _, m := range whole {
		perRef[m.Reference]++
	}
	for _, ref := range refs {
		if perRef[ref] != 1 || sends[ref] != 1 {
			t.Errorf("%s: %d messages in outbox.mbox, %d sends logged; want exactly 1", ref, perRef[ref], sends[ref])
		}
	}
	if len(whole) != len(refs) || len(sends) != len(refs) {
		t.Errorf("outbox.mbox holds %d messages and sent.log %d references for %d records", len(whole), len(sends), len(refs))
	}
	t.Logf("%d records, %d messages in outbox.mbox, %d sent and not saved at a stop (each sent again and recognised)", len(refs), len(whole), inFlight)
}
