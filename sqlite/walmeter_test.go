package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"seald.dev/seald/internal/sqlstore"
)

// The WAL meter counts every frame the writer appends, also across checkpoints that start the log again
// (where the file's size says nothing), and the counting hook counts the statements and the rows they
// insert; off, neither counts (issue 45's writes section).
func TestWALMeterAcrossCheckpoints(t *testing.T) {
	ctx := t.Context()
	s, exec := meterStore(t)
	exec(`CREATE TABLE meter (x BLOB)`)
	stopWAL, err := s.MeterWAL()
	if err != nil {
		t.Fatal(err)
	}
	stopCount := sqlstore.StartCounting()
	const commits = 40
	for i := range commits {
		exec(`INSERT INTO meter (x) VALUES (?)`, make([]byte, 100))
		if i%10 == 9 { // the log is copied back and truncated: the next commit starts it again
			if _, err := s.ckpt.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
		}
	}
	counts := stopCount()
	bytes, err := stopWAL()
	if err != nil {
		t.Fatal(err)
	}
	const frame = 24 + pageSize
	if bytes < commits*frame || bytes > 4*commits*frame {
		t.Errorf("%d commits of one small row appended %d WAL bytes, want between %d and %d", commits, bytes,
			commits*frame, 4*commits*frame)
	}
	if counts.Statements != commits || counts.Inserted != commits || counts.Updated != 0 || counts.Deleted != 0 {
		t.Errorf("counted %+v, want %d statements inserting %d rows", counts, commits, commits)
	}
	exec(`DELETE FROM meter`) // counting is off: nothing counts, and nothing fails
	if after := stopCount(); after != counts {
		t.Errorf("counting went on after it stopped: %+v", after)
	}
}

// The split meter names the B-trees its bytes were written for: rows of one table and entries of its index,
// across a checkpoint that starts the log again, each under its own name, the parts adding up to the total.
func TestWALSplitNamesTheTrees(t *testing.T) {
	ctx := t.Context()
	s, exec := meterStore(t)
	exec(`CREATE TABLE meter (x BLOB, k TEXT)`)
	exec(`CREATE INDEX meter_k ON meter (k)`)
	exec(`CREATE TABLE untouched (x)`)
	stop, err := s.MeterWALSplit()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		exec(`INSERT INTO meter (x, k) VALUES (?, ?)`, make([]byte, 3000), fmt.Sprint(i))
		if i == 14 {
			if _, err := s.ckpt.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
		}
	}
	split, frame, err := stop()
	if err != nil {
		t.Fatal(err)
	}
	// Each insert of a 3,000-byte row writes a page of the table (and an overflow page) and one of the index,
	// in a commit of its own.
	if frame != 24+pageSize || split["meter"] < 30 || split["meter_k"] < 30 || split["untouched"] != 0 {
		t.Errorf("frames by tree %v, of %d bytes: want 30 or more under meter and meter_k, none under untouched", split, frame)
	}
}

// meterStore opens a store of its own for a meter's test, committing each write alone, and gives a function
// that runs one statement in a write of its own.
func meterStore(t *testing.T) (*Store, func(query string, args ...any)) {
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "seald.db"), WithoutGroupCommit())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, func(query string, args ...any) {
		t.Helper()
		if err := s.write(ctx, "test", func(ctx context.Context, q *querier) error {
			_, err := q.Exec(ctx, query, args...)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
}
