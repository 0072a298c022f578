package sqlite

// The version of the database: the wal-index header, which every commit rewrites, whoever makes it (this
// Store's writer, another Store, the CLI in another process). In WAL mode a transaction is committed, and
// visible to the read transactions that begin after it, when its writer writes the new header into the
// -shm file (https://sqlite.org/walformat.html, "The WAL-Index Header"); the header changes with every commit
// (its change counter, the log's length, its checksums) and when the log starts again (new salts). So a
// header read before a read, and read again unchanged later, proves that nothing was committed in between:
// what the read returned is what a read now would return. That is what lets a verification skip the record
// read (brief.go).
//
// The header is kept twice, at offsets 0 and 48; a writer writes the second copy, then the first, and a
// reader reads the first, then the second, and trusts them only when they are equal (SQLite's own readers do
// the same, walIndexTryHdr). A header caught mid-write, or not yet initialized, is no version: the read is
// made as usual.

// walHeader is one copy of the wal-index header, in words.
type walHeader [12]uint32

// hdrWords is the size of the two copies, in words.
const hdrWords = 2 * len(walHeader{})
