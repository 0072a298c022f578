package sqlite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"sync"

	"seald.dev/seald/internal/sqlstore"

	"seald.dev/seald"
)

// lock is a named lock held as an exclusive lock on a file beside the database. The kernel drops it when
// the holding process dies, so a crashed anchor leader never blocks its successor, and nothing needs
// renewing.
type lock struct {
	s     *Store
	f     *os.File
	epoch int64
	lost  chan struct{}
	once  sync.Once
}

// Epoch numbers this holding of the lock (see seald.Lock).
func (l *lock) Epoch() int64 { return l.epoch }

// Lost is closed when the lock is released, by Release or by closing the Store. A file lock cannot be lost
// otherwise while its process lives.
func (l *lock) Lost() <-chan struct{} { return l.lost }

// Release gives the lock up. It may be called more than once.
func (l *lock) Release() {
	l.once.Do(func() {
		unlockFile(l.f)
		l.f.Close()
		l.s.held.Drop(l)
		close(l.lost)
	})
}

// lockPath names the lock file of a lock: readable, and unique per name even where the name has characters
// a file name cannot.
func (s *Store) lockPath(name string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, name)
	sum := sha256.Sum256([]byte(name))
	return s.path + "-lock-" + safe + "-" + hex.EncodeToString(sum[:4])
}

// TryLock takes the named lock if no other Store, in this process or another, holds it; nil and no error
// when one does.
func (s *Store) TryLock(ctx context.Context, name string) (seald.Lock, error) {
	const op = "sqlite.TryLock"
	if err := ctx.Err(); err != nil {
		return nil, wrap(op, err)
	}
	if s.held.Closed() {
		return nil, wrap(op, sqlstore.ErrClosed)
	}
	f, err := os.OpenFile(s.lockPath(name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, wrap(op, err)
	}
	ok, err := tryLockFile(f)
	if err != nil || !ok {
		f.Close()
		return nil, wrap(op, err)
	}
	epoch, err := s.NewEpoch(ctx, name)
	if err != nil {
		unlockFile(f)
		f.Close()
		return nil, err
	}
	l := &lock{s: s, f: f, epoch: epoch, lost: make(chan struct{})}
	if !s.held.Add(l) {
		unlockFile(f)
		f.Close()
		return nil, wrap(op, sqlstore.ErrClosed)
	}
	return l, nil
}
