package sqlite

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
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
	// log and pages, when the meter splits the bytes by B-tree (MeterWALSplit): the log file, and the frames
	// appended for each page number, read from each new frame's header (its first 4 bytes) after the commit
	// that appended it, before any later write can start the log again over it.
	log   *os.File
	pages map[uint32]int64
}

// MeterWAL starts counting the bytes the writer appends to the write-ahead log and returns the function that
// stops counting and gives them (frames times their size: a 24-byte header and a page). It fails when the
// log's index cannot be read (a store that is not in WAL mode).
func (s *Store) MeterWAL() (stop func() (int64, error), err error) {
	m, err := s.startMeter(false)
	if err != nil {
		return nil, err
	}
	return func() (int64, error) {
		err := s.stopMeter(m)
		return m.frames * (24 + m.page), err
	}, nil
}

// MeterWALSplit is MeterWAL that also says which tables and indexes the log was written for: stop gives the
// frames appended for each B-tree by name (its pages, overflow pages included, as SQLite's dbstat table places
// them when stop runs; "(free pages and the file's header)" for the pages of none) and the bytes of a frame (a
// 24-byte header and a page). The bench reports it beside PostgreSQL's (issue 45: which part of the design
// to change).
func (s *Store) MeterWALSplit() (stop func() (frames map[string]int64, frameBytes int64, err error), err error) {
	m, err := s.startMeter(true)
	if err != nil {
		return nil, err
	}
	return func() (map[string]int64, int64, error) {
		if err := s.stopMeter(m); err != nil {
			return nil, 0, err
		}
		where, err := s.pageTrees(context.Background())
		if err != nil {
			return nil, 0, fmt.Errorf("sqlite: pages of the B-trees: %w", err)
		}
		frames := map[string]int64{}
		for page, n := range m.pages {
			name, ok := where[page]
			if !ok {
				name = "(free pages and the file's header)"
			}
			frames[name] += n
		}
		return frames, 24 + m.page, nil
	}, nil
}

func (s *Store) startMeter(split bool) (*walMeter, error) {
	f, err := os.Open(s.path + "-shm")
	if err != nil {
		return nil, err
	}
	m := &walMeter{shm: f}
	if split {
		if m.log, err = os.Open(s.path + "-wal"); err != nil {
			f.Close()
			return nil, err
		}
		m.pages = map[uint32]int64{}
	}
	if err := m.read(true); err != nil {
		m.close()
		return nil, err
	}
	s.wal.Store(m)
	return m, nil
}

func (s *Store) stopMeter(m *walMeter) error {
	s.wal.CompareAndSwap(m, nil)
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.read(false)
	m.close()
	if m.err != nil {
		err = m.err
	}
	return err
}

func (m *walMeter) close() {
	m.shm.Close()
	if m.log != nil {
		m.log.Close()
	}
}

// pageTrees maps each page of the database file to the table or index it belongs to, by SQLite's dbstat.
func (s *Store) pageTrees(ctx context.Context) (map[uint32]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name, pageno FROM dbstat`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	where := map[uint32]string{}
	for rows.Next() {
		var name string
		var page uint32
		if err := rows.Scan(&name, &page); err != nil {
			return nil, err
		}
		where[page] = name
	}
	return where, rows.Err()
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
	from := m.last
	switch {
	case first:
		from = mx
	case !bytes.Equal(salt[:], m.salt[:]) || mx < m.last:
		from = 0 // started again: all of it is new
	}
	m.frames += int64(mx - from)
	m.last, m.salt, m.page = mx, salt, page
	if m.pages != nil {
		// Frame i (from 0) starts after the log's 32-byte header and i frames of a 24-byte header and a page.
		var no [4]byte
		for i := int64(from); i < int64(mx); i++ {
			if _, err := m.log.ReadAt(no[:], 32+i*(24+page)); err != nil {
				return err
			}
			m.pages[binary.BigEndian.Uint32(no[:])]++
		}
	}
	return nil
}
