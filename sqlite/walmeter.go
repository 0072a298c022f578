package sqlite

import (
	"bytes"
	"encoding/binary"
	"os"
	"sync"
)

// The WAL bytes a measurement wrote (issue 45: the bench reports them per record). Only the writer appends to
// the log, and the checkpointer starts it again from its beginning only at the start of a write
// transaction, so reading the log's length (mxFrame, in frames, of the wal-index header in the -shm file)
// after every commit tells what each commit appended: the growth since the last read, or, when the log was
// started again (its salts changed), the whole new length. Checkpoints then need not be stopped to measure,
// and the figure is what was written to the log, not its size at the end. Off, a commit pays one atomic
// load (the field is nil).

// walMeter counts the frames the writer's commits appended to the log.
type walMeter struct {
	mu     sync.Mutex
	shm    *os.File
	page   int64
	last   uint32
	salt   [8]byte
	frames int64
	err    error
}

// MeterWAL starts counting the bytes the writer appends to the write-ahead log and returns the function that
// stops counting and gives them (frames times their size: a 24-byte header and a page). It fails when the
// log's index cannot be read (a store that is not in WAL mode).
func (s *Store) MeterWAL() (stop func() (int64, error), err error) {
	f, err := os.Open(s.path + "-shm")
	if err != nil {
		return nil, err
	}
	m := &walMeter{shm: f}
	if err := m.read(true); err != nil {
		f.Close()
		return nil, err
	}
	s.wal.Store(m)
	return func() (int64, error) {
		s.wal.CompareAndSwap(m, nil)
		m.mu.Lock()
		defer m.mu.Unlock()
		err := m.read(false)
		m.shm.Close()
		if m.err != nil {
			err = m.err
		}
		return m.frames * (24 + m.page), err
	}, nil
}

// committed reads the log's length after a commit of the writer.
func (m *walMeter) committed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.read(false); err != nil && m.err == nil {
		m.err = err
	}
}

// read reads the wal-index header (its first copy, in the machine's byte order): page size at 14,
// mxFrame at 16, the salts at 32. first only sets the starting point.
func (m *walMeter) read(first bool) error {
	var h [48]byte
	if _, err := m.shm.ReadAt(h[:], 0); err != nil {
		return err
	}
	mx := binary.NativeEndian.Uint32(h[16:])
	page := int64(binary.NativeEndian.Uint16(h[14:]))
	if page == 1 {
		page = 65536
	}
	var salt [8]byte
	copy(salt[:], h[32:40])
	switch {
	case first:
	case !bytes.Equal(salt[:], m.salt[:]) || mx < m.last:
		m.frames += int64(mx) // started again: all of it is new
	default:
		m.frames += int64(mx - m.last)
	}
	m.last, m.salt, m.page = mx, salt, page
	return nil
}
