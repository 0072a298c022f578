package ipfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"
	ds "github.com/ipfs/go-datastore"
	"github.com/ipfs/go-datastore/query"
	flatfs "github.com/ipfs/go-ds-flatfs"
)

// Erasure on disk. Deleting a key in pebble writes a tombstone; the value stays in the write-ahead log
// (NNNNNN.log) it was written to and in the sorted table (NNNNNN.sst) a flush or compaction put it in, until
// a compaction drops it under the tombstone at the bottom level and the files that held it are deleted. So
// Delete, once its batch is committed, scrubs:
//
//  1. Flush: the memtables go into tables, and every log before the current one is obsolete.
//  2. Compact the key range of each deleted block: every table holding the key is rewritten, level by level
//     down to the bottom, where the value and its tombstone both go.
//  3. Wait until pebble's cleaner has deleted every file no longer live (settle).
//
// Pebble normally recycles an obsolete log rather than deleting it: it renames it to the next log's name and
// writes over it from the start, so old records stay beyond the new ones. A cleaner that needs the files'
// contents turns recycling off (pebble's rule, for its archiving cleaner); shredder is such a cleaner that
// deletes, so every obsolete log is removed.
//
// Data dirs migrated from flatfs keep the old files in flatfs-migrated/ (migrate.go); Delete removes an
// erased file's blocks from there too.

// scrubsPrefix keys the scrub marks: /scrubs/<CIDv1> of a deleted file, whose value lists the deleted
// block keys, one a line, until their bytes are gone from the files.
var scrubsPrefix = ds.NewKey("/scrubs")

func scrubKey(c cid.Cid) ds.Key {
	return scrubsPrefix.ChildString(cid.NewCidV1(c.Type(), c.Hash()).String())
}

func scrubMark(keys []ds.Key) []byte {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k.String())
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// finishScrub scrubs the blocks of c's scrub mark, if it has one, then drops the mark.
func (e *Embedded) finishScrub(ctx context.Context, c cid.Cid) error {
	v, err := e.db.Get(ctx, scrubKey(c))
	if errors.Is(err, ds.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("ipfs: reading the scrub mark of %s: %w", c, err)
	}
	var keys []ds.Key
	for _, line := range strings.Split(string(v), "\n") {
		if line != "" {
			keys = append(keys, ds.RawKey(line))
		}
	}
	if err := e.scrub(ctx, keys); err != nil {
		return err
	}
	if err := e.db.Delete(ctx, scrubKey(c)); err != nil {
		return fmt.Errorf("ipfs: dropping the scrub mark of %s: %w", c, err)
	}
	return nil
}

// finishScrubs finishes the scrubs a crash interrupted, at open.
func (e *Embedded) finishScrubs(ctx context.Context) error {
	res, err := e.db.Query(ctx, query.Query{Prefix: scrubsPrefix.String(), KeysOnly: true})
	if err != nil {
		return fmt.Errorf("ipfs: listing scrub marks: %w", err)
	}
	var cids []cid.Cid
	for r := range res.Next() {
		if r.Error != nil {
			res.Close()
			return fmt.Errorf("ipfs: listing scrub marks: %w", r.Error)
		}
		c, err := cid.Decode(ds.RawKey(r.Key).BaseNamespace())
		if err != nil {
			res.Close()
			return fmt.Errorf("ipfs: scrub mark %q: %w", r.Key, err)
		}
		cids = append(cids, c)
	}
	res.Close()
	for _, c := range cids {
		if err := e.finishScrub(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// shredder is pebble's Cleaner that deletes obsolete files (the default's behaviour) while telling pebble it
// needs their contents, which is pebble's condition for not recycling logs: the Clean of the embedded
// DeleteCleaner is promoted at depth one, the marker method of ArchiveCleaner at depth two.
type shredder struct {
	pebble.Cleaner
	noRecycle
}

type noRecycle struct{ pebble.ArchiveCleaner }

func newShredder() shredder { return shredder{Cleaner: pebble.DeleteCleaner{}} }

func (shredder) String() string { return "delete (no log recycling)" }

// scrub makes the values of keys gone from pebble's files: flush, compact each key's range, settle.
func (e *Embedded) scrub(ctx context.Context, keys []ds.Key) error {
	db := e.db.DB
	if err := db.Flush(); err != nil {
		return fmt.Errorf("ipfs: flushing after a delete: %w", err)
	}
	ranges := [][2][]byte{}
	for _, k := range keys {
		b := k.Bytes()
		ranges = append(ranges, [2][]byte{b, append(append([]byte{}, b...), 0)})
	}
	for _, r := range ranges {
		if err := db.Compact(ctx, r[0], r[1], false); err != nil {
			return fmt.Errorf("ipfs: compacting after a delete: %w", err)
		}
	}
	return e.settle(ctx)
}

// settleLimit bounds the wait for pebble's cleaner, which deletes obsolete files in the background.
const settleLimit = 30 * time.Second

// settle waits until every table and log file in the store's directory is live: the obsolete ones, which
// may hold deleted values, are gone.
func (e *Embedded) settle(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, settleLimit)
	defer cancel()
	dir := filepath.Join(e.dir, storeDir)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		stale, err := e.staleFiles(dir)
		if err != nil || len(stale) == 0 {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("ipfs: pebble has not deleted %s yet: %w", strings.Join(stale, ", "), ctx.Err())
		case <-time.After(delay):
		}
	}
}

// staleFiles lists the tables and logs of dir that pebble no longer uses.
func (e *Embedded) staleFiles(dir string) ([]string, error) {
	levels, err := e.db.DB.SSTables()
	if err != nil {
		return nil, fmt.Errorf("ipfs: %w", err)
	}
	live := map[uint64]bool{}
	for _, level := range levels {
		for _, t := range level {
			live[uint64(t.BackingSSTNum)] = true
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("ipfs: %w", err)
	}
	var logs []uint64
	var stale []string
	for _, en := range entries {
		name, ext, _ := strings.Cut(en.Name(), ".")
		n, err := strconv.ParseUint(name, 10, 64)
		if err != nil {
			continue
		}
		switch ext {
		case "sst":
			if !live[n] {
				stale = append(stale, en.Name())
			}
		case "log":
			logs = append(logs, n)
		}
	}
	// The live logs are the newest ones, as many as pebble counts.
	liveLogs := int(e.db.DB.Metrics().WAL.Files)
	if extra := len(logs) - max(liveLogs, 1); extra > 0 {
		stale = append(stale, fmt.Sprintf("%d old write-ahead logs", extra))
	}
	return stale, nil
}

// deleteMigrated removes blocks from the flatfs store a migration moved aside, when there is one: those
// files are copies of what pebble held before the migration.
func (e *Embedded) deleteMigrated(ctx context.Context, bs []cid.Cid) error {
	dir := filepath.Join(e.dir, migratedDir, flatfsBlocks)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("ipfs: %w", err)
	}
	src, err := flatfs.Open(dir, true)
	if err != nil {
		return fmt.Errorf("ipfs: opening %s: %w", dir, err)
	}
	defer src.Close()
	for _, c := range bs {
		// The flatfs key of a block is its pebble key without the /blocks prefix (migratedKey).
		key := ds.NewKey(strings.TrimPrefix(blockKey(c).String(), blocksPrefix.String()))
		if err := src.Delete(ctx, key); err != nil && !errors.Is(err, ds.ErrNotFound) {
			return fmt.Errorf("ipfs: deleting block %s from %s: %w", c, dir, err)
		}
	}
	return nil
}
