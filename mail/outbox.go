package mail

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"seald"
)

var _ seald.Mailer = (*Outbox)(nil)

// Outbox is the embedded default Mailer (--smtp outbox): instead of sending, it writes each message as an RFC
// 5322 .eml file into a directory, so one machine runs the whole pipeline with no mail server, and an operator
// can read, forward or replay what would have been sent.
//
// The file is named after the record's reference (<reference>.eml), so sending the same record again
// overwrites its one file instead of adding a second: the outbox holds at most one message per record, the
// latest. Each write is atomic (a temporary file in the same directory, fsync, rename, fsync of the
// directory): a reader or a crash sees the old file or the new one, never half of one. The directory is 0700
// and the files 0600, since the messages carry recipients' addresses.
//
// Every Send also appends a line to <dir>/sent.log ("<RFC 3339 time> <reference> <Message-ID>"), which is
// never rewritten: the .eml files say what the latest message of each record is, the log says how many times
// one was sent, so a message sent twice (after a crash between the send and its record's save, as with SMTP)
// shows. Lines are appended with O_APPEND and the log's fsyncs are shared the same way.
//
// Send returns only when its message is durable, but concurrent Sends share the directory's fsync: each
// writes and fsyncs its own file and renames it into place, then waits for one fsync of the directory that
// began after its rename (dirSync), so a burst of messages costs one directory flush rather than one each.
type Outbox struct {
	dir  string
	c    *composer
	sync dirSync

	logOnce sync.Once
	log     *os.File // sent.log, opened on the first Send
	logErr  error
	logSync dirSync // shared fsyncs of log
}

// SentLog is the name of the outbox's append-only log of sends.
const SentLog = "sent.log"

// NewOutbox returns an Outbox writing into dir (created on first use) with the sender from (--mail-from,
// optionally with a display name).
func NewOutbox(dir, from string) (*Outbox, error) {
	if dir == "" {
		return nil, seald.Errorf(seald.EINVALID, "mail: outbox directory is required")
	}
	c, err := newComposer(from)
	if err != nil {
		return nil, err
	}
	o := &Outbox{dir: dir, c: c}
	o.sync.fsync = func() error { return syncDir(dir) }
	return o, nil
}

// Dir returns the directory the messages are written to.
func (o *Outbox) Dir() string { return o.dir }

// Send writes the message of m to <dir>/<reference>.eml, replacing an earlier message of the same record, and
// returns its Message-ID. A fault in m is EINVALID and permanent; a fault of the file system is not.
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
	if err := o.write(m.Reference+".eml", buf.Bytes()); err != nil {
		return "", err
	}
	if err := o.logSend(m.Reference, b.messageID); err != nil {
		return "", err
	}
	return b.messageID, nil
}

// logSend appends a send to sent.log and returns once it is durable. One write call per line on an O_APPEND
// file keeps concurrent lines whole.
func (o *Outbox) logSend(reference, messageID string) error {
	o.logOnce.Do(func() {
		o.log, o.logErr = os.OpenFile(filepath.Join(o.dir, SentLog), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if o.logErr == nil {
			o.logSync.fsync = o.log.Sync
		}
	})
	if o.logErr != nil {
		return fmt.Errorf("mail: outbox: %w", o.logErr)
	}
	line := time.Now().UTC().Format(time.RFC3339Nano) + " " + reference + " " + messageID + "\n"
	if _, err := o.log.WriteString(line); err != nil {
		return fmt.Errorf("mail: outbox: %s: %w", SentLog, err)
	}
	return o.logSync.after()
}

// Close closes the send log; a Send after Close fails.
func (o *Outbox) Close() error {
	o.logOnce.Do(func() { o.logErr = os.ErrClosed })
	if o.log == nil {
		return nil
	}
	return o.log.Close()
}

// Sends counts the lines of the send log by reference: how many times a message of each record was sent.
func (o *Outbox) Sends() (map[string]int, error) { return Sends(o.dir) }

// Sends counts the lines of the send log of the outbox in dir by reference.
func Sends(dir string) (map[string]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, SentLog))
	if os.IsNotExist(err) {
		return map[string]int{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail: outbox: %w", err)
	}
	n := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			n[f[1]]++
		}
	}
	return n, nil
}

// write replaces dir/name atomically with data.
func (o *Outbox) write(name string, data []byte) (err error) {
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	f, err := os.CreateTemp(o.dir, ".tmp-*.eml") // CreateTemp makes the file 0600
	if err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("mail: outbox: write %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("mail: outbox: sync %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("mail: outbox: close %s: %w", name, err)
	}
	if err := os.Rename(tmp, filepath.Join(o.dir, name)); err != nil {
		return fmt.Errorf("mail: outbox: %w", err)
	}
	// The rename is durable only once the directory entry is on disk.
	return o.sync.after()
}

// dirSync shares fsyncs of one directory between concurrent writers. A writer that has renamed its file
// into the directory calls after, which returns once an fsync that began after the call has ended: that
// fsync covers the writer's rename. One writer runs each fsync while the others wait; writers arriving
// during it are all served by the next one, so the number of fsyncs follows the number of bursts, not of
// messages. The same idea as the group puts of package ipfs, but a directory needs no queue or goroutine of
// its own: a mutex, a condition and two counters. Written by hand because it is that small and no library
// offers a shared fsync.
type dirSync struct {
	fsync func() error // the fsync of the directory; a field so that tests can count or fail it

	mu      sync.Mutex
	cond    *sync.Cond
	running bool   // an fsync is in progress
	started uint64 // number of fsyncs begun
	ended   uint64 // number of fsyncs ended (they run one at a time, so in order)
	failed  uint64 // number of the last fsync that failed; 0 for none
	err     error  // its error
	waiting int    // writers waiting in after, for tests
}

// after returns once an fsync of the directory that began after this call has ended, with its error, or
// the error of any later fsync that failed (conservative: after a failed fsync, the state of the directory's
// entries is unknown).
func (d *dirSync) after() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cond == nil {
		d.cond = sync.NewCond(&d.mu)
	}
	want := d.started + 1 // the first fsync to begin from now on
	d.waiting++
	defer func() { d.waiting-- }()
	for d.ended < want {
		if d.running {
			d.cond.Wait()
			continue
		}
		d.running = true
		d.started++
		n := d.started
		d.mu.Unlock()
		err := d.fsync()
		d.mu.Lock()
		d.running, d.ended = false, n
		if err != nil {
			d.failed, d.err = n, err
		}
		d.cond.Broadcast()
	}
	if d.failed >= want {
		return d.err
	}
	return nil
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

// Messages returns the paths of the messages in the outbox, sorted by name (that is, by reference); temporary
// files of writes in progress are left out. An outbox that was never written to is empty, not an error. It is
// meant for tests and for the CLI, which show what the service would have sent.
func (o *Outbox) Messages() ([]string, error) {
	entries, err := os.ReadDir(o.dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail: outbox: %w", err)
	}
	var paths []string
	for _, e := range entries {
		name := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(name, ".eml") && !strings.HasPrefix(name, ".") {
			paths = append(paths, filepath.Join(o.dir, name))
		}
	}
	sort.Strings(paths)
	return paths, nil
}

// Path returns where the message of the record with this reference is, or would be, written.
func (o *Outbox) Path(reference string) (string, error) {
	if err := checkReference(reference); err != nil {
		return "", err
	}
	return filepath.Join(o.dir, reference+".eml"), nil
}
