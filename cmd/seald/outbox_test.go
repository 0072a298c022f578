package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/mail"
)

// TestServeOutboxMbox runs the real binary on a data dir whose outbox the .eml outbox of an earlier version
// wrote (mail/testdata/eml-outbox: three records' files and the send log of four sends). At start it moves
// the files into the mbox; a record sealed then is appended after them. Killed with SIGKILL, and with half a
// message appended to the mbox as a crash inside an append leaves it, it starts again, sets the torn bytes
// aside, and appends the next record's message after the whole ones: the mbox reads as exactly the messages
// sent, and the send log keeps counting the old sends with the new.
func TestServeOutboxMbox(t *testing.T) {
	bin := buildBinary(t, "")
	dir := t.TempDir()
	outbox := filepath.Join(dir, "outbox")
	if err := os.MkdirAll(outbox, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "mail", "testdata", "eml-outbox")
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
