package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/group"
)

var _ seald.Mailer = (*Outbox)(nil)

// Outbox is the embedded default Mailer (--smtp outbox): instead of sending, it appends each message to one
// mbox file, <dir>/outbox.mbox, so one machine runs the whole pipeline with no mail server, and an operator
// opens what would have been sent with any mail tool (mutt -R -f, mail -f, Thunderbird's import).
//
// Why mbox: one file for all messages, so a message costs an append, not a file creation (the outbox used
// to write one .eml file per message, and creating those files was where its CPU went); and it is the one
// multi-message format that every mail tool opens. Maildir is a file per message again. The dialect is
// mboxrd (see mbox.go), whose quoting a reader undoes exactly.
//
// The mbox is the record of what was sent, each record's message once: a Send of a reference whose message
// is in the outbox already (the pipeline sends again after a crash between the send and its record's save)
// writes nothing and returns the Message-ID of the message there (outbox_sent.go). Send returns only once
// its message is durable, but concurrent Sends share the fsyncs: they queue, and one goroutine appends all
// the queued messages at once and syncs them together (package group), so a burst of messages costs one
// flush rather than one each.
//
// Beside the mbox, <dir>/sent.log gets a line per message ("<RFC 3339 time> <reference> <Message-ID>
// <offset> <length> <CRC-32C>"), written after the message and synced with it. It counts the sends (Sends)
// and it says where each durable message ends, which is what repair needs: a crash in the middle of an
// append leaves at most a torn last group, and the next start (Recover) cuts the mbox back to the end of the
// last message whose line is whole and whose bytes match its checksum. What it cuts is kept aside in
// <dir>/outbox.mbox.torn rather than destroyed; none of it was acknowledged to a caller, who sends again.
// The lines are also what makes a send exactly once: a reference with a line is not written again.
//
// An outbox written by an earlier version of seald holds one <reference>.eml file per record: the first
// start appends each to the mbox (with a sent.log line marked "import", which Sends does not count: the old
// lines already counted those sends), syncs, then removes the file. A crash in between is harmless: a file
// whose Message-ID an import line already names is only removed.
//
// The directory is 0700 and the files 0600, since the messages carry recipients' addresses. Open the mbox
// read-only or a copy of it: a mail tool that rewrites it (to mark messages read) changes the bytes that
// sent.log's checksums describe, and repair would then set them aside.
type Outbox struct {
	// Crash, when set, is called with the name of each crash point of an append (seald.CrashAfterMailAppend,
	// seald.CrashAfterMailLog) as it is passed; the crash tests stop the process there. Set it before the
	// first Send.
	Crash func(point string)

	dir      string
	c        *composer
	maxGroup int

	mu     sync.Mutex // guards g and closed, and the opening of the files
	g      *group.Committer[*outboxEntry]
	closed bool

	// Owned by the committer's one worker once the outbox is open.
	mbox, log     *os.File
	size, logSize int64           // the durable lengths of both files
	imported      map[string]bool // Message-IDs of the imported .eml files
	sent          *sentIndex      // the lines of sent.log by reference (outbox_sent.go)
	window        int             // the bounds of sent: sentWindow lines and sentKeep, but in tests
	keep          time.Duration
	broken        error // set when a failed append could not be undone
	syncFiles     func(files ...*os.File) error
}

// The files of the outbox directory.
const (
	// MboxName is the mbox of every message sent.
	MboxName = "outbox.mbox"
	// SentLog is the log of sends, a line per message of the mbox.
	SentLog = "sent.log"
	// TornName is where repair keeps the bytes it cut from the end of the mbox.
	TornName = "outbox.mbox.torn"
)

// defaultOutboxGroup bounds the messages of one append.
const defaultOutboxGroup = 256

// NewOutbox returns an Outbox writing into dir (created on first use) with the sender from (--mail-from,
// optionally with a display name). It touches no file: Recover, or the first Send, opens the outbox.
func NewOutbox(dir, from string) (*Outbox, error) {
	if dir == "" {
		return nil, seald.Errorf(seald.EINVALID, "mail: outbox directory is required")
	}
	c, err := newComposer(from)
	if err != nil {
		return nil, err
	}
	return &Outbox{dir: dir, c: c, maxGroup: defaultOutboxGroup, syncFiles: syncFiles, window: sentWindow, keep: sentKeep}, nil
}

// Dir returns the directory of the outbox.
func (o *Outbox) Dir() string { return o.dir }

// Path returns the path of the mbox.
func (o *Outbox) Path() string { return filepath.Join(o.dir, MboxName) }

// outboxEntry is one message on its way into the mbox.
type outboxEntry struct {
	ref, id  string    // reference and Message-ID, for sent.log
	since    time.Time // when the record was accepted (seald.Mail.Since), for the look-up of an earlier send
	data     []byte    // the message as the mbox holds it (mboxEntry)
	sum      uint32    // CRC-32C of data
	imported bool      // an .eml file of an earlier version, not a send
	erase    string    // not a message: the reference whose messages to erase (outbox_erase.go)
	// sentAs is set by the committer when the reference's message was in the outbox already and this one
	// was not written: the Message-ID of the message there.
	sentAs string
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func newEntry(ref, id, sender string, date time.Time, msg []byte, imported bool) *outboxEntry {
	data := mboxEntry(sender, date, msg)
	return &outboxEntry{ref: ref, id: id, data: data, sum: crc32.Checksum(data, castagnoli), imported: imported}
}

// Send appends the message of m to the mbox and returns its Message-ID once the message is durable. When the
// outbox holds a message of m's reference already (sent before a crash, or by a Send whose caller could
// not save it), Send writes nothing and returns that message's Message-ID: each record's message is in the
// outbox once. A fault in m is EINVALID and permanent; a fault of the file system is not.
func (o *Outbox) Send(ctx context.Context, m *seald.Mail) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	b, err := o.c.compose(m)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if _, err := b.msg.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("mail: outbox: render %s: %w", m.Reference, err)
	}
	g, err := o.open()
	if err != nil {
		return "", err
	}
	// The caller renders and checksums its own message, so that this work is spread over the callers; the
	// committer only writes and syncs.
	e := newEntry(m.Reference, b.messageID, o.c.from.Address, o.c.now(), buf.Bytes(), false)
	e.since = m.Since
	if err := g.Submit(ctx, e); err != nil {
		if errors.Is(err, group.ErrClosed) {
			return "", fmt.Errorf("mail: outbox: %w", os.ErrClosed)
		}
		return "", err
	}
	if e.sentAs != "" {
		return e.sentAs, nil
	}
	return b.messageID, nil
}

// Recover opens the outbox: it creates the directory and files, repairs a torn end of the mbox, and appends
// the .eml files of an earlier version. The first Send does it too; seald serve calls it at start so that
// a fault shows at once. Until it succeeds, every Send tries again.
func (o *Outbox) Recover() error {
	_, err := o.open()
	return err
}

func (o *Outbox) open() (*group.Committer[*outboxEntry], error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil, fmt.Errorf("mail: outbox: %w", os.ErrClosed)
	}
	if o.g != nil {
		return o.g, nil
	}
	if err := o.recover(); err != nil {
		for _, f := range []*os.File{o.mbox, o.log} {
			if f != nil {
				_ = f.Close()
			}
		}
		o.mbox, o.log = nil, nil
		return nil, err
	}
	o.g = group.New(o.maxGroup, 1, o.commit, nil)
	return o.g, nil
}

// Close waits for the queued messages to be written and closes the files; a Send after Close fails.
func (o *Outbox) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.closed = true
	if o.g == nil {
		return nil
	}
	o.g.Close()
	return errors.Join(o.mbox.Close(), o.log.Close())
}

// commit appends one group of messages; each gets the group's outcome, since what fails (a write or a sync
// of the file) is the file's, not one message's.
func (o *Outbox) commit(batch []*outboxEntry) []error {
	errs := make([]error, len(batch))
	for start := 0; start < len(batch); {
		if ref := batch[start].erase; ref != "" {
			errs[start] = o.eraseRef(ref)
			start++
			continue
		}
		end := start
		for end < len(batch) && batch[end].erase == "" {
			end++
		}
		err := o.append(batch[start:end])
		for i := start; i < end; i++ {
			errs[i] = err
		}
		start = end
	}
	return errs
}

// append writes the messages to the mbox, then their lines to sent.log, and syncs both. A message of a
// reference the outbox has a line about, or one that comes earlier in the batch, is not written (its
// sentAs says which message stands for it). On failure it cuts both files back to their lengths before,
// so that a message whose Send failed is not left behind to be counted; when even that fails, the outbox
// refuses further appends until a restart repairs it.
func (o *Outbox) append(batch []*outboxEntry) error {
	if o.broken != nil {
		return o.broken
	}
	write := make([]*outboxEntry, 0, len(batch))
	var first map[string]*outboxEntry // the batch's first message of each reference
	for _, e := range batch {
		if e.imported { // history of an earlier version: kept as it is
			write = append(write, e)
			continue
		}
		id, ok, err := o.sentID(e.ref, e.since)
		if err != nil {
			return err
		}
		if !ok && first[e.ref] != nil {
			id, ok = first[e.ref].id, true
		}
		if ok {
			e.sentAs = id
			continue
		}
		if first == nil {
			first = map[string]*outboxEntry{}
		}
		first[e.ref] = e
		write = append(write, e)
	}
	if len(write) == 0 {
		return nil
	}
	var data, lines bytes.Buffer
	at := time.Now().UTC()
	now := at.Format(time.RFC3339Nano)
	off := o.size
	starts := make([]int64, len(write)) // where each line starts in the log
	for i, e := range write {
		starts[i] = o.logSize + int64(lines.Len())
		data.Write(e.data)
		fmt.Fprintf(&lines, "%s %s %s %d %d %08x", now, e.ref, e.id, off, len(e.data), e.sum)
		if e.imported {
			lines.WriteString(" import")
		}
		lines.WriteByte('\n')
		off += int64(len(e.data))
	}
	err := writeAll(o.mbox, data.Bytes())
	if err == nil {
		o.crash(seald.CrashAfterMailAppend)
		err = writeAll(o.log, lines.Bytes())
	}
	if err == nil {
		o.crash(seald.CrashAfterMailLog)
		err = o.syncFiles(o.mbox, o.log)
	}
	if err != nil {
		err = fmt.Errorf("mail: outbox: appending %d messages: %w", len(write), err)
		if uerr := o.cut(o.size, o.logSize); uerr != nil {
			o.broken = fmt.Errorf("mail: outbox: a failed append could not be undone (%v); restart seald to repair the outbox: %w", uerr, err)
		}
		return err
	}
	o.size, o.logSize = off, o.logSize+int64(lines.Len())
	for i, e := range write {
		if e.imported && o.imported != nil {
			o.imported[e.id] = true
		}
		if ref := e.ref; ref != "-" {
			o.sent.add([]byte(ref), starts[i], at)
		} else if ref := referenceOf(e.id); ref != "" {
			o.sent.add([]byte(ref), starts[i], at)
		}
	}
	return nil
}

// crash passes the crash point named point (see Crash).
func (o *Outbox) crash(point string) {
	if o.Crash != nil {
		o.Crash(point)
	}
}

func writeAll(f *os.File, b []byte) error {
	_, err := f.Write(b) // os.File.Write loops until all is written or an error
	return err
}

// cut truncates the mbox and the log to the given lengths and syncs them.
func (o *Outbox) cut(size, logSize int64) error {
	return errors.Join(o.mbox.Truncate(size), o.log.Truncate(logSize), o.syncFiles(o.mbox, o.log))
}

// syncFiles fsyncs files concurrently, so that the file system can commit them in one journal transaction.
func syncFiles(files ...*os.File) error {
	errs := make(chan error, len(files))
	for _, f := range files {
		go func() { errs <- f.Sync() }()
	}
	var err error
	for range files {
		err = errors.Join(err, <-errs)
	}
	return err
}

// syncDir flushes a directory's entries to disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("mail: outbox: sync directory: %w", err)
	}
	return nil
}

// logLine is one whole line of sent.log.
type logLine struct {
	start, end int64     // the line's bytes in the log, newline included
	at         time.Time // when it was written (zero when its time does not parse)
	ref, id    string
	positioned bool  // a line of the mbox outbox; the lines of the .eml outbox have no position
	off, n     int64 // the message's bytes in the mbox
	sum        uint32
	imported   bool
	erased     bool // the message was erased from the mbox (outbox_erase.go); it still counts as a send
}

// parseLog reads the whole lines of b, which starts at offset base of sent.log; a last line without its
// newline is torn and left out.
func parseLog(b []byte, base int64) []logLine {
	var out []logLine
	pos := base
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return out
		}
		line := logLine{start: pos, end: pos + int64(i) + 1}
		f := strings.Fields(string(b[:i]))
		b, pos = b[i+1:], line.end
		if len(f) < 3 {
			continue
		}
		line.ref, line.id = f[1], f[2]
		line.at, _ = time.Parse(time.RFC3339Nano, f[0])
		if len(f) >= 4 && f[3] == "erased" {
			line.erased, line.imported = true, len(f) >= 6 && f[5] == "import"
		} else if len(f) >= 6 {
			off, err1 := strconv.ParseInt(f[3], 10, 64)
			n, err2 := strconv.ParseInt(f[4], 10, 64)
			sum, err3 := strconv.ParseUint(f[5], 16, 32)
			if err1 == nil && err2 == nil && err3 == nil && off >= 0 && n > 0 {
				line.positioned, line.off, line.n, line.sum = true, off, n, uint32(sum)
			}
			line.imported = len(f) >= 7 && f[6] == "import"
		}
		out = append(out, line)
	}
}

// Sends counts the lines of the send log by reference: how many times a message of each record was sent.
func (o *Outbox) Sends() (map[string]int, error) { return Sends(o.dir) }

// Sends counts the sends of each reference in the outbox in dir, from its send log. Imported .eml files
// are not sends (the lines of the version that sent them count those).
func Sends(dir string) (map[string]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, SentLog))
	if os.IsNotExist(err) {
		return map[string]int{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail: outbox: %w", err)
	}
	n := map[string]int{}
	for _, l := range parseLog(b, 0) {
		if !l.imported {
			n[l.ref]++
		}
	}
	return n, nil
}

// Messages returns the messages of the mbox, in the order they were written.
func (o *Outbox) Messages() ([]Message, error) { return Messages(o.dir) }

// Messages returns the messages of the outbox in dir whose append has completed, in order: the log is
// read first, and a message is returned only when a line of it says where the message ends, so that a
// reader never sees the half of a message being appended. An outbox that was never written to is empty,
// not an error. It is meant for tests and tools; mail programs read the mbox itself.
func Messages(dir string) ([]Message, error) {
	logData, err := os.ReadFile(filepath.Join(dir, SentLog))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail: outbox: %w", err)
	}
	var end int64
	for _, l := range parseLog(logData, 0) {
		if l.positioned {
			end = max(end, l.off+l.n)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, MboxName))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail: outbox: %w", err)
	}
	return ReadMbox(data[:min(end, int64(len(data)))])
}
