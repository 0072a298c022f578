package postgres

import (
	"context"
	"strconv"
	"sync"
	"time"

	"seald.dev/seald/internal/sqlstore"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"seald.dev/seald"
)

// lock is a session advisory lock held on a connection taken out of the pool for it. PostgreSQL releases the
// lock when that connection ends, whatever ends it, so a watcher reads from the connection all the time (a
// terminated backend or a closed socket is seen at once) and pings it after each quiet interval (a silent
// network is seen within the interval and pingTimeout); either failure closes Lost.
type lock struct {
	s     *Store
	conn  *pgx.Conn
	key   int64
	epoch int64

	lost     chan struct{}
	lostOnce sync.Once
	ctx      context.Context // cancelled by Release, to stop the watcher
	cancel   context.CancelFunc
	done     chan struct{} // closed when the watcher has stopped using conn
	release  sync.Once
}

// Epoch numbers this holding of the lock (see seald.Lock).
func (l *lock) Epoch() int64 { return l.epoch }

// Lost is closed when the lock is no longer held: its connection died, or it was released.
func (l *lock) Lost() <-chan struct{} { return l.lost }

func (l *lock) markLost() { l.lostOnce.Do(func() { close(l.lost) }) }

// Release unlocks and closes the lock's connection. It may be called more than once.
func (l *lock) Release() {
	l.release.Do(func() {
		l.cancel()
		<-l.done
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if !l.conn.IsClosed() {
			// Closing the connection would free the lock too; unlocking first says so at once.
			l.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.key)
		}
		l.conn.Close(ctx)
		l.markLost()
		l.s.held.Drop(l)
	})
}

// pingTimeout bounds the ping of a quiet lock connection. A server that does not answer within it is treated
// as gone: the lock is given up (Lost closes) even if the server still holds it, which is the safe side.
const pingTimeout = 15 * time.Second

// watch owns the connection until Release: nothing else may use it meanwhile.
func (l *lock) watch(quiet time.Duration) {
	defer close(l.done)
	for {
		ctx, cancel := context.WithTimeout(l.ctx, quiet)
		err := l.conn.PgConn().WaitForNotification(ctx)
		cancel()
		if l.ctx.Err() != nil {
			return
		}
		if err == nil {
			continue // a notification nobody asked for
		}
		if pgconn.Timeout(err) {
			// A ping cut short breaks the connection, so it gets far longer than a busy server needs.
			ctx, cancel := context.WithTimeout(l.ctx, pingTimeout)
			err = l.conn.Ping(ctx)
			cancel()
			if l.ctx.Err() != nil {
				return
			}
			if err == nil {
				continue
			}
		}
		// The connection is gone, and the lock with it.
		closeCtx, cancelClose := context.WithTimeout(context.Background(), time.Second)
		l.conn.Close(closeCtx)
		cancelClose()
		l.markLost()
		return
	}
}

// TryLock takes the named lock if no other session, in this process or another, holds it; nil and no error
// when one does. The lock is keyed by the schema too, so deployments sharing a database do not collide. A
// failed attempt returns its connection to the pool; a successful one keeps it out of the pool until Release.
func (s *Store) TryLock(ctx context.Context, name string) (seald.Lock, error) {
	const op = "postgres.TryLock"
	if s.held.Closed() {
		return nil, wrap(op, sqlstore.ErrClosed)
	}
	key := s.key(name)
	var pc *pgxpool.Conn
	var got bool
	for try := 1; ; try++ {
		var err error
		pc, err = s.pool.Acquire(ctx)
		if err == nil {
			err = pc.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got)
			if err == nil {
				break
			}
			pc.Release()
		}
		if try == attempts || ctx.Err() != nil || !brokenConn(err) {
			return nil, wrap(op, err)
		}
		s.pool.Reset()
	}
	if !got {
		pc.Release()
		return nil, nil
	}
	conn := pc.Hijack()
	// A process that stops without dying (SIGSTOP, a frozen VM) keeps its session, and with it the lock,
	// for ever: the server ends the lock's session once it has been idle for several of the watcher's
	// pings, so another process can take over; the epoch fences anything the stopped one does on waking.
	// Best effort: servers before PostgreSQL 14 do not know the setting, and keep the old behaviour.
	idle := strconv.FormatInt(max(3*s.lockCheck, time.Second).Milliseconds(), 10)
	_, _ = conn.Exec(ctx, `SELECT set_config('idle_session_timeout', $1, false)`, idle)
	epoch, err := s.NewEpoch(ctx, name)
	if err != nil {
		closeCtx, cancelClose := context.WithTimeout(context.Background(), 5*time.Second)
		conn.Close(closeCtx)
		cancelClose()
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	l := &lock{s: s, conn: conn, key: key, epoch: epoch, lost: make(chan struct{}), ctx: lctx, cancel: cancel,
		done: make(chan struct{})}
	if !s.held.Add(l) {
		close(l.done)
		l.Release()
		return nil, wrap(op, sqlstore.ErrClosed)
	}
	go l.watch(s.lockCheck)
	return l, nil
}
