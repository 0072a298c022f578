package storetest

import (
	"testing"
	"time"

	"seald.dev/seald"
)

var lockTests = []test{
	{"Exclusive", testLockExclusive},
	{"AcrossStores", testLockAcrossStores},
	{"ReleasedOnClose", testLockReleasedOnClose},
}

var databaseTests = []test{
	{"Reopen", testReopen},
}

// isClosed tells whether a Lost channel is closed, without waiting.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// tryLock takes a lock, failing the test on error.
func tryLock(t *testing.T, s seald.Store, name string) seald.Lock {
	t.Helper()
	l, err := s.TryLock(t.Context(), name)
	ok(t, "TryLock "+name, err)
	return l
}

// A held lock is refused to the next taker, until released; other names are independent.
func testLockExclusive(t *testing.T, s seald.Store) {
	l := tryLock(t, s, "anchor:POLYGON")
	if l == nil {
		t.Fatal("TryLock of a free lock returned nil")
	}
	if isClosed(l.Lost()) {
		t.Error("Lost is closed while the lock is held")
	}
	if again := tryLock(t, s, "anchor:POLYGON"); again != nil {
		again.Release()
		t.Fatal("TryLock of a held lock succeeded")
	}
	other := tryLock(t, s, "anchor:EOS")
	if other == nil {
		t.Fatal("TryLock of another name returned nil")
	}
	defer other.Release()
	l.Release()
	if !isClosed(l.Lost()) {
		t.Error("Lost is not closed after Release")
	}
	l.Release() // harmless
	l2 := tryLock(t, s, "anchor:POLYGON")
	if l2 == nil {
		t.Fatal("TryLock after Release returned nil")
	}
	l2.Release()
	if isClosed(other.Lost()) {
		t.Error("releasing one lock closed another's Lost")
	}
}

// Two Stores on one database, as two processes, exclude each other.
func testLockAcrossStores(t *testing.T, s seald.Store) {
	s2 := reopen(t, s)
	l := tryLock(t, s, "anchor:POLYGON")
	if l == nil {
		t.Fatal("TryLock of a free lock returned nil")
	}
	if l2 := tryLock(t, s2, "anchor:POLYGON"); l2 != nil {
		l2.Release()
		t.Fatal("a second Store took a held lock")
	}
	l.Release()
	l2 := tryLock(t, s2, "anchor:POLYGON")
	if l2 == nil {
		t.Fatal("a second Store could not take a released lock")
	}
	defer l2.Release()
	if l3 := tryLock(t, s, "anchor:POLYGON"); l3 != nil {
		l3.Release()
		t.Fatal("the first Store took a lock the second holds")
	}
}

// Closing a Store gives up its locks (a process that stops must not block its successor) and closes their
// Lost channels.
func testLockReleasedOnClose(t *testing.T, s seald.Store) {
	s2 := reopen(t, s)
	l := tryLock(t, s2, "anchor:POLYGON")
	if l == nil {
		t.Fatal("TryLock of a free lock returned nil")
	}
	ok(t, "Close", s2.Close())
	if !isClosed(l.Lost()) {
		t.Error("Lost is not closed after the Store closed")
	}
	l1 := tryLock(t, s, "anchor:POLYGON")
	if l1 == nil {
		t.Fatal("the lock of a closed Store is still held")
	}
	l1.Release()
	l.Release() // after Close: harmless
}

// Reopening a database keeps its rows and applies no migration twice.
func testReopen(t *testing.T, s seald.Store) {
	ctx := t.Context()
	db := rawSQL(t, s)
	b, p := tenant(t, s)
	r := fullRecord(p, 0)
	create(t, s, r, &seald.Job{Kind: seald.JobStore, RunAt: base})
	c := change(t, s, r, seald.StatusActive, base.Add(time.Minute))
	migrations, err := db.QueryInt(ctx, `SELECT count(*) FROM schema_migrations`)
	ok(t, "count migrations", err)
	if migrations < 1 {
		t.Fatalf("%d migrations recorded", migrations)
	}

	ok(t, "Close", s.Close())
	s2 := reopen(t, s)
	gb, err := s2.Business(ctx, b.BusinessID)
	ok(t, "Business after reopening", err)
	equal(t, "Business after reopening", gb, b)
	equal(t, "Record after reopening", record(t, s2, r.Reference), r)
	if _, err := s2.Payload(ctx, r.Reference); err != nil {
		t.Errorf("Payload after reopening: %v", err)
	}
	trail, err := s2.AuditTrail(ctx, r.Reference)
	ok(t, "AuditTrail", err)
	equal(t, "AuditTrail after reopening", trail, []*seald.StatusChange{c})
	counts, err := s2.CountJobs(ctx)
	ok(t, "CountJobs", err)
	equal(t, "CountJobs after reopening", counts, map[string]int{seald.JobStore: 1})

	again, err := rawSQL(t, s2).QueryInt(ctx, `SELECT count(*) FROM schema_migrations`)
	ok(t, "count migrations", err)
	if again != migrations {
		t.Errorf("%d migrations recorded after reopening, %d before", again, migrations)
	}
	// And the reopened store writes.
	create(t, s2, newRecord(p, base))
}
