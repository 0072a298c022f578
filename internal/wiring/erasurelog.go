package wiring

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"seald.dev/seald"
)

// ErasureLogFile is the erasure log's name in the data dir.
const ErasureLogFile = "erasures.log"

// ErasureLog is the erasure log kept in the data dir, beside the secrets and outside the database, so that
// restoring a database backup does not bring back erased data keys: serve replays it at start. Each line
// is "<RFC 3339 time> <reference>"; the file is appended to and synced before the erasure is committed.
// It holds references only (never data or reasons), which the database's backups hold anyway.
type ErasureLog struct {
	path string
	mu   sync.Mutex
}

var _ seald.ErasureLog = (*ErasureLog)(nil)

// OpenErasureLog returns the erasure log of a data dir; the file is created at the first erasure.
func OpenErasureLog(dataDir string) *ErasureLog {
	return &ErasureLog{path: filepath.Join(dataDir, ErasureLogFile)}
}

// Append adds a line for reference and syncs it.
func (l *ErasureLog) Append(ctx context.Context, reference string, at time.Time) error {
	if strings.ContainsAny(reference, " \n\r") {
		return fmt.Errorf("erasure log: reference %q has a space or line break", reference)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := os.Stat(l.path)
	created := errors.Is(err, os.ErrNotExist)
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("%s %s\n", at.UTC().Format(time.RFC3339Nano), reference)
	// A crash in an earlier append may have left a torn last line: this one starts on a line of its own
	// rather than merging with it.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			line = "\n" + line
		}
	}
	_, err = f.WriteString(line)
	if err == nil {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close())
	if err == nil && created {
		// The file's name must be durable too, or a crash could lose the whole log with its entry.
		err = syncDir(filepath.Dir(l.path))
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// References returns the references of every whole line, oldest first; a torn last line (a crash while it
// was written, before the erasure it announced was committed) is skipped, and Append starts the next line
// after it.
func (l *ErasureLog) References(ctx context.Context) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.Open(l.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var refs []string
	seen := map[string]bool{}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			break // EOF: a last line without its newline is torn
		}
		// The reference is the line's last field: a line written by an earlier version after a torn one is
		// merged with it ("<time> <torn reference><time> <reference>"), and its own reference is last.
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		ref := f[len(f)-1]
		if seen[ref] {
			continue
		}
		seen[ref] = true
		refs = append(refs, ref)
	}
	return refs, nil
}
