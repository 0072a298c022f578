package mail

import (
	"bytes"
	"context"
	"hash/maphash"
	"os"
	"path/filepath"
	"testing"

	"seald.dev/seald"
)

// crashState is what the outbox's two files hold after a crash.
type crashState struct {
	name      string
	mbox, log []byte
	// kept tells which message the outbox must hold afterwards: true the first attempt's (its line
	// survived with it), false the resend's; nil either (a power loss may keep or lose the append).
	kept *bool
}

// TestOutboxCrashPoints stops an append at each of its crash points (the hook copies the files as they are
// there, which is what a kill -9 leaves; the page cache survives it) and builds from that copy the states a
// power loss could leave too (what was not yet synced lost, or half of it). The outbox opened on each state
// (a restart) then gets the pipeline's resend of the message in flight, a resend of an older one and a new
// one: each record's message is in the mbox exactly once, sent.log counts one send of each, and the resend
// returns the record's Message-ID.
func TestOutboxCrashPoints(t *testing.T) {
	yes, no := true, false
	for _, point := range []string{seald.CrashAfterMailAppend, seald.CrashAfterMailLog, seald.CrashAfterMailSend} {
		t.Run(point, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "outbox")
			o := openOutbox(t, dir)
			if _, err := o.Send(context.Background(), mailFor(refN(0))); err != nil {
				t.Fatal(err)
			}
			preMbox, preLog := readFile(t, o.Path()), readFile(t, filepath.Join(dir, SentLog))
			var atMbox, atLog []byte
			o.Crash = func(p string) {
				if p == point {
					atMbox, atLog = readFile(t, o.Path()), readFile(t, filepath.Join(dir, SentLog))
				}
			}
			first := mailFor(refN(1))
			first.Subject = "first attempt"
			if _, err := o.Send(context.Background(), first); err != nil {
				t.Fatal(err)
			}
			if err := o.Close(); err != nil {
				t.Fatal(err)
			}
			if point == seald.CrashAfterMailSend { // passed by the pipeline once Send has returned
				atMbox, atLog = readFile(t, o.Path()), readFile(t, filepath.Join(dir, SentLog))
			}
			if atMbox == nil {
				t.Fatal("the crash point was not passed")
			}
			half := func(pre, post []byte) []byte { return post[:len(pre)+(len(post)-len(pre))/2] }
			var states []crashState
			switch point {
			case seald.CrashAfterMailAppend:
				states = []crashState{
					{"killed", atMbox, atLog, &no},
					{"power loss, the message lost", preMbox, atLog, &no},
					{"power loss, half the message kept", half(preMbox, atMbox), atLog, &no},
				}
			case seald.CrashAfterMailLog:
				states = []crashState{
					{"killed", atMbox, atLog, &yes},
					{"power loss, both lost", preMbox, preLog, &no},
					{"power loss, the line kept, the message lost", preMbox, atLog, &no},
					{"power loss, the line kept, half the message", half(preMbox, atMbox), atLog, &no},
					{"power loss, the message kept, the line lost", atMbox, preLog, &no},
					{"power loss, the message kept, half the line", atMbox, half(preLog, atLog), &no},
				}
			default:
				states = []crashState{{"killed", atMbox, atLog, &yes}}
			}
			for _, s := range states {
				t.Run(s.name, func(t *testing.T) {
					crashed := filepath.Join(t.TempDir(), "outbox")
					if err := os.MkdirAll(crashed, 0o700); err != nil {
						t.Fatal(err)
					}
					for name, b := range map[string][]byte{MboxName: s.mbox, SentLog: s.log} {
						if err := os.WriteFile(filepath.Join(crashed, name), b, 0o600); err != nil {
							t.Fatal(err)
						}
					}
					r := openOutbox(t, crashed)
					again := mailFor(refN(1))
					again.Subject = "resend"
					for _, m := range []*seald.Mail{again, mailFor(refN(0)), mailFor(refN(2)), again} {
						id, err := r.Send(context.Background(), m)
						if err != nil {
							t.Fatal(err)
						}
						if want := "<" + m.Reference + "@seald.seald.example.com>"; id != want {
							t.Errorf("Send of %s returned %q, want %q", m.Reference, id, want)
						}
					}
					msgs, err := ReadMbox(readFile(t, r.Path())) // the whole file, as a mail tool reads it
					if err != nil {
						t.Fatal(err)
					}
					sends, err := r.Sends()
					if err != nil {
						t.Fatal(err)
					}
					perRef := map[string]int{}
					for _, m := range msgs {
						perRef[m.Reference]++
						if m.Reference == refN(1) && s.kept != nil {
							kept := bytes.Contains(m.Raw, []byte("Subject: first attempt"))
							if kept != *s.kept {
								t.Errorf("the first attempt's message kept: %v, want %v", kept, *s.kept)
							}
						}
					}
					for i := range 3 {
						if perRef[refN(i)] != 1 || sends[refN(i)] != 1 {
							t.Errorf("%s: %d messages in the mbox, %d sends logged; want exactly 1", refN(i), perRef[refN(i)], sends[refN(i)])
						}
					}
					if len(msgs) != 3 || len(sends) != 3 {
						t.Errorf("%d messages, %d references logged; want 3", len(msgs), len(sends))
					}
				})
			}
		})
	}
}

// A reference whose hash another reference's line holds in the index (a collision, forced here) is still
// recognised by the scan of the log when it was sent, and written when it was not.
func TestOutboxSentIndexCollision(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	o := openOutbox(t, dir)
	for i := range 2 {
		if _, err := o.Send(context.Background(), mailFor(refN(i))); err != nil {
			t.Fatal(err)
		}
	}
	// Between Sends the committer's worker is idle: the index may be changed here.
	h := func(ref string) uint64 { return maphash.String(o.sent.seed, ref) }
	o.sent.lines[h(refN(1))] = o.sent.lines[h(refN(0))]
	o.sent.lines[h(refN(2))] = o.sent.lines[h(refN(0))]
	for i := range 3 {
		id, err := o.Send(context.Background(), mailFor(refN(i)))
		if err != nil {
			t.Fatal(err)
		}
		if want := "<" + refN(i) + "@seald.seald.example.com>"; id != want {
			t.Errorf("Send of %s returned %q, want %q", refN(i), id, want)
		}
	}
	msgs, err := o.Messages()
	if err != nil {
		t.Fatal(err)
	}
	perRef := map[string]int{}
	for _, m := range msgs {
		perRef[m.Reference]++
	}
	for i := range 3 {
		if perRef[refN(i)] != 1 {
			t.Errorf("%s: %d messages, want 1", refN(i), perRef[refN(i)])
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
