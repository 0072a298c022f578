package sqlite

import (
	"context"
	"os"

	"seald.dev/seald"
)

// Erasure on disk. Clearing a record's key in its row is not enough for an erasure that erases: SQLite
// writes the new page to the write-ahead log and leaves the old one, key and password hash included, in
// earlier frames of seald.db-wal until a checkpoint; a checkpoint copies the newest page into seald.db but
// leaves the log's bytes in place (the file is reused from its start, not cleared); and a cell a write
// deletes stays in the page's free space unless secure_delete is on. So the writer runs with
// secure_delete=ON (store.go), and every erasure is followed by a checkpoint in TRUNCATE mode, which copies
// every frame into the database file and then cuts seald.db-wal to zero bytes.
//
// A checkpoint that cannot finish (a reader still holds a snapshot older than the log's end; the busy
// timeout is waited first) leaves the log as it is and is tried again: by Scrub, which the erase job calls
// until it succeeds, and by SQLite itself when the last connection closes.

// EraseRecord erases as the shared SQL does (sqlstore.Store.EraseRecord), then scrubs the files. The erasure
// is committed whether the scrub succeeds or not; a scrub that failed is retried by the erase job (Scrub).
func (s *Store) EraseRecord(ctx context.Context, c *seald.StatusChange, jobs ...*seald.Job) (bool, error) {
	erased, err := s.Store.EraseRecord(ctx, c, jobs...)
	if err != nil || !erased {
		return erased, err
	}
	_ = s.Scrub(ctx) // the erase job tries again and reports what fails
	return true, nil
}

// scrubStats is what one scrub did, for the benchmark: the size of the log it checkpointed and truncated.
type scrubStats struct {
	walBytes int64 // the size of seald.db-wal before (pages written since the last checkpoint, 24-byte headers)
}

// Scrub checkpoints the write-ahead log into the database file and truncates it, so that no frame of a page
// as it was before an erasure is left in seald.db-wal. It is EUNAVAILABLE when a reader kept it from
// finishing.
func (s *Store) Scrub(ctx context.Context) error {
	_, err := s.scrub(ctx)
	return err
}

func (s *Store) scrub(ctx context.Context) (scrubStats, error) {
	op := "sqlite.Scrub"
	var st scrubStats
	if fi, err := os.Stat(s.path + "-wal"); err == nil {
		st.walBytes = fi.Size()
	}
	var busy, logFrames, copied int
	// On the one writer connection: no write of this process runs meanwhile, and SQLite waits for readers
	// (the busy timeout) before it gives up with busy = 1.
	if err := s.w.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &copied); err != nil {
		return st, wrap(op, err)
	}
	if busy != 0 {
		return st, seald.Errorf(seald.EUNAVAILABLE, "%s: a reader kept the write-ahead log from being checkpointed and truncated (%d of %d frames copied); it is tried again", op, copied, logFrames)
	}
	return st, nil
}
