package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"seald.dev/seald"
	"seald.dev/seald/jcs"
	"seald.dev/seald/postgres"
	"seald.dev/seald/sqlite"
)

// OpenStore opens the store a config names: PostgreSQL for a postgres:// URL, else SQLite at a path
// (default <data-dir>/seald.db), creating the data dir.
func OpenStore(ctx context.Context, cfg *Config) (seald.Store, error) {
	spec := cfg.DatabaseSpec()
	if cfg.UsesPostgres() {
		return postgres.Open(ctx, spec)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, err
	}
	if err := privateFile(spec); err != nil {
		return nil, err
	}
	return sqlite.Open(ctx, spec)
}

// privateFile creates the SQLite database file 0600 before SQLite does (which would make it 0644 under the
// usual umask), or takes group and other access away from an existing one: it holds payloads until they
// are stored, password hashes and sealed subscription keys. SQLite gives its -wal and -shm files the mode
// of the database file. A file: URI or :memory: is left to SQLite.
func privateFile(path string) error {
	if strings.HasPrefix(path, "file:") || strings.HasPrefix(path, ":memory:") {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("database file: %w", err)
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(path, fi.Mode().Perm()&0o700)
	}
	return nil
}

// CanonicalizeData is the service's canonicalizer: RFC 8785 over I-JSON (RFC 7493: no integer beyond
// ±(2^53−1), no noncharacter), with error paths rooted at "data".
func CanonicalizeData(b []byte) ([]byte, error) { return jcs.CanonicalizeIJSON(b, "data") }

// CloseList closes the parts in the reverse order of opening.
type CloseList struct {
	names []string
	fns   []func() error
}

// Add registers a part to close, by name for the log.
func (c *CloseList) Add(name string, fn func() error) {
	c.names = append(c.names, name)
	c.fns = append(c.fns, fn)
}

// CloseAll closes every part, the last added first, logs each failure and returns them all; every part is
// closed even when one fails.
func (c *CloseList) CloseAll(logger *slog.Logger) error {
	var errs []error
	for i := len(c.fns) - 1; i >= 0; i-- {
		if err := c.fns[i](); err != nil {
			logger.Warn("close", "part", c.names[i], "err", err)
			errs = append(errs, fmt.Errorf("close %s: %w", c.names[i], err))
		}
	}
	c.names, c.fns = nil, nil
	return errors.Join(errs...)
}
