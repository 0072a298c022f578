package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// Checkpoints off the writer. In WAL mode a commit appends pages to seald.db-wal, and a checkpoint copies
// them back into seald.db (and fsyncs it) so that the log can start again from its beginning. SQLite runs
// it in the connection whose commit took the log past wal_autocheckpoint pages (1000 by default), inside
// that commit: with one writer, every group of the group commit behind it waited for the copy and its fsync
// (a sixth of the writer's time under the intake load). Instead a checkpointer, on a connection of its
// own, runs a PASSIVE checkpoint each time checkpointEvery writes have committed; a checkpoint does not
// block the writer, which keeps appending meanwhile.
//
// It changes nothing of durability: a write is durable once its commit has fsynced the log, before and
// after; a checkpoint only copies committed pages, fsyncing the log before it copies and the database
// file before the log may be reused (synchronous=FULL on its connection too). The writer keeps its own
// automatic checkpoint, at backstopPages: a passive checkpoint leaves the frames committed while it ran,
// so under a steady load the log is only ever completely copied (and started again) by the writer, whose
// own checkpoint then has only those last frames left to copy; and should the checkpointer fall behind,
// the log still stays bounded.

// backstopPages is the writer's wal_autocheckpoint: the log's length, in pages, past which the writer
// checkpoints itself.
const backstopPages = 4000

// checkpointEvery is how many committed writes wake the checkpointer: an accepted record dirties about
// six pages (the record, its payload and its job, and their indexes), so about SQLite's default of 1000
// pages between checkpoints.
const checkpointEvery = 160

// checkpointer runs the passive checkpoints of a Store on a connection of its own.
type checkpointer struct {
	db      *sql.DB
	pending atomic.Int64 // writes committed since the last wake-up
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	runs    atomic.Int64 // checkpoints run, for tests
}

// newCheckpointer starts the checkpointer of db, a pool of one connection to the Store's file.
func newCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

// committed counts n writes just committed, waking the checkpointer every checkpointEvery.
func (c *checkpointer) committed(n int) {
	if c.pending.Add(int64(n)) < checkpointEvery {
		return
	}
	c.pending.Store(0)
	select {
	case c.wake <- struct{}{}:
	default: // already due to run
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.wake:
		}
		// A checkpoint that fails (the file is busy with another process's checkpoint) leaves its frames in
		// the log for the next one, or for the writer's.
		var busy, frames, copied int
		_ = c.db.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
		c.runs.Add(1)
	}
}

// close stops the checkpointer and closes its connection. It may be called more than once.
func (c *checkpointer) close() error {
	var err error
	c.once.Do(func() {
		close(c.stop)
		<-c.done
		err = c.db.Close()
	})
	return err
}
