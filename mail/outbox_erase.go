package mail

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/group"
)

var _ seald.MailEraser = (*Outbox)(nil)

// Erasure in the outbox. A record's e-mail is part of its data, so erasing the record takes its messages
// out of the mbox. The mbox and sent.log describe each other (each line gives its message's offset, length
// and checksum), so both are rewritten together:
//
//  1. outbox.mbox.erasing gets the mbox without the record's messages, sent.log.erasing the log with each
//     line's offset moved and the record's lines replaced by "<time> <reference> <Message-ID> erased <time
//     of erasure>" (which still counts as a send); both are synced.
//  2. erase.commit is created and the directory synced: from here the rewrite is decided.
//  3. Both files are renamed over the old ones, the directory synced, erase.commit removed.
//
// A crash before 2 leaves the old files, and the next start (Recover) removes the .erasing files; a crash
// after it leaves erase.commit, and the next start renames whichever .erasing file is still there, so the
// two files always match. What repair set aside in outbox.mbox.torn is cut by message too: every fragment
// that names the reference goes.
//
// A rewrite copies the whole mbox, so an erasure costs a read and a write of the outbox; it runs on the
// committer's one worker, between appends.

// The files of an erasure in progress.
const (
	erasingSuffix = ".erasing"
	eraseCommit   = "erase.commit"
)

// EraseMail removes every message about reference from the outbox and marks its lines of sent.log erased.
// A reference with no message is nothing to do.
func (o *Outbox) EraseMail(ctx context.Context, reference string) error {
	if err := checkReference(reference); err != nil {
		return err
	}
	g, err := o.open()
	if err != nil {
		return err
	}
	if err := g.Submit(ctx, &outboxEntry{erase: reference}); err != nil {
		if errors.Is(err, group.ErrClosed) {
			return fmt.Errorf("mail: outbox: %w", os.ErrClosed)
		}
		return err
	}
	return nil
}

// about tells whether a line of sent.log is about reference: its reference, or the left part of its
// Message-ID (the imported .eml files of unknown name have "-" for a reference).
func (l logLine) about(reference string) bool {
	return l.ref == reference || strings.HasPrefix(l.id, "<"+reference+"@")
}

// eraseRef rewrites the mbox and the log without reference's messages (see above).
func (o *Outbox) eraseRef(reference string) error {
	if o.broken != nil {
		return o.broken
	}
	logData := make([]byte, o.logSize)
	if _, err := o.log.ReadAt(logData, 0); err != nil {
		return fmt.Errorf("mail: outbox: %s: %w", SentLog, err)
	}
	var cuts []logLine // the messages to take out, in the mbox's order
	for _, l := range parseLog(logData, 0) {
		if l.positioned && l.about(reference) {
			cuts = append(cuts, l)
		}
	}
	if err := o.eraseTorn(reference); err != nil {
		return err
	}
	if len(cuts) == 0 {
		return nil
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	var newLog bytes.Buffer
	for rest := logData; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 { // the durable log ends with a newline (repair cuts a torn line); kept as it is
			newLog.Write(rest)
			break
		}
		raw := rest[:i+1]
		rest = rest[i+1:]
		ls := parseLog(raw, 0)
		if len(ls) == 0 || !ls[0].positioned {
			newLog.Write(raw)
			continue
		}
		l := ls[0]
		f := strings.Fields(string(raw))
		if l.about(reference) {
			fmt.Fprintf(&newLog, "%s %s %s erased %s", f[0], l.ref, l.id, now)
			if l.imported {
				newLog.WriteString(" import")
			}
			newLog.WriteByte('\n')
			continue
		}
		var shift int64
		for _, c := range cuts {
			if c.off < l.off {
				shift += c.n
			}
		}
		f[3] = fmt.Sprint(l.off - shift)
		newLog.WriteString(strings.Join(f, " "))
		newLog.WriteByte('\n')
	}
	mboxNew, logNew := o.Path()+erasingSuffix, filepath.Join(o.dir, SentLog)+erasingSuffix
	size, err := o.writeWithout(mboxNew, cuts)
	if err == nil {
		err = writeSynced(logNew, newLog.Bytes())
	}
	if err == nil {
		err = writeSynced(filepath.Join(o.dir, eraseCommit), nil)
	}
	if err == nil {
		err = syncDir(o.dir)
	}
	if err != nil {
		_ = os.Remove(mboxNew)
		_ = os.Remove(logNew)
		_ = os.Remove(filepath.Join(o.dir, eraseCommit))
		return fmt.Errorf("mail: outbox: erasing the messages of %s: %w", reference, err)
	}
	// Decided: from here a failure is finished by the next start, and the outbox stops until then.
	err = errors.Join(o.mbox.Close(), o.log.Close())
	o.mbox, o.log = nil, nil
	if err == nil {
		err = finishErase(o.dir)
	}
	if err == nil {
		o.mbox, err = os.OpenFile(o.Path(), os.O_RDWR|os.O_APPEND, 0o600)
	}
	if err == nil {
		o.log, err = os.OpenFile(filepath.Join(o.dir, SentLog), os.O_RDWR|os.O_APPEND, 0o600)
	}
	if err != nil {
		o.broken = fmt.Errorf("mail: outbox: the erasure of %s's messages could not be finished (%v); restart seald to finish it", reference, err)
		return o.broken
	}
	o.size, o.logSize = size, int64(newLog.Len())
	// The lines moved; the erased ones are still there, so the erased record's message is not sent again.
	sent, err := indexLog(bytes.NewReader(newLog.Bytes()), int64(newLog.Len()), o.window, o.keep)
	if err != nil {
		o.broken = err
		return err
	}
	o.sent = sent
	return nil
}

// writeWithout writes the mbox, up to its durable end, without the cut messages into path, synced, and
// returns its size.
func (o *Outbox) writeWithout(path string, cuts []logLine) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var pos, size int64
	for _, c := range append(cuts, logLine{off: o.size}) {
		n, err := io.Copy(w, io.NewSectionReader(o.mbox, pos, c.off-pos))
		size += n
		if err != nil {
			f.Close()
			return 0, err
		}
		pos = c.off + c.n
	}
	err = w.Flush()
	if err == nil {
		err = f.Sync()
	}
	return size, errors.Join(err, f.Close())
}

// writeSynced writes b into a new file at path and syncs it.
func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// finishErase completes or undoes an erasure a crash interrupted (see above); with none, it does nothing.
func finishErase(dir string) error {
	commit := filepath.Join(dir, eraseCommit)
	pairs := [][2]string{
		{filepath.Join(dir, MboxName) + erasingSuffix, filepath.Join(dir, MboxName)},
		{filepath.Join(dir, SentLog) + erasingSuffix, filepath.Join(dir, SentLog)},
		{filepath.Join(dir, TornName) + erasingSuffix, filepath.Join(dir, TornName)},
	}
	_, err := os.Stat(commit)
	decided := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	changed := false
	for _, p := range pairs[:2] {
		if _, err := os.Stat(p[0]); errors.Is(err, os.ErrNotExist) {
			continue
		}
		changed = true
		if decided {
			err = os.Rename(p[0], p[1])
		} else {
			err = os.Remove(p[0])
		}
		if err != nil {
			return err
		}
	}
	if err := os.Remove(pairs[2][0]); err == nil {
		changed = true // a rewrite of the torn file that was not renamed: never decided
	}
	if decided {
		if err := syncDir(dir); err != nil {
			return err
		}
		if err := os.Remove(commit); err != nil {
			return err
		}
		changed = true
	}
	if changed {
		return syncDir(dir)
	}
	return nil
}

// eraseTorn rewrites outbox.mbox.torn without the fragments that name reference. The file holds what repair
// cut from the end of the mbox, whole messages or their ends; it is split before each separator line.
func (o *Outbox) eraseTorn(reference string) error {
	path := filepath.Join(o.dir, TornName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && !bytes.Contains(data, []byte(reference))) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	var kept bytes.Buffer
	for len(data) > 0 {
		end := bytes.Index(data[1:], []byte("\nFrom "))
		frag := data
		if end >= 0 {
			frag = data[:end+2]
		}
		data = data[len(frag):]
		if !bytes.Contains(frag, []byte(reference)) {
			kept.Write(frag)
		}
	}
	tmp := path + erasingSuffix
	if err := writeSynced(tmp, kept.Bytes()); err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	return syncDir(o.dir)
}
