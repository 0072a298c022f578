package ipfs_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"seald.dev/seald/ipfs"
)

// holding lists the files under dir whose raw bytes contain any window of 64 bytes of b (at its start,
// middle and end), so that a copy split across pages or compressed blocks is still found in part.
func holding(t *testing.T, dir string, b []byte) []string {
	t.Helper()
	var windows [][]byte
	for _, at := range []int{0, len(b)/2 - 32, len(b) - 64} {
		windows = append(windows, b[at:at+64])
	}
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted by pebble since the directory was read
		}
		if err != nil {
			return err
		}
		for _, w := range windows {
			if bytes.Contains(data, w) {
				rel, _ := filepath.Rel(dir, path)
				out = append(out, rel)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// After Delete, no file of the store holds the deleted file's bytes, whether they were still in the
// write-ahead log only or already in sorted tables (written before a reopen), while the store is open and
// after Close; a file stored beside it is still there, and found by the same search.
func TestDeleteLeavesNoBytes(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		name := "in the log"
		if reopen {
			name = "in tables"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			e, err := ipfs.OpenEmbedded(dir)
			if err != nil {
				t.Fatal(err)
			}
			gone, kept := randomBytes(3000, 71), randomBytes(3000, 72)
			goneCID, err := e.Put(ctx, gone)
			if err != nil {
				t.Fatal(err)
			}
			keptCID, err := e.Put(ctx, kept)
			if err != nil {
				t.Fatal(err)
			}
			if reopen {
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				if e, err = ipfs.OpenEmbedded(dir); err != nil {
					t.Fatal(err)
				}
			}
			defer func() { e.Close() }()
			if len(holding(t, dir, gone)) == 0 {
				t.Fatal("no file holds the file's bytes before the delete: the search cannot see them")
			}
			if err := e.Delete(ctx, goneCID); err != nil {
				t.Fatal(err)
			}
			if got := holding(t, dir, gone); len(got) > 0 {
				t.Errorf("after Delete, these files still hold the deleted bytes: %s", strings.Join(got, ", "))
			}
			if len(holding(t, dir, kept)) == 0 {
				t.Error("after Delete, no file holds the other file's bytes")
			}
			if got, err := e.Get(ctx, keptCID); err != nil || !bytes.Equal(got, kept) {
				t.Errorf("Get of the other file: %v", err)
			}
			// A second Delete (an erase job run again) is nothing to do.
			if err := e.Delete(ctx, goneCID); err != nil {
				t.Errorf("second Delete: %v", err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if got := holding(t, dir, gone); len(got) > 0 {
				t.Errorf("after Close, these files still hold the deleted bytes: %s", strings.Join(got, ", "))
			}
		})
	}
}

// A data dir migrated from flatfs keeps the old files in flatfs-migrated/; Delete removes the deleted file's
// blocks from there too, and leaves the others.
func TestDeleteReachesMigratedFlatfs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := flatfsFixture(t, dir, "blocks", "pins")
	e, _, err := openLogged(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	gone := randomBytes(files[1].Size, files[1].Seed)
	if len(gone) < 64 {
		t.Fatalf("fixture file of %d bytes is too small to search for", len(gone))
	}
	migrated := filepath.Join(dir, "flatfs-migrated")
	if len(holding(t, migrated, gone)) == 0 {
		t.Fatal("flatfs-migrated/ does not hold the file before the delete: the search cannot see it")
	}
	if err := e.Delete(ctx, files[1].CID); err != nil {
		t.Fatal(err)
	}
	if got := holding(t, dir, gone); len(got) > 0 {
		t.Errorf("after Delete, these files still hold the deleted bytes: %s", strings.Join(got, ", "))
	}
	for _, f := range files[2:] {
		if b := randomBytes(f.Size, f.Seed); len(b) >= 64 && len(holding(t, migrated, b)) == 0 {
			t.Errorf("the migrated copy of %s went too", f.CID)
		}
	}
}

// BenchmarkDeleteScrub measures Delete with its scrub (flush, compaction of the block's range, cleanup) in a
// store of 10,000 envelopes of 2 KiB spread over its tables, and reports the bytes pebble writes per Delete:
// into tables by the flush and the compaction (table-B/op, what the scrub rewrites) and into its log
// (wal-B/op). docs/privacy.md gives the figures.
func BenchmarkDeleteScrub(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	e, err := ipfs.OpenEmbedded(dir)
	if err != nil {
		b.Fatal(err)
	}
	var cids []string
	for i := range 10000 {
		c, err := e.Put(ctx, randomBytes(2048, uint64(i)))
		if err != nil {
			b.Fatal(err)
		}
		cids = append(cids, c)
	}
	if err := e.Close(); err != nil { // everything into tables
		b.Fatal(err)
	}
	if e, err = ipfs.OpenEmbedded(dir); err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	tables0, wal0 := ipfs.WrittenBytes(e)
	i := 0
	for b.Loop() {
		if err := e.Delete(ctx, cids[i%len(cids)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	tables, wal := ipfs.WrittenBytes(e)
	b.ReportMetric(float64(tables-tables0)/float64(i), "table-B/op")
	b.ReportMetric(float64(wal-wal0)/float64(i), "wal-B/op")
}
