package mail_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/mail"
)

// markedMail is a plain message of reference ref whose recipient, subject and body carry the marker m.
func markedMail(ref, m string) *seald.Mail {
	return &seald.Mail{Reference: ref, To: []string{strings.ToLower(m) + "@example.com"}, Subject: "Subject " + m,
		Body: "Body " + m, Hash: testHash, VerificationLink: testLink}
}

// fillOutbox sends n messages (one per record; the third twice, as after a crash before its save, which
// the outbox recognises and does not write again) and returns their references and markers.
func fillOutbox(t *testing.T, o *mail.Outbox, n int) (refs, marks []string) {
	t.Helper()
	for i := range n {
		ref, m := fmt.Sprintf("D-erase-%02d", i), fmt.Sprintf("ZQXMARK%02d", i)
		refs, marks = append(refs, ref), append(marks, m)
		for range 1 + btoi(i == 2) {
			if _, err := o.Send(context.Background(), markedMail(ref, m)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return refs, marks
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// dirHolds lists the files of dir whose bytes contain s.
func dirHolds(t *testing.T, dir, s string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) || bytes.Contains(b, []byte(strings.ToLower(s))) {
			out = append(out, e.Name())
		}
	}
	return out
}

// byRef maps the outbox's messages by reference, each reference's messages in order.
func byRef(t *testing.T, o *mail.Outbox) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, m := range messages(t, o) {
		out[m.Reference] = append(out[m.Reference], string(m.Raw))
	}
	return out
}

// EraseMail takes a record's message out of the mbox and leaves a line saying it was sent and erased; every
// other message is intact, before and after a restart, sent.log still counts the sends, a resend of the
// erased record's message writes nothing (the erased line still says it was sent), and the outbox goes on
// appending.
func TestOutboxEraseMail(t *testing.T) {
	ctx := context.Background()
	o := newOutbox(t)
	refs, marks := fillOutbox(t, o, 6)
	before := byRef(t, o)
	sendsBefore, err := o.Sends()
	if err != nil {
		t.Fatal(err)
	}
	if len(dirHolds(t, o.Dir(), marks[2])) == 0 {
		t.Fatal("no file holds the marker before the erasure: the search cannot see it")
	}
	if err := o.EraseMail(ctx, refs[2]); err != nil {
		t.Fatal(err)
	}
	check := func(when string, o *mail.Outbox) {
		t.Helper()
		if got := dirHolds(t, o.Dir(), marks[2]); len(got) > 0 {
			t.Errorf("%s: %v still hold the erased message's marker", when, got)
		}
		after := byRef(t, o)
		for _, ref := range refs {
			if ref == refs[2] {
				if len(after[ref]) != 0 {
					t.Errorf("%s: %d messages of the erased record left", when, len(after[ref]))
				}
				continue
			}
			if len(after[ref]) != 1 || after[ref][0] != before[ref][0] {
				t.Errorf("%s: the message of %s changed or went", when, ref)
			}
		}
		sends, err := o.Sends()
		if err != nil {
			t.Fatal(err)
		}
		delete(sends, "D-after") // sent after the erasure
		if fmt.Sprint(sends) != fmt.Sprint(sendsBefore) {
			t.Errorf("%s: sends %v, want %v as before the erasure", when, sends, sendsBefore)
		}
		log, err := os.ReadFile(filepath.Join(o.Dir(), mail.SentLog))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(log), " "+refs[2]+" <"+refs[2]+"@"); n != 1 || strings.Count(string(log), " erased ") != 1 {
			t.Errorf("%s: sent.log should keep one line of %s marked erased:\n%s", when, refs[2], log)
		}
	}
	check("after EraseMail", o)
	if err := o.EraseMail(ctx, refs[2]); err != nil {
		t.Errorf("a second EraseMail: %v", err)
	}
	if id, err := o.Send(ctx, markedMail(refs[2], marks[2])); err != nil || !strings.HasPrefix(id, "<"+refs[2]+"@") {
		t.Errorf("a resend of the erased record's message: %q, %v", id, err)
	}
	check("after a resend of the erased message", o)
	if _, err := o.Send(ctx, markedMail("D-after", "ZQXAFTER")); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	o2, err := mail.NewOutbox(o.Dir(), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	defer o2.Close()
	if err := o2.Recover(); err != nil {
		t.Fatal(err)
	}
	check("after a restart", o2)
	if got := byRef(t, o2)["D-after"]; len(got) != 1 {
		t.Errorf("the message sent after the erasure: %d copies after a restart, want 1", len(got))
	}
	if _, err := os.Stat(filepath.Join(o.Dir(), mail.TornName)); err == nil {
		t.Error("the restart set bytes aside in outbox.mbox.torn: the rewritten files do not match")
	}
}

// copyDir copies the files of src into a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "outbox")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A crash in the middle of the rewrite leaves the outbox as it was (before the commit mark) or as the
// erasure makes it (after), never a mbox and a sent.log that do not match.
func TestOutboxEraseCrash(t *testing.T) {
	ctx := context.Background()
	o := newOutbox(t)
	refs, marks := fillOutbox(t, o, 4)
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	old := copyDir(t, o.Dir())
	done := copyDir(t, o.Dir())
	e, err := mail.NewOutbox(done, testFrom)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.EraseMail(ctx, refs[1]); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	files := []string{mail.MboxName, mail.SentLog}
	// state builds a crashed directory: the old files, the new ones beside them as .erasing, the commit
	// mark when decided, and the first n files already renamed.
	state := func(decided bool, renamed int) string {
		dir := copyDir(t, old)
		for i, f := range files {
			dst := filepath.Join(dir, f+".erasing")
			if i < renamed {
				dst = filepath.Join(dir, f)
			}
			if err := os.WriteFile(dst, []byte(readFile(t, filepath.Join(done, f))), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if decided {
			if err := os.WriteFile(filepath.Join(dir, "erase.commit"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, c := range []struct {
		name    string
		decided bool
		renamed int
		want    string
	}{
		{"before the commit mark", false, 0, old},
		{"after the commit mark", true, 0, done},
		{"between the renames", true, 1, done},
		{"after the renames", true, 2, done},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := state(c.decided, c.renamed)
			r, err := mail.NewOutbox(dir, testFrom)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.Recover(); err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if readFile(t, filepath.Join(dir, f)) != readFile(t, filepath.Join(c.want, f)) {
					t.Errorf("%s after recovery differs from the %s one", f, map[string]string{old: "old", done: "erased"}[c.want])
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, en := range entries {
				if strings.HasSuffix(en.Name(), ".erasing") || en.Name() == "erase.commit" || en.Name() == mail.TornName {
					t.Errorf("%s left after recovery", en.Name())
				}
			}
			if got := byRef(t, r); len(got) != 4-btoi(c.want == done) {
				t.Errorf("%d records' messages after recovery", len(got))
			}
			if c.want == done && len(dirHolds(t, dir, marks[1])) > 0 {
				t.Error("the erased marker is back after recovery")
			}
		})
	}
}
