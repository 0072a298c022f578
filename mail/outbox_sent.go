package mail

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
	"time"
)

// Exactly once. A record has one message, and the pipeline sends it again whenever it cannot know that the
// first send was saved: after a crash between the send and the save of its Message-ID, or a save that
// failed. The outbox recognises the repeat: sent.log already has a line about the reference, written and
// synced with the message before the first Send returned, so the repeat is not written again and Send
// returns the Message-ID of that line. The line is the idempotency key, and it is atomic with the message:
// repair (outbox_recover.go) keeps a line only with its whole message, and a message only with its line.
//
// The crash points, in the order of an append, and what the next start does with each:
//
//	before the mbox write                 nothing written: the repeat is written, once
//	after-mail-append (mbox written)      no line: repair sets the message aside, the repeat is written
//	after-mail-log (both, not synced)     a whole line and message survive (kept, the repeat is skipped) or
//	                                      not (cut, the repeat is written); never one without the other
//	after-mail-send (synced, not saved)   the line is there: the repeat is skipped, its Message-ID returned
//	after the save                        the pipeline sends nothing again
//
// Every line about a reference counts: a send, an imported .eml file of an earlier version (whose reference
// is its file name, or the left part of its Message-ID), and a line marked erased (the message was sent,
// then erased with its record: it is not sent again).
//
// The index is bounded (issue 45): it holds the lines of the recent sends only, at most sentWindow of them
// and none older than sentKeep before the newest, so its memory does not grow with the outbox's history, and
// a start reads only the end of the log to build it (indexLog). It holds a 64-bit hash of each reference and
// where its last line in the window starts; a hit reads that line back to compare the reference, and a hash
// shared by two references (improbable) falls back to a scan of the log, so a collision costs time, never a
// message. What a resend can ask about is a record whose message was sent after the record was accepted
// (seald.Mail.Since), usually seconds before; when the window reaches back to then (less a margin for the
// clock), a miss in it means the message was never sent. Otherwise (a resend delayed beyond the window, or
// a caller that does not say when its record was accepted), the lines before the window are read from the
// log, from the first line written since then (found by bisecting the log on its lines' times): a cost in
// time paid by such a resend alone, never a second message.

// sentWindow and sentKeep bound the index: 65,536 lines (about 3 MB) and two minutes of sends.
const (
	sentWindow = 1 << 16
	sentKeep   = 2 * time.Minute
	// sinceMargin is how far a line's time may be behind the record's acceptance (the clock of another
	// instance, or a step of this one's) and still be looked for.
	sinceMargin = time.Minute
)

// sentIndex maps the hash of a reference to the offset in sent.log of the last line about it among the
// recent lines, kept in order in ring for their eviction.
type sentIndex struct {
	seed  maphash.Seed
	lines map[uint64]int64
	ring  []sentLine // the lines noted, oldest first from head
	head  int
	max   int
	keep  time.Duration
	// from is the offset of the oldest line the index holds (the log's lines before it are on disk only),
	// fromTime its time; fromTime is zero while every line of the log is in the index.
	from     int64
	fromTime time.Time
	partial  bool // lines before from were left out
}

// sentLine is a line the index holds.
type sentLine struct {
	hash uint64
	at   time.Time
	off  int64
}

func newSentIndex(max int, keep time.Duration) *sentIndex {
	return &sentIndex{seed: maphash.MakeSeed(), lines: map[uint64]int64{}, max: max, keep: keep}
}

// len is the number of lines the index holds.
func (x *sentIndex) len() int { return len(x.ring) - x.head }

// add notes that the line at offset start, written at at, is about ref, and lets the oldest lines go past
// the bounds.
func (x *sentIndex) add(ref []byte, start int64, at time.Time) {
	h := maphash.Bytes(x.seed, ref)
	x.lines[h] = start
	x.ring = append(x.ring, sentLine{hash: h, at: at, off: start})
	for x.len() > x.max || (x.len() > 1 && !at.IsZero() && at.Sub(x.ring[x.head].at) > x.keep) {
		x.evict()
	}
	if x.head > 0 && x.head >= len(x.ring)/2 { // reuse the ring's front
		x.ring = append(x.ring[:0], x.ring[x.head:]...)
		x.head = 0
	}
	if x.len() > 0 {
		x.from = x.ring[x.head].off
	}
}

// evict drops the oldest line.
func (x *sentIndex) evict() {
	l := x.ring[x.head]
	x.head++
	if x.lines[l.hash] == l.off {
		delete(x.lines, l.hash)
	}
	x.partial = true
	if x.len() > 0 {
		x.from, x.fromTime = x.ring[x.head].off, x.ring[x.head].at
	}
}

// covers tells whether a miss in the index means that no line is about a record accepted at since: every
// line of the log is in it, or its oldest line is older than since, less the margin.
func (x *sentIndex) covers(since time.Time) bool {
	if !x.partial {
		return true
	}
	return !since.IsZero() && x.fromTime.Before(since.Add(-sinceMargin))
}

// lineReference is the reference a line of sent.log (its fields) is about: its reference field, or for an
// imported file of unknown name ("-") the left part of its Message-ID; nil when there is none.
func lineReference(f [][]byte) []byte {
	if len(f) < 3 {
		return nil
	}
	if !bytes.Equal(f[1], []byte("-")) {
		return f[1]
	}
	if ref := referenceOf(string(f[2])); ref != "" {
		return []byte(ref)
	}
	return nil
}

// indexLog builds the index of the whole lines of the log r of size bytes from its end: it reads back from
// the end until it has the index's bound of lines (or the log's start), so that a start reads the recent
// lines, not the whole history.
func indexLog(r io.ReaderAt, size int64, window int, keep time.Duration) (*sentIndex, error) {
	x := newSentIndex(window, keep)
	from, chunk := size, max(4096, int64(window)*128) // a line is about 150 bytes
	var lines []logLine
	var buf []byte
	for from > 0 {
		from = max(0, size-chunk)
		buf = make([]byte, size-from)
		if _, err := r.ReadAt(buf, from); err != nil && err != io.EOF {
			return nil, fmt.Errorf("mail: outbox: %s: %w", SentLog, err)
		}
		b, base := buf, from
		if from > 0 { // the first line may be cut: start after its end
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				chunk *= 2
				continue
			}
			b, base = b[i+1:], from+int64(i)+1
		}
		lines = parseLog(b, base)
		if len(lines) >= window {
			break
		}
		chunk *= 2
	}
	if len(lines) > window {
		lines = lines[len(lines)-window:]
	}
	if len(lines) > 0 && lines[0].start > 0 {
		x.partial, x.from, x.fromTime = true, lines[0].start, lines[0].at
	}
	for _, l := range lines {
		if ref := l.reference(); ref != "" {
			x.add([]byte(ref), l.start, l.at)
		}
	}
	return x, nil
}

// reference is the reference a line is about (lineReference).
func (l logLine) reference() string {
	if l.ref != "-" {
		return l.ref
	}
	return referenceOf(l.id)
}

// maxLogLine bounds the bytes read back for one line of sent.log: a reference of at most maxReferenceLen, a
// Message-ID of that and a host name, the time and the position fields.
const maxLogLine = 1024

// sentID returns the Message-ID of the message already in the outbox about ref, if there is one.
func (o *Outbox) sentID(ref string, since time.Time) (string, bool, error) {
	start, ok := o.sent.lines[maphash.String(o.sent.seed, ref)]
	if !ok {
		if o.sent.covers(since) {
			return "", false, nil
		}
		return o.scanBefore(ref, since)
	}
	b := make([]byte, min(maxLogLine, o.logSize-start))
	if _, err := o.log.ReadAt(b, start); err != nil {
		return "", false, fmt.Errorf("mail: outbox: %s: %w", SentLog, err)
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		f := bytes.Fields(b[:i])
		if r := lineReference(f); r != nil && string(r) == ref {
			return string(f[2]), true, nil
		}
	}
	// Another reference with the same hash: look through the whole log.
	b = make([]byte, o.logSize)
	if _, err := o.log.ReadAt(b, 0); err != nil {
		return "", false, fmt.Errorf("mail: outbox: %s: %w", SentLog, err)
	}
	for rest := b; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		f := bytes.Fields(rest[:i])
		rest = rest[i+1:]
		if r := lineReference(f); r != nil && string(r) == ref {
			return string(f[2]), true, nil
		}
	}
	return "", false, nil
}

// scanBefore looks for a line about ref among those the index left out: from the first line written since
// since, less the margin (the log's start when since is zero), to the index's oldest line.
func (o *Outbox) scanBefore(ref string, since time.Time) (string, bool, error) {
	start := int64(0)
	if !since.IsZero() {
		var err error
		if start, err = o.lineSince(since.Add(-sinceMargin)); err != nil {
			return "", false, err
		}
	}
	end := o.sent.from
	if end <= start {
		return "", false, nil
	}
	b := make([]byte, end-start)
	if _, err := o.log.ReadAt(b, start); err != nil {
		return "", false, fmt.Errorf("mail: outbox: %s: %w", SentLog, err)
	}
	for _, l := range parseLog(b, start) {
		if l.reference() == ref {
			return l.id, true, nil
		}
	}
	return "", false, nil
}

// lineSince returns the offset of a line of the log written at t or before, such that every line after it
// that was written at t or later comes after it: the log's lines are in the order of their times, so a
// bisection on the offsets before the index's oldest line finds it, reading one line a step.
func (o *Outbox) lineSince(t time.Time) (int64, error) {
	lo, hi := int64(0), o.sent.from // the answer is in [lo, hi]; the line at lo is before t (or lo is 0)
	for hi-lo > maxLogLine {
		mid := lo + (hi-lo)/2
		b := make([]byte, min(2*maxLogLine, o.logSize-mid))
		if _, err := o.log.ReadAt(b, mid); err != nil && err != io.EOF {
			return 0, fmt.Errorf("mail: outbox: %s: %w", SentLog, err)
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return lo, nil
		}
		lines := parseLog(b[i+1:], mid+int64(i)+1)
		if len(lines) == 0 || lines[0].start >= hi {
			hi = mid
			continue
		}
		if lines[0].at.Before(t) {
			lo = lines[0].start
		} else {
			hi = mid
		}
	}
	return lo, nil
}
