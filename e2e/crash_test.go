package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/mail"
	"seald.dev/seald/mail/mailpittest"
)

// crashRecords is how many records each crash test submits; they share one batch.
const crashRecords = 4

// TestCrashPoints runs the real binary built with the crashtest tag, which exits with status 137 (as kill -9
// would: no deferred function, no flush) at one boundary of the pipeline, restarts it without the switch,
// and checks that nothing was lost or done twice: every record that reached the store, acknowledged or not,
// ends COMPLETED; token ids are unique; the chain minted exactly one token per record (no batch twice); the
// outbox's mbox holds exactly one message per record, as its send log counts them, whichever point of the
// e-mail's write the crash hit (inside the outbox's append, or after it and before the record's save). One
// job runner (--workers 1) makes the crash hit exactly one step in flight, so the figures are exact.
func TestCrashPoints(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "crashtest")
	for _, c := range []struct {
		point string
		after string // SEALD_CRASH_AFTER
	}{
		{seald.CrashAfterRecordSave, "2"}, // the first record gets its 201, the second dies before its answer
		{seald.CrashAfterIPFSAdd, "1"},
		{seald.CrashAfterSign, "1"},
		{seald.CrashAfterBroadcast, "1"},
		{seald.CrashAfterConfirmTx, "1"},
		{seald.CrashAfterMailAppend, "1"},
		{seald.CrashAfterMailLog, "1"},
		{seald.CrashAfterMailSend, "1"},
	} {
		t.Run(c.point, func(t *testing.T) {
			dir := t.TempDir()
			out := crashAndRecover(t, bin, dir, c.point, c.after, nil)
			if c.point == seald.CrashAfterRecordSave && out.unacknowledged != 1 {
				t.Errorf("%d committed records without an answer, want 1 (the one the crash cut off)", out.unacknowledged)
			}
			msgs := outboxMessages(t, dir)
			inBox := map[string]int{}
			for _, m := range msgs {
				inBox[m.Reference]++
			}
			// The pipeline sends the message in flight again after the restart, as with SMTP
			// (TestCrashAfterSMTPSend); the outbox recognises the repeat by its sent.log line and writes it
			// once. The whole mbox is read, as a mail tool reads it.
			whole, err := mail.ReadMbox([]byte(readFile(t, filepath.Join(dir, "outbox", mail.MboxName))))
			if err != nil {
				t.Fatal(err)
			}
			if len(whole) != len(msgs) {
				t.Errorf("the mbox holds %d messages, %d of them described by sent.log", len(whole), len(msgs))
			}
			sends, err := mail.Sends(filepath.Join(dir, "outbox"))
			if err != nil {
				t.Fatal(err)
			}
			dups := 0
			for _, ref := range out.refs {
				if inBox[ref] == 0 {
					t.Errorf("%s: no message in the outbox", ref)
				}
				if inBox[ref] != sends[ref] {
					t.Errorf("%s: %d messages in the mbox, %d sends logged", ref, inBox[ref], sends[ref])
				}
				dups += max(sends[ref]-1, 0)
			}
			if len(inBox) != len(out.refs) {
				t.Errorf("outbox: messages of %d records, want %d", len(inBox), len(out.refs))
			}
			if dups != 0 {
				t.Errorf("%d messages sent twice, want none (sends %v)", dups, sends)
			}
			t.Logf("crash point %s: %d records kept (%d without an answer), %d tokens, %d outbox messages, recovered in %s",
				c.point, len(out.refs), out.unacknowledged, len(out.tokens), len(msgs), out.recovery.Round(time.Millisecond))
		})
	}
}

// TestCrashAfterSMTPSend crashes between an SMTP send (to a real server, mailpit) and its save: SMTP has no
// idempotency key, so the send after the restart delivers the message a second time, with the same
// Message-ID. The test pins that figure: exactly one duplicate, of the one message in flight, and none of
// the others.
func TestCrashAfterSMTPSend(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "crashtest")
	mp := mailpittest.Start(t)
	dir := t.TempDir()
	out := crashAndRecover(t, bin, dir, seald.CrashAfterMailSend, "1", []string{"--smtp", mp.PlainURL})
	msgs, err := mp.Messages()
	if err != nil {
		t.Fatal(err)
	}
	dups := 0
	for _, ref := range out.refs {
		n := 0
		for _, m := range msgs {
			if strings.HasPrefix(m.MessageID, ref+"@") {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no message delivered", ref)
		}
		dups += max(n-1, 0)
	}
	if dups != 1 {
		t.Errorf("%d duplicate messages, want exactly 1 (the send in flight at the crash)", dups)
	}
	t.Logf("crash after SMTP send: %d records, %d messages delivered, %d duplicate", len(out.refs), len(msgs), dups)
}

type crashOutcome struct {
	refs           []string          // every record kept, acknowledged or not
	tokens         map[string]string // token id by reference
	unacknowledged int               // records stored whose client got no 201
	recovery       time.Duration     // restart until every record COMPLETED
}

// crashAndRecover starts the crashtest binary with the crash switch, submits crashRecords records until it
// dies, checks it died at the switch (137), restarts it without the switch and checks the end state.
func crashAndRecover(t *testing.T, bin, dir, point, after string, args []string) crashOutcome {
	t.Helper()
	args = append([]string{"--workers", "1"}, args...)
	p := startProcess(t, bin, dir, []string{"SEALD_CRASH_AT=" + point, "SEALD_CRASH_AFTER=" + after}, args...)
	var sent []sealResult
	for i := range crashRecords {
		sent = append(sent, trySeal(p.in.URL, p.in.Sub, p.in.API, map[string]any{"crash": point, "i": i}, nil))
	}
	if code := p.wait(t, 90*time.Second); code != 137 {
		t.Fatalf("seald exited with %d, want 137 from the crash point\n%s", code, p.in.logText())
	}
	acked := 0
	for _, s := range sent {
		if s.Status == 201 {
			acked++
		}
	}
	if acked == 0 {
		t.Fatalf("no record was accepted before the crash: %+v", sent)
	}

	start := time.Now()
	p = startProcess(t, bin, dir, nil, args...)
	var out crashOutcome
	for _, s := range sent {
		// A record is looked up by its hash, so one committed without an answer is found too.
		code, env := tryGet(p.in.URL, p.in.Sub, p.in.API, verifyBase+"hash?hash="+s.Hash)
		ref := str(env, "data.details.reference")
		switch {
		case code == 200 && s.Status == 201 && ref != s.Ref:
			t.Fatalf("hash %s: reference %s, but the 201 said %s", s.Hash, ref, s.Ref)
		case code == 200:
			out.refs = append(out.refs, ref)
			if s.Status != 201 {
				out.unacknowledged++
			}
		case s.Status == 201:
			t.Fatalf("accepted record %s lost: verify by hash %d %v", s.Ref, code, env)
		case code != 404:
			t.Fatalf("verify by hash: %d %v", code, env)
		}
	}
	out.tokens = completeAll(t, p.in, out.refs, 90*time.Second)
	out.recovery = time.Since(start)
	p.terminate(t)
	if next := chainNextTokenID(t, dir); next != uint64(len(out.refs))+1 {
		t.Errorf("the chain's next token id is %d after %d records: a batch was minted twice or lost", next, len(out.refs))
	}
	if len(out.tokens) != len(out.refs) {
		t.Errorf("%d tokens for %d records", len(out.tokens), len(out.refs))
	}
	return out
}
