package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/storetest"
)

// findings lists, for each file of dir, the markers its raw bytes hold.
func findings(t *testing.T, dir string, markers []string) []string {
	t.Helper()
	var out []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range markers {
			if n := bytes.Count(b, []byte(m)); n > 0 {
				out = append(out, fmt.Sprintf("%s: %s ×%d", e.Name(), m, n))
			}
		}
	}
	return out
}

// After EraseRecord returns, no file of the database (seald.db, -wal, -shm) holds the erased record's key,
// password hash, e-mail or payload: not in a stale frame of the log, not in the free space of a page. The
// other record's are still there, which shows the search finds what is written.
func TestEraseLeavesNoBytes(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s := openAt(t, filepath.Join(dir, "seald.db"))
	kept, keptMarkers := storetest.Erasable(t, s.Store, 1)
	r, markers := storetest.Erasable(t, s.Store, 2)
	// Writes after the record's creation, as the pipeline makes them, move it about in the file.
	for _, st := range []seald.Status{seald.StatusSuspended, seald.StatusActive} {
		c := &seald.StatusChange{Reference: r.Reference, From: r.Status, To: st, Actor: "key_x", Reason: "r", At: time.Now()}
		if err := s.ChangeStatus(ctx, c, r.Status); err != nil {
			t.Fatal(err)
		}
		r.Status = st
	}
	if len(findings(t, dir, markers)) == 0 {
		t.Fatal("the markers are in no file before the erasure: the search cannot see them")
	}
	c := &seald.StatusChange{Reference: r.Reference, Actor: "key_x", Reason: "asked", At: time.Now(), Action: seald.ActionErase}
	if erased, err := s.EraseRecord(ctx, c, &seald.Job{Kind: seald.JobErase, Reference: r.Reference, RunAt: c.At}); err != nil || !erased {
		t.Fatalf("EraseRecord = %v, %v", erased, err)
	}
	if got := findings(t, dir, markers); len(got) > 0 {
		t.Errorf("after the erasure, while the store is open, the files still hold:\n%s", strings.Join(got, "\n"))
	}
	if fi, err := os.Stat(filepath.Join(dir, "seald.db-wal")); err == nil && fi.Size() != 0 {
		t.Errorf("seald.db-wal is %d bytes after the erasure, want 0 (truncated)", fi.Size())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := findings(t, dir, markers); len(got) > 0 {
		t.Errorf("after the erasure and Close, the files still hold:\n%s", strings.Join(got, "\n"))
	}
	s2 := openAt(t, filepath.Join(dir, "seald.db"))
	got, err := s2.Record(ctx, kept.Reference)
	if err != nil || got.DataKey != kept.DataKey || got.Mail == nil || got.Mail.Subject != keptMarkers[2] {
		t.Errorf("the other record after the erasure: %+v, %v", got, err)
	}
}

// Scrub is EUNAVAILABLE while a reader holds a snapshot older than the log's end, and succeeds once it is
// gone: the erase job retries it until then.
func TestScrubWaitsForReaders(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s := openAt(t, filepath.Join(dir, "seald.db"))
	storetest.Erasable(t, s.Store, 3)
	tx, err := s.raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM records").Scan(&n); err != nil {
		t.Fatal(err)
	}
	storetest.Erasable(t, s.Store, 4) // a frame the reader's snapshot does not see
	short, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := s.Scrub(short); seald.ErrorCode(err) != seald.EUNAVAILABLE {
		t.Errorf("Scrub with a reader on an old snapshot = %v, want EUNAVAILABLE", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := s.Scrub(ctx); err != nil {
		t.Errorf("Scrub once the reader is gone: %v", err)
	}
}

// BenchmarkErase measures an erasure with its scrub: the erase transaction, the checkpoint of what the log
// holds since the last one (here a record's creation and its erasure) and the log's truncation. It reports
// the log's bytes the checkpoint copied (wal-B/op). docs/privacy.md gives the figures.
func BenchmarkErase(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "seald.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var walBytes int64
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		r, _ := storetest.Erasable(b, s, 1000+i)
		b.StartTimer()
		c := &seald.StatusChange{Reference: r.Reference, Actor: "key_x", Reason: "asked", At: time.Now(), Action: seald.ActionErase}
		if _, err := s.Store.EraseRecord(ctx, c, &seald.Job{Kind: seald.JobErase, Reference: r.Reference, RunAt: c.At}); err != nil {
			b.Fatal(err)
		}
		st, err := s.scrub(ctx)
		if err != nil {
			b.Fatal(err)
		}
		walBytes += st.walBytes
	}
	b.ReportMetric(float64(walBytes)/float64(b.N), "wal-B/op")
}
