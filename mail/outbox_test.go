package mail_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"seald"
	"seald/mail"
)

func newOutbox(t *testing.T) *mail.Outbox {
	t.Helper()
	o, err := mail.NewOutbox(filepath.Join(t.TempDir(), "data", "outbox"), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOutboxWritesParseableMessage(t *testing.T) {
	o := newOutbox(t)
	id, err := o.Send(context.Background(), htmlMail())
	if err != nil {
		t.Fatal(err)
	}
	paths, err := o.Messages()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(o.Dir(), testRef+".eml")
	if len(paths) != 1 || paths[0] != want {
		t.Fatalf("messages %q, want [%s]", paths, want)
	}
	if p, err := o.Path(testRef); err != nil || p != want {
		t.Errorf("Path = %q, %v", p, err)
	}
	data, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	p := parse(t, data)
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
	if strings.Contains(string(data), "\n") && !strings.Contains(string(data), "\r\n") {
		t.Error("lines do not end in CRLF as RFC 5322 wants")
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
	fi, err := os.Stat(filepath.Join(o.Dir(), testRef+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("message file mode %v, want 0600", perm)
	}
}

// TestOutboxOneFilePerReference sends a record's message twice, the second time changed: the outbox keeps one
// file, with the second message, written as a new file renamed over the old one (never rewritten in place,
// where a reader or a crash could see half a message), and leaves no temporary file behind.
func TestOutboxOneFilePerReference(t *testing.T) {
	o := newOutbox(t)
	first := textMail()
	id1, err := o.Send(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(o.Dir(), testRef+".eml")
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(path) // a reader that opened the old message keeps reading the old message
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	second := textMail()
	second.Subject = "Second attempt"
	id2, err := o.Send(context.Background(), second)
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 {
		t.Errorf("Message-IDs %q and %q differ for one reference", id1, id2)
	}
	other := textMail()
	other.Reference = "D-00000000-0000-4000-8000-000000000000"
	if _, err := o.Send(context.Background(), other); err != nil {
		t.Fatal(err)
	}

	entries, err := messageEntries(o.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("outbox holds %q, want one file per reference and nothing else", names)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) {
		t.Error("the message was rewritten in place, not replaced by a rename")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := parse(t, data).msg.Header.Get("Subject"); got != "Second attempt" {
		t.Errorf("subject %q, want the second message's", got)
	}
	old := make([]byte, 1<<16)
	n, _ := held.Read(old)
	if got := parse(t, old[:n]).msg.Header.Get("Subject"); got != first.Subject {
		t.Errorf("the old file changed under its reader: subject %q", got)
	}
	paths, err := o.Messages()
	if err != nil || len(paths) != 2 {
		t.Errorf("Messages = %q, %v", paths, err)
	}
}

// TestOutboxConcurrentSends sends many messages at once (their directory fsyncs shared): every one is in
// the outbox, whole and as sent, and no temporary file is left.
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
	entries, err := messageEntries(o.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != n {
		t.Fatalf("outbox holds %d entries, want %d messages and nothing else", len(entries), n)
	}
	// Concurrent appends to the send log stay whole lines, one per send.
	sends, err := o.Sends()
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range refs {
		if sends[ref] != 1 {
			t.Errorf("%s logged %d times, want 1", ref, sends[ref])
		}
	}
	for _, ref := range refs {
		data, err := os.ReadFile(filepath.Join(o.Dir(), ref+".eml"))
		if err != nil {
			t.Fatal(err)
		}
		if got := parse(t, data).msg.Header.Get("Subject"); got != "Message "+ref {
			t.Errorf("%s: subject %q", ref, got)
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
		if paths, _ := o.Messages(); len(paths) != 0 {
			t.Errorf("wrote %q", paths)
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
		if paths, err := o.Messages(); err != nil || len(paths) != 0 {
			t.Errorf("Messages = %q, %v", paths, err)
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

// TestOutboxCountsSends: a record's message sent twice leaves one .eml file (the latest) and two lines in the
// send log, so a duplicate send is visible.
func TestOutboxCountsSends(t *testing.T) {
	o := newOutbox(t)
	for range 2 {
		if _, err := o.Send(context.Background(), htmlMail()); err != nil {
			t.Fatal(err)
		}
	}
	paths, err := o.Messages()
	if err != nil || len(paths) != 1 {
		t.Fatalf("messages %q, %v; want one file", paths, err)
	}
	n, err := o.Sends()
	if err != nil {
		t.Fatal(err)
	}
	if n[testRef] != 2 || len(n) != 1 {
		t.Errorf("sends %v, want 2 of %s", n, testRef)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Send(context.Background(), htmlMail()); err == nil {
		t.Error("Send after Close succeeded")
	}
}

// messageEntries lists the outbox directory without its send log.
func messageEntries(dir string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	return slices.DeleteFunc(entries, func(e os.DirEntry) bool { return e.Name() == mail.SentLog }), err
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
	data, err := os.ReadFile(filepath.Join(o.Dir(), testRef+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	p := parse(t, data)
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
