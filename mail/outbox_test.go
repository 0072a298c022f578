package mail_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/mail"
)

func newOutbox(t *testing.T) *mail.Outbox {
	t.Helper()
	o, err := mail.NewOutbox(filepath.Join(t.TempDir(), "data", "outbox"), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o
}

// messages returns the outbox's messages, failing the test on an error.
func messages(t *testing.T, o *mail.Outbox) []mail.Message {
	t.Helper()
	msgs, err := o.Messages()
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func TestOutboxWritesParseableMessage(t *testing.T) {
	o := newOutbox(t)
	id, err := o.Send(context.Background(), htmlMail())
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(o.Dir(), "outbox.mbox"); o.Path() != want {
		t.Errorf("Path = %q, want %q", o.Path(), want)
	}
	raw, err := os.ReadFile(o.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, []byte("From noreply@seald.example.com ")) || !bytes.HasSuffix(raw, []byte("\n\n")) {
		t.Errorf("the mbox does not start with a separator line naming the sender and end with an empty line:\n%s", raw)
	}
	msgs := messages(t, o)
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.Reference != testRef || m.MessageID != id || m.Sender != "noreply@seald.example.com" || m.Date.IsZero() {
		t.Errorf("message %s (%s) from %s at %v", m.Reference, m.MessageID, m.Sender, m.Date)
	}
	p := parse(t, m.Raw)
	h := p.msg.Header
	if h.Get("Message-Id") != id || id != "<"+testRef+"@seald.seald.example.com>" {
		t.Errorf("Message-ID header %q, returned %q", h.Get("Message-Id"), id)
	}
	if subj := decodedHeader(t, h, "Subject"); subj != testSubject {
		t.Errorf("subject %q", subj)
	}
	if to, err := h.AddressList("To"); err != nil || len(to) != 2 || to[0].Name != "Zoë Müller" {
		t.Errorf("To %v, %v", to, err)
	}
	if _, err := h.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	if !strings.Contains(p.parts["text/plain"], "Verify: "+testLink) ||
		!strings.Contains(p.parts["text/html"], testHash) {
		t.Errorf("parts %q", p.parts)
	}
	if bytes.Contains(bytes.ReplaceAll(m.Raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("lines of the message read back do not end in CRLF as RFC 5322 wants")
	}
	if bytes.Contains(raw, []byte("\r")) {
		t.Error("the mbox holds CR: its lines should end in LF, as mail tools on Unix expect")
	}
}

func TestOutboxPermissions(t *testing.T) {
	o := newOutbox(t)
	if _, err := o.Send(context.Background(), textMail()); err != nil {
		t.Fatal(err)
	}
	di, err := os.Stat(o.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if perm := di.Mode().Perm(); perm != 0o700 {
		t.Errorf("outbox directory mode %v, want 0700", perm)
	}
	for _, name := range []string{mail.MboxName, mail.SentLog} {
		fi, err := os.Stat(filepath.Join(o.Dir(), name))
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s mode %v, want 0600", name, perm)
		}
	}
}

// TestOutboxSendsOnce sends a record's message, then again (changed, as a resend after a crash would be
// rendered anew), and another record's: the repeat writes nothing and returns the first Message-ID, the
// mbox holds the first message and the other one, written by appending (the bytes of the first message
// never change), sent.log counts one send each, and the directory holds nothing else. Opened again (a
// restart), with another sender (another Message-ID host), the outbox still recognises the repeat.
func TestOutboxSendsOnce(t *testing.T) {
	ctx := context.Background()
	o := newOutbox(t)
	first := textMail()
	id1, err := o.Send(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(o.Path())
	if err != nil {
		t.Fatal(err)
	}
	second := textMail()
	second.Subject = "Second attempt"
	id2, err := o.Send(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 {
		t.Errorf("Message-IDs %q and %q differ for one reference", id1, id2)
	}
	other := textMail()
	other.Reference = "D-00000000-0000-4000-8000-000000000000"
	if _, err := o.Send(ctx, other); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(o.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, before) {
		t.Error("the mbox was rewritten, not appended to")
	}
	want := []string{testRef + " " + first.Subject, other.Reference + " " + other.Subject}
	check := func(when string) {
		t.Helper()
		var got []string
		for _, m := range messages(t, o) {
			got = append(got, m.Reference+" "+parse(t, m.Raw).msg.Header.Get("Subject"))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: messages %q, want %q", when, got, want)
		}
		sends, err := o.Sends()
		if err != nil {
			t.Fatal(err)
		}
		if sends[testRef] != 1 || sends[other.Reference] != 1 || len(sends) != 2 {
			t.Errorf("%s: sends %v, want 1 of %s and 1 of %s", when, sends, testRef, other.Reference)
		}
	}
	check("after the repeat")
	entries, err := os.ReadDir(o.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{mail.MboxName, mail.SentLog}) {
		t.Errorf("the outbox directory holds %q", names)
	}

	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	o, err = mail.NewOutbox(o.Dir(), "Other <noreply@other.example.org>")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	id3, err := o.Send(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	if id3 != id1 {
		t.Errorf("after a restart the repeat returned %q, want the first message's %q", id3, id1)
	}
	check("after a restart")
}

// TestOutboxSendsOnceInOneGroup sends one record's message many times at once, with other records' (so
// that the repeats meet in one append): each record's message is written once, every Send of it returns
// its Message-ID.
func TestOutboxSendsOnceInOneGroup(t *testing.T) {
	o := newOutbox(t)
	const refs, repeats = 8, 8
	var wg sync.WaitGroup
	ids := make([]string, refs*repeats)
	errs := make([]error, refs*repeats)
	for i := range refs * repeats {
		wg.Go(func() {
			m := textMail()
			m.Reference, m.Subject = fmt.Sprintf("D-%08d-0000-4000-8000-000000000000", i%refs), fmt.Sprintf("attempt %d", i/refs)
			ids[i], errs[i] = o.Send(context.Background(), m)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		if want := fmt.Sprintf("<D-%08d-0000-4000-8000-000000000000@", i%refs); !strings.HasPrefix(ids[i], want) {
			t.Errorf("send %d returned %q, want %s...", i, ids[i], want)
		}
	}
	perRef := map[string]int{}
	for _, m := range messages(t, o) {
		perRef[m.Reference]++
	}
	sends, err := o.Sends()
	if err != nil {
		t.Fatal(err)
	}
	for i := range refs {
		ref := fmt.Sprintf("D-%08d-0000-4000-8000-000000000000", i)
		if perRef[ref] != 1 || sends[ref] != 1 {
			t.Errorf("%s: %d messages, %d sends logged; want 1", ref, perRef[ref], sends[ref])
		}
	}
}

// TestOutboxConcurrentSends sends many messages at once (appended and synced in groups): every one is in
// the mbox, whole and as sent, and counted once.
func TestOutboxConcurrentSends(t *testing.T) {
	o := newOutbox(t)
	const n = 64
	var wg sync.WaitGroup
	errs := make([]error, n)
	refs := make([]string, n)
	for i := range n {
		refs[i] = fmt.Sprintf("D-%08d-0000-4000-8000-000000000000", i)
		wg.Go(func() {
			m := textMail()
			m.Reference, m.Subject = refs[i], "Message "+refs[i]
			_, errs[i] = o.Send(context.Background(), m)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	msgs := messages(t, o)
	if len(msgs) != n {
		t.Fatalf("the mbox holds %d messages, want %d", len(msgs), n)
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		if got := parse(t, m.Raw).msg.Header.Get("Subject"); got != "Message "+m.Reference {
			t.Errorf("%s: subject %q", m.Reference, got)
		}
		seen[m.Reference] = true
	}
	sends, err := o.Sends()
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range refs {
		if sends[ref] != 1 || !seen[ref] {
			t.Errorf("%s logged %d times, in the mbox: %v; want once", ref, sends[ref], seen[ref])
		}
	}
}

func TestOutboxFaults(t *testing.T) {
	t.Run("invalid message writes nothing", func(t *testing.T) {
		o := newOutbox(t)
		bad := textMail()
		bad.Subject = "x\r\nBcc: victim@example.com"
		_, err := o.Send(context.Background(), bad)
		if seald.ErrorCode(err) != seald.EINVALID || !seald.IsPermanent(err) {
			t.Fatalf("want a permanent EINVALID error, got %v", err)
		}
		if msgs := messages(t, o); len(msgs) != 0 {
			t.Errorf("wrote %d messages", len(msgs))
		}
	})
	t.Run("unwritable directory is transient", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "not-a-dir")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		o, err := mail.NewOutbox(filepath.Join(file, "outbox"), testFrom)
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Recover(); err == nil {
			t.Error("Recover succeeded in a directory under a file")
		}
		_, err = o.Send(context.Background(), textMail())
		if err == nil || seald.IsPermanent(err) {
			t.Fatalf("want a transient error, got %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		o := newOutbox(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := o.Send(ctx, textMail()); err == nil {
			t.Fatal("sent with a cancelled context")
		}
	})
	t.Run("empty outbox", func(t *testing.T) {
		o := newOutbox(t)
		if msgs, err := o.Messages(); err != nil || len(msgs) != 0 {
			t.Errorf("Messages = %d, %v", len(msgs), err)
		}
		if sends, err := o.Sends(); err != nil || len(sends) != 0 {
			t.Errorf("Sends = %v, %v", sends, err)
		}
	})
	t.Run("closed", func(t *testing.T) {
		o := newOutbox(t)
		if _, err := o.Send(context.Background(), htmlMail()); err != nil {
			t.Fatal(err)
		}
		if err := o.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := o.Send(context.Background(), htmlMail()); err == nil {
			t.Error("Send after Close succeeded")
		}
	})
	t.Run("configuration", func(t *testing.T) {
		if _, err := mail.NewOutbox("", testFrom); seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("no directory: %v", err)
		}
		if _, err := mail.NewOutbox(t.TempDir(), "nobody"); seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("bad sender: %v", err)
		}
	})
}

// An HTML body is sanitized before it is sent (no script, handler or javascript: link survives), and every
// message names the business and project that sealed the record.
func TestMessageSanitizedAndNamesSealer(t *testing.T) {
	o := newOutbox(t)
	m := htmlMail()
	m.Body = `<p onclick="steal()">Hi</p><script>alert(1)</script><a href="javascript:alert(2)">x</a><img src=x onerror=alert(3)>`
	m.Business, m.Project = "Acme & Sons", "Diplomas"
	if _, err := o.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	msgs := messages(t, o)
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	p := parse(t, msgs[0].Raw)
	h := p.parts["text/html"]
	for _, bad := range []string{"<script", "onclick", "javascript:", "onerror"} {
		if strings.Contains(h, bad) {
			t.Errorf("the HTML part keeps %q:\n%s", bad, h)
		}
	}
	if !strings.Contains(h, "Sealed by: Acme &amp; Sons (project Diplomas)") || !strings.Contains(p.parts["text/plain"], "Sealed by: Acme & Sons (project Diplomas)") {
		t.Errorf("the message does not name the sealer:\n%s\n%s", p.parts["text/plain"], h)
	}
}
