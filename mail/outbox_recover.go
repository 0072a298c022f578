package mail

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/mail"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// recover opens the files of the outbox, repairs the mbox and imports the .eml files of an earlier version.
// It runs once, under o.mu, before the committer starts.
func (o *Outbox) recover() error {
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	// An erasure a crash interrupted is finished or undone before the files are opened.
	if err := finishErase(o.dir); err != nil {
		return fmt.Errorf("mail: outbox: finishing an erasure: %w", err)
	}
	var err error
	// O_APPEND: every write lands at the end, which is where append expects it after a repair's truncation.
	if o.mbox, err = os.OpenFile(filepath.Join(o.dir, MboxName), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600); err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	if o.log, err = os.OpenFile(filepath.Join(o.dir, SentLog), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600); err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	// The files' names must be durable before anything in them is acknowledged.
	if err := syncDir(o.dir); err != nil {
		return err
	}
	if err := o.repair(); err != nil {
		return err
	}
	// What repair kept is what the index will say was sent; a crash before the last append's sync may have
	// left it in the page cache only, so it is made durable before anything is decided by it.
	if err := o.syncFiles(o.mbox, o.log); err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	if o.sent, err = indexLog(o.log, o.logSize, o.window, o.keep); err != nil {
		return err
	}
	return o.importEML()
}

// repair makes the mbox end where the last message that sent.log describes, whole and unchanged, ends:
// appends write the mbox before the log, and a Send is acknowledged only once both are synced, so what lies
// beyond (a torn message, or messages whose lines were not written) was never acknowledged. It walks sent.log
// back from its end to the last line whose message is in the mbox with its checksum, drops the lines after
// it and cuts the mbox after its message, keeping the cut bytes in TornName. Only the end of the log is
// read, a window that grows until it holds such a line, since the log grows with every message sent.
func (o *Outbox) repair() error {
	size, err := fileSize(o.mbox)
	if err != nil {
		return err
	}
	logSize, err := fileSize(o.log)
	if err != nil {
		return err
	}
	var end, logEnd int64 // the mbox and the log are kept up to here
	for window := int64(64 << 10); ; window *= 4 {
		start := max(0, logSize-window)
		b := make([]byte, logSize-start)
		if _, err := o.log.ReadAt(b, start); err != nil {
			return fmt.Errorf("mail: outbox: %s: %w", SentLog, err)
		}
		if start > 0 { // the window's first line may be cut: it starts after the first newline
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				continue
			}
			b, start = b[i+1:], start+int64(i)+1
		}
		lines := parseLog(b, start)
		end, logEnd = 0, start
		if len(lines) > 0 {
			logEnd = lines[len(lines)-1].end // a torn last line goes
		}
		found := false
		for i := len(lines) - 1; i >= 0 && !found; i-- {
			l := lines[i]
			if !l.positioned {
				continue // a line of the .eml outbox, before any of the mbox's
			}
			if found = o.holds(l, size); found {
				end = l.off + l.n
			} else {
				logEnd = l.start
			}
		}
		if found || start == 0 {
			break
		}
	}
	if size > end {
		if err := o.setAside(end, size); err != nil {
			return err
		}
	}
	if size > end || logEnd < logSize {
		if err := o.cut(end, logEnd); err != nil {
			return fmt.Errorf("mail: outbox: repair: %w", err)
		}
	}
	o.size, o.logSize = end, logEnd
	return nil
}

func fileSize(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("mail: outbox: %w", err)
	}
	return fi.Size(), nil
}

// readImported collects the Message-IDs that import lines of sent.log name. It reads the whole log, and so
// runs only when there are .eml files to import.
func (o *Outbox) readImported() error {
	b := make([]byte, o.logSize)
	if _, err := o.log.ReadAt(b, 0); err != nil {
		return fmt.Errorf("mail: outbox: %s: %w", SentLog, err)
	}
	o.imported = map[string]bool{}
	for _, l := range parseLog(b, 0) {
		if l.imported {
			o.imported[l.id] = true
		}
	}
	return nil
}

// holds tells whether the mbox, of size bytes, holds the message of l unchanged.
func (o *Outbox) holds(l logLine, size int64) bool {
	if l.off+l.n > size {
		return false
	}
	b := make([]byte, l.n)
	if _, err := o.mbox.ReadAt(b, l.off); err != nil {
		return false
	}
	return crc32.Checksum(b, castagnoli) == l.sum
}

// setAside appends the mbox's bytes from..to to TornName and syncs it.
func (o *Outbox) setAside(from, to int64) error {
	f, err := os.OpenFile(filepath.Join(o.dir, TornName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("mail: outbox: repair: %w", err)
	}
	_, err = io.Copy(f, io.NewSectionReader(o.mbox, from, to-from))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(o.dir)
	}
	if err != nil {
		return fmt.Errorf("mail: outbox: repair: %w", err)
	}
	return nil
}

// emlGroup bounds how many .eml files one import appends, and so holds in memory, at a time.
const emlGroup = 256

// importEML appends the <reference>.eml files that the outbox of an earlier version wrote, oldest first,
// then removes them: each group is appended and synced before its files go, and a file whose Message-ID
// an import line already names (a crash came between the two) is only removed. The temporary files of that
// version's unfinished writes were never acknowledged and are removed.
func (o *Outbox) importEML() error {
	entries, err := os.ReadDir(o.dir)
	if err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	type eml struct {
		name string
		mod  time.Time
	}
	var files []eml
	var litter []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".eml") {
			continue
		}
		if strings.HasPrefix(name, ".") {
			litter = append(litter, name)
			continue
		}
		fi, err := e.Info()
		if err != nil {
			return fmt.Errorf("mail: outbox: %w", err)
		}
		files = append(files, eml{name, fi.ModTime()})
	}
	if len(files) == 0 && len(litter) == 0 {
		return nil
	}
	if err := o.readImported(); err != nil {
		return err
	}
	sort.Slice(files, func(i, j int) bool {
		if !files[i].mod.Equal(files[j].mod) {
			return files[i].mod.Before(files[j].mod)
		}
		return files[i].name < files[j].name
	})
	for len(files) > 0 {
		n := min(len(files), emlGroup)
		var batch []*outboxEntry
		for _, f := range files[:n] {
			e, err := o.emlEntry(f.name, f.mod)
			if err != nil {
				return err
			}
			if e != nil {
				batch = append(batch, e)
			}
		}
		if len(batch) > 0 {
			if err := o.append(batch); err != nil {
				return err
			}
		}
		for _, f := range files[:n] {
			if err := os.Remove(filepath.Join(o.dir, f.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("mail: outbox: %w", err)
			}
		}
		files = files[n:]
	}
	for _, name := range litter {
		if err := os.Remove(filepath.Join(o.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("mail: outbox: %w", err)
		}
	}
	return syncDir(o.dir)
}

// emlEntry reads an .eml file into an entry to import, or nil when it is imported already. The separator
// line names the message's sender and the file's time, when the message was written.
func (o *Outbox) emlEntry(name string, mod time.Time) (*outboxEntry, error) {
	data, err := os.ReadFile(filepath.Join(o.dir, name))
	if err != nil {
		return nil, fmt.Errorf("mail: outbox: %w", err)
	}
	id, sender := "-", ""
	if m, err := mail.ReadMessage(bytes.NewReader(data)); err == nil {
		if v := strings.TrimSpace(m.Header.Get("Message-Id")); v != "" && !strings.ContainsAny(v, " \t") {
			id = v
		}
		if a, err := mail.ParseAddress(m.Header.Get("From")); err == nil {
			sender = a.Address
		}
	}
	if id != "-" && o.imported[id] {
		return nil, nil
	}
	ref := strings.TrimSuffix(name, ".eml")
	if checkReference(ref) != nil {
		ref = "-" // not a file seald named; imported all the same
	}
	return newEntry(ref, id, sender, mod, data, true), nil
}
