//go:build unix

package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// walVersion reads the wal-index header (version.go) from the -shm file, mapped read-only: two copies of 48
// bytes, read word by word in order, with no system call.
//
// It holds a connection of its own open on the database for as long as it maps the file: SQLite truncates or
// deletes the -shm file only when its last connection, in any process, closes, so while this one is open the
// mapping is of the live file (a header that stopped changing in a deleted file would be a version that never
// changes) and never of a truncated one (touching it would be a SIGBUS).
//
// Its own descriptor of the -shm file stays open until the Store's last connection has closed (closeFile):
// POSIX record locks belong to the process, and closing any descriptor of a file releases every lock the
// process holds on it, SQLite's included. Closed right after mapping, it dropped the lock by which SQLite tells
// that the file is in use, so that another process opening the database took it for unused and initialised
// it again under this one's connections (a memory fault in the -shm mapping: "disk I/O error (8714)", IN_PAGE).
type walVersion struct {
	pin *sql.DB      // the connection that keeps the -shm file live
	c   *sql.Conn    // held from open to close
	f   *os.File     // this mapping's descriptor of the -shm file; closed only by closeFile
	mu  sync.RWMutex // held to read mem, which close unmaps
	mem []byte       // the -shm file's first page; nil once closed
}

// openVersion opens the version of the database at path; dsn opens a read-only connection on it. It fails
// when the database has no wal-index (not in WAL mode).
func openVersion(ctx context.Context, path, dsn string) (*walVersion, error) {
	pin, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	pin.SetMaxOpenConns(1)
	v := &walVersion{pin: pin}
	if v.c, err = pin.Conn(ctx); err != nil {
		pin.Close()
		return nil, err
	}
	// A read opens the connection's log and its index, and the connection keeps them until it closes.
	var n int
	if err := v.c.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE 0`).Scan(&n); err != nil {
		v.close()
		return nil, err
	}
	f, err := os.Open(path + "-shm")
	if err != nil {
		v.close()
		return nil, err
	}
	v.f = f // from here on, v is returned even when it reads no version, so that the descriptor closes last
	st, err := f.Stat()
	if err != nil || st.Size() < int64(4*hdrWords) {
		v.close()
		return v, errors.Join(err, errors.New("the wal-index is too short"))
	}
	if v.mem, err = syscall.Mmap(int(f.Fd()), 0, os.Getpagesize(), syscall.PROT_READ, syscall.MAP_SHARED); err != nil {
		v.close()
		return v, err
	}
	return v, nil
}

// closeFile closes the mapping's descriptor of the -shm file, which releases every record lock this process
// holds on it: call it after close, once every other connection of this process to the database has closed.
func (v *walVersion) closeFile() error {
	if v == nil || v.f == nil {
		return nil
	}
	err := v.f.Close()
	v.f = nil
	return err
}

// read returns the current header, and false when it is no version (caught mid-write, or not initialized).
func (v *walVersion) read() (walHeader, bool) {
	var a, b walHeader
	if v == nil {
		return a, false
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.mem == nil {
		return a, false
	}
	word := func(i int) uint32 { return atomic.LoadUint32((*uint32)(unsafe.Pointer(&v.mem[4*i]))) }
	for i := range a {
		a[i] = word(i)
	}
	for i := range b {
		b[i] = word(len(a) + i)
	}
	var w [4]byte
	binary.NativeEndian.PutUint32(w[:], a[3]) // isInit is the byte at offset 12
	return a, a == b && w[0] != 0
}

// close unmaps the file, then lets the connection go; the descriptor stays open (closeFile).
func (v *walVersion) close() error {
	var err error
	v.mu.Lock()
	if v.mem != nil {
		err = syscall.Munmap(v.mem)
		v.mem = nil
	}
	v.mu.Unlock()
	if v.c != nil {
		err = errors.Join(err, v.c.Close())
	}
	return errors.Join(err, v.pin.Close())
}
