package mail

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
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
// The index of the lines is built at start from the whole log and kept by the committer's one worker. It
// holds a 64-bit hash of each reference and where its first line starts, 16 bytes a message rather than the
// reference itself; a hit reads that line back to compare the reference, and a hash shared by two
// references (improbable) falls back to a scan of the log, so a collision costs time, never a message.

// sentIndex maps the hash of a reference to the offset in sent.log of the first line about it.
type sentIndex struct {
	seed  maphash.Seed
	lines map[uint64]int64
}

func newSentIndex() *sentIndex {
	return &sentIndex{seed: maphash.MakeSeed(), lines: map[uint64]int64{}}
}

// add notes that the line at offset start is about ref, unless a line with ref's hash is noted already.
func (x *sentIndex) add(ref []byte, start int64) {
	h := maphash.Bytes(x.seed, ref)
	if _, ok := x.lines[h]; !ok {
		x.lines[h] = start
	}
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

// indexLog builds the index of the whole lines of r, the log from offset 0.
func indexLog(r io.Reader) (*sentIndex, error) {
	x := newSentIndex()
	br := bufio.NewReaderSize(r, 256<<10)
	var pos int64
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // a line longer than any seald writes: read to its end, skip it
			n := int64(len(line))
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				n += int64(len(line))
			}
			if err == nil {
				pos += n
				continue
			}
			line = nil
		}
		if err == io.EOF {
			return x, nil // a last line without its newline is torn: repair has cut it
		}
		if err != nil {
			return nil, fmt.Errorf("mail: outbox: %s: %w", SentLog, err)
		}
		if ref := lineReference(bytes.Fields(line)); ref != nil {
			x.add(ref, pos)
		}
		pos += int64(len(line))
	}
}

// maxLogLine bounds the bytes read back for one line of sent.log: a reference of at most maxReferenceLen, a
// Message-ID of that and a host name, the time and the position fields.
const maxLogLine = 1024

// sentID returns the Message-ID of the message already in the outbox about ref, if there is one.
func (o *Outbox) sentID(ref string) (string, bool, error) {
	start, ok := o.sent.lines[maphash.String(o.sent.seed, ref)]
	if !ok {
		return "", false, nil
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
