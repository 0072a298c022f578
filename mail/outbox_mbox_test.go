package mail

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// pyMbox reads an mbox with Python's standard mailbox module, a reader written apart from this package.
const pyMbox = `
import base64, json, mailbox, sys
box = mailbox.mbox(sys.argv[1], create=False)
out = []
for key in box.iterkeys():
    out.append({"from": box.get_message(key).get_from(), "raw": base64.b64encode(box.get_bytes(key)).decode()})
print(json.dumps(out))
`

type pyMessage struct {
	From string // the separator line without "From "
	Raw  []byte // the message after mboxrd unquoting, with CRLF line ends
}

var quotedFrom = regexp.MustCompile(`(?m)^>(>*From )`)

// readWithPython returns the messages of the mbox at path as Python's mailbox module reads them, with the
// mboxrd quoting undone and the line ends made CRLF again.
func readWithPython(t *testing.T, path string) []pyMessage {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 reads the mbox independently of this package: %v", err)
	}
	out, err := exec.Command(py, "-c", pyMbox, path).Output()
	if err != nil {
		t.Fatalf("python3 mailbox.mbox: %v", err)
	}
	var got []struct{ From, Raw string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	msgs := make([]pyMessage, len(got))
	for i, m := range got {
		raw, err := base64.StdEncoding.DecodeString(m.Raw)
		if err != nil {
			t.Fatal(err)
		}
		raw = quotedFrom.ReplaceAll(raw, []byte("$1"))
		msgs[i] = pyMessage{From: m.From, Raw: bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n"))}
	}
	return msgs
}

// TestOutboxMboxReadByMailTool sends messages whose bodies have lines that look like separators (From ...,
// >From ..., >>From ...) and checks what Python's mailbox module, a reader of its own, finds in the mbox:
// every message, in order, with its separator line naming the sender and a date, byte for byte as rendered
// once the mboxrd quoting is undone (a multipart message's random boundary aside: the test renders the
// message a second time to know its bytes). The quoting is exercised: the file holds quoted lines.
func TestOutboxMboxReadByMailTool(t *testing.T) {
	o := openOutbox(t, t.TempDir())
	at := time.Date(2026, 11, 25, 9, 5, 7, 0, time.UTC)
	o.c.now = func() time.Time { return at }
	bodies := []string{
		"Hello\nFrom the start of a line\n>From quoted once\n>>From quoted twice\nFromage is not a separator",
		"From the very first line",
		"<p>From HTML</p>\n<pre>\nFrom a pre line\n</pre>",
		"Plain",
	}
	var want [][]byte
	for i, body := range bodies {
		m := mailFor(refN(i))
		m.Body, m.HTML = body, i == 2
		b, err := o.c.compose(m)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := b.msg.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		want = append(want, buf.Bytes())
		if _, err := o.Send(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	file, err := os.ReadFile(o.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"\n>From the start", "\n>>From quoted once", "\n>>>From quoted twice", "\nFromage"} {
		if !bytes.Contains(file, []byte(q)) {
			t.Errorf("the mbox lacks the line %q", q)
		}
	}
	got := readWithPython(t, o.Path())
	if len(got) != len(want) {
		t.Fatalf("python3 reads %d messages, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].From != "noreply@seald.example.com Wed Nov 25 09:05:07 2026" {
			t.Errorf("message %d: separator line %q", i, got[i].From)
		}
		if !bytes.Equal(sameBoundary(got[i].Raw), sameBoundary(want[i])) {
			t.Errorf("message %d as python3 reads it differs from the one rendered:\n%q\nwant\n%q", i, got[i].Raw, want[i])
		}
	}
	// This package's own reader agrees.
	own, err := o.Messages()
	if err != nil || len(own) != len(want) {
		t.Fatalf("Messages: %d, %v", len(own), err)
	}
	for i := range want {
		if !bytes.Equal(sameBoundary(own[i].Raw), sameBoundary(want[i])) || own[i].Reference != refN(i) || !own[i].Date.Equal(at) {
			t.Errorf("message %d as Messages reads it: %s at %v\n%q", i, own[i].Reference, own[i].Date, own[i].Raw)
		}
	}
}

var boundary = regexp.MustCompile(`boundary=([0-9a-f]+)`)

// sameBoundary replaces the MIME boundary of a multipart message, which go-mail draws at random each time it
// renders one, by a fixed one, so that two renderings of one message compare byte for byte.
func sameBoundary(msg []byte) []byte {
	m := boundary.FindSubmatch(msg)
	if m == nil {
		return msg
	}
	return bytes.ReplaceAll(msg, m[1], []byte("BOUNDARY"))
}

// copyFixture lays out an outbox as the .eml outbox of seald before the mbox wrote it: testdata/eml-outbox
// holds what that code (mail/outbox.go at af8666e) wrote for four sends of three records (one sent twice),
// made 0600 and given the times of their writes, plus the temporary file of a write a crash cut short.
func copyFixture(t *testing.T, dir string) (emls []string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", "eml-outbox")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	// The order of the last write of each file (see sent.log).
	order := map[string]int{"D-22222222-0000-4000-8000-000000000002.eml": 1, "D-11111111-0000-4000-8000-000000000001.eml": 2, "D-33333333-0000-4000-8000-000000000003.eml": 3}
	base := time.Date(2026, 11, 26, 0, 4, 0, 0, time.UTC)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, e.Name())
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if n, ok := order[e.Name()]; ok {
			if err := os.Chtimes(p, base, base.Add(time.Duration(n)*time.Second)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".tmp-123456.eml"), []byte("Date: half a mess"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"D-22222222-0000-4000-8000-000000000002.eml", "D-11111111-0000-4000-8000-000000000001.eml", "D-33333333-0000-4000-8000-000000000003.eml"} {
		emls = append(emls, filepath.Join(src, name))
	}
	return emls
}

// TestOutboxImportsEML opens an outbox that the .eml outbox wrote: the first start appends every .eml file
// to the mbox, oldest first and byte for byte (as python3 reads them back), removes the files and the
// temporary one, and keeps the count of sends of the old log (the imports are not sends). A crash after
// the append and before a file's removal (the file is back) does not append it a second time.
func TestOutboxImportsEML(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	emls := copyFixture(t, dir)
	o := openOutbox(t, dir)

	check := func() {
		t.Helper()
		got := readWithPython(t, filepath.Join(dir, MboxName))
		if len(got) != len(emls) {
			t.Fatalf("python3 reads %d messages, want the %d .eml files", len(got), len(emls))
		}
		for i, path := range emls {
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[i].Raw, want) {
				t.Errorf("message %d differs from %s:\n%q\nwant\n%q", i, path, got[i].Raw, want)
			}
			if !strings.HasPrefix(got[i].From, "noreply@seald.example.com Thu Nov 26 00:04:0") {
				t.Errorf("message %d: separator line %q", i, got[i].From)
			}
		}
		own, err := Messages(dir)
		if err != nil || len(own) != len(emls) {
			t.Fatalf("Messages: %d, %v", len(own), err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{MboxName, SentLog}) {
			t.Errorf("the outbox holds %q after the import", names)
		}
		sends, err := Sends(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(sends) != "map[D-11111111-0000-4000-8000-000000000001:2 D-22222222-0000-4000-8000-000000000002:1 D-33333333-0000-4000-8000-000000000003:1]" {
			t.Errorf("sends %v, want those of the old log", sends)
		}
	}
	check()

	// A crash between the append and the removal: the file is still there at the next start.
	_ = o.Close()
	b, err := os.ReadFile(emls[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(emls[1])), b, 0o600); err != nil {
		t.Fatal(err)
	}
	o = openOutbox(t, dir)
	check()

	// A record whose message the old outbox holds is not sent again: the imported message stands for it.
	id, err := o.Send(context.Background(), mailFor("D-11111111-0000-4000-8000-000000000001"))
	if err != nil {
		t.Fatal(err)
	}
	if id != "<D-11111111-0000-4000-8000-000000000001@seald.seald.example.com>" {
		t.Errorf("a repeat of an imported message returned %q", id)
	}
	check()
	if _, err := o.Send(context.Background(), mailFor("D-44444444-0000-4000-8000-000000000004")); err != nil {
		t.Fatal(err)
	}
	if n, err := Sends(dir); err != nil || n["D-44444444-0000-4000-8000-000000000004"] != 1 || n["D-11111111-0000-4000-8000-000000000001"] != 2 {
		t.Errorf("sends after one more: %v, %v", n, err)
	}
}

// TestOutboxRepairsTornTail damages the end of an outbox the ways a crash can (kill -9 between or inside
// the writes of an append; a power loss that kept the log and lost part of the mbox) or a tool that edits
// the mbox can, and opens it again: the mbox is cut back to the last message that sent.log describes and
// that is whole, the cut bytes are kept in outbox.mbox.torn, the log loses the lines of what was cut, and
// the outbox takes new messages that python3 reads with the others.
func TestOutboxRepairsTornTail(t *testing.T) {
	for _, c := range []struct {
		name   string
		extra  int                               // messages sent after the three good ones
		damage func(t *testing.T, st [][2]int64) // st[i]: mbox and log sizes after message i
		keep   int                               // messages kept
	}{
		{"torn message", 1, func(t *testing.T, st [][2]int64) {
			truncate(t, MboxName, (st[2][0]+st[3][0])/2)
			truncate(t, SentLog, st[2][1])
		}, 3},
		{"whole message without its log line", 1, func(t *testing.T, st [][2]int64) {
			truncate(t, SentLog, st[2][1])
		}, 3},
		{"torn log line", 1, func(t *testing.T, st [][2]int64) {
			truncate(t, SentLog, st[3][1]-5)
		}, 3},
		{"log ahead of the mbox", 2, func(t *testing.T, st [][2]int64) {
			truncate(t, MboxName, st[4][0]-7)
		}, 4},
		// The log lines of 1,000 messages lost from the mbox reach further back than repair's first window.
		{"log far ahead of the mbox", 1000, func(t *testing.T, st [][2]int64) {
			truncate(t, MboxName, st[3][0]+10)
		}, 4},
		{"last message changed", 1, func(t *testing.T, st [][2]int64) {
			flip(t, MboxName, st[3][0]-20)
		}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			o := openOutbox(t, dir)
			var st [][2]int64
			for i := range 3 + c.extra {
				if _, err := o.Send(context.Background(), mailFor(refN(i))); err != nil {
					t.Fatal(err)
				}
				st = append(st, [2]int64{size(t, MboxName), size(t, SentLog)})
			}
			if err := o.Close(); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(MboxName)
			c.damage(t, st)
			damaged, _ := os.ReadFile(MboxName)

			o = openOutbox(t, dir)
			keep := st[c.keep-1]
			if got := size(t, MboxName); got != keep[0] {
				t.Errorf("mbox of %d bytes after the repair, want %d (the end of message %d)", got, keep[0], c.keep)
			}
			if got := size(t, SentLog); got != keep[1] {
				t.Errorf("sent.log of %d bytes after the repair, want %d", got, keep[1])
			}
			if !bytes.HasPrefix(before, damaged[:keep[0]]) {
				t.Error("the repair changed the messages it kept")
			}
			torn, err := os.ReadFile(TornName)
			if cut := damaged[keep[0]:]; len(cut) > 0 && (err != nil || !bytes.Equal(torn, cut)) {
				t.Errorf("outbox.mbox.torn holds %d bytes (%v), want the %d cut", len(torn), err, len(cut))
			}
			if _, err := o.Send(context.Background(), mailFor(refN(9))); err != nil {
				t.Fatal(err)
			}
			want := make([]string, 0, c.keep+1)
			for i := range c.keep {
				want = append(want, refN(i))
			}
			want = append(want, refN(9))
			var got []string
			for _, m := range readWithPython(t, MboxName) {
				got = append(got, referenceOf(headerOf(t, m.Raw, "Message-Id")))
			}
			if !slices.Equal(got, want) {
				t.Errorf("python3 reads %v, want %v", got, want)
			}
			msgs, err := Messages(dir)
			if err != nil || len(msgs) != len(want) {
				t.Errorf("Messages: %d, %v; want %d", len(msgs), err, len(want))
			}
			sends, err := Sends(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, ref := range want {
				if sends[ref] != 1 {
					t.Errorf("sends %v, want one of each of %v", sends, want)
					break
				}
			}
		})
	}
}

func size(t *testing.T, name string) int64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func truncate(t *testing.T, name string, n int64) {
	t.Helper()
	if err := os.Truncate(name, n); err != nil {
		t.Fatal(err)
	}
}

func flip(t *testing.T, name string, at int64) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	b[at] ^= 0x20
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func headerOf(t *testing.T, raw []byte, key string) string {
	t.Helper()
	msgs, err := ReadMbox(append([]byte("From x Mon Jan  2 15:04:05 2006\n"), bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))...))
	if err != nil || len(msgs) != 1 {
		t.Fatalf("%v", err)
	}
	if key != "Message-Id" {
		t.Fatalf("headerOf reads the Message-ID only")
	}
	return msgs[0].MessageID
}

// FuzzMboxRoundTrip: any message with CRLF line ends, whatever its lines hold (separator-like lines, '>'
// runs, empty lines), comes back from the mbox byte for byte, one message for one entry.
func FuzzMboxRoundTrip(f *testing.F) {
	f.Add([]byte("Subject: x\n\nFrom me\n>From you\n>>From them\n"), []byte("From\n"))
	f.Add([]byte(""), []byte("\n\n"))
	f.Add([]byte("From "), []byte(">"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var msgs [][]byte
		var box []byte
		for _, in := range [][]byte{a, b} {
			lines := strings.Split(strings.ReplaceAll(string(in), "\r", ""), "\n")
			msg := []byte(strings.Join(lines, "\r\n") + "\r\n")
			msgs = append(msgs, msg)
			box = append(box, mboxEntry("seald@example.com", time.Unix(0, 0), msg)...)
		}
		got, err := ReadMbox(box)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(msgs) {
			t.Fatalf("%d messages read back, want %d:\n%q", len(got), len(msgs), box)
		}
		for i := range msgs {
			if !bytes.Equal(got[i].Raw, msgs[i]) {
				t.Errorf("message %d: %q, want %q", i, got[i].Raw, msgs[i])
			}
		}
	})
}
