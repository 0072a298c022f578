package ipfs

import (
	"context"
	"testing"

	"github.com/ipfs/go-cid"
)

// SetStoredBlock overwrites the bytes stored for block c, or deletes them when data is nil, so that tests can
// see what reads do with a block that rotted or was lost.
func SetStoredBlock(t testing.TB, e *Embedded, c cid.Cid, data []byte) {
	t.Helper()
	var err error
	if data == nil {
		err = e.db.Delete(context.Background(), blockKey(c))
	} else {
		err = e.db.Put(context.Background(), blockKey(c), data)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// FailMigrationAfter makes the migration of a flatfs store fail once it has copied n records into pebble
// (committed, as a crash after a batch would leave them), until the test ends.
func FailMigrationAfter(t testing.TB, n int) {
	migrateFault = func(copied int) bool { return copied >= n }
	t.Cleanup(func() { migrateFault = nil })
}

// SetMigrateBatchBytes makes the migration commit a batch every time it holds n bytes, until the test ends.
func SetMigrateBatchBytes(t testing.TB, n int) {
	old := migrateBatchBytes
	migrateBatchBytes = n
	t.Cleanup(func() { migrateBatchBytes = old })
}

// WrittenBytes returns the bytes pebble has written since the store was opened: into tables, by flushes and
// compactions (blob files included), and into its write-ahead log.
func WrittenBytes(e *Embedded) (tables, wal uint64) {
	m := e.db.DB.Metrics()
	for _, l := range m.Levels {
		tables += l.TableBytesFlushed + l.TableBytesCompacted + l.BlobBytesFlushed + l.BlobBytesCompacted
	}
	return tables, m.WAL.BytesWritten
}
