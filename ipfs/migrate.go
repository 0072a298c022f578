package ipfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ipfs/go-cid"
	ds "github.com/ipfs/go-datastore"
	"github.com/ipfs/go-datastore/query"
	flatfs "github.com/ipfs/go-ds-flatfs"
)

// Migration of a flatfs store. Until pebble, the embedded store kept every block as a file of a flatfs
// datastore in blocks/ (keyed like boxo's blockstore, without its /blocks prefix) and every pin as a file of
// another in pins/ (keyed by the upper-case CIDv1). OpenEmbedded copies both into pebble before it serves
// anything:
//
//  1. every block of blocks/, then every pin of pins/, in batches committed with a sync, so that no pin is
//     stored before the blocks it names;
//  2. only then the two directories are renamed into flatfs-migrated/ and the data dir is synced.
//
// Copying a record twice writes the same key and value again, so a crash anywhere before step 2 is redone
// whole at the next start, and a crash between the two renames redoes the pins only (their blocks are
// already durable). The old directories are kept aside, not deleted: the operator deletes flatfs-migrated/
// once satisfied.

const (
	flatfsBlocks = "blocks"
	flatfsPins   = "pins"
	// migratedDir receives the old directories once their contents are durable in pebble.
	migratedDir = "flatfs-migrated"
)

// migrateBatchBytes bounds one batch of the copy (a variable so that tests can make batches small).
var migrateBatchBytes = 16 << 20

// migrateFault, when set by a test, is asked after each committed batch with the number of records copied
// so far; true makes the migration fail there, as a crash would stop it.
var migrateFault func(copied int) bool

// errMigrateFault is the error of a migration stopped by migrateFault.
var errMigrateFault = errors.New("migration stopped by a test")

// migrateFlatfs copies a flatfs store found in e's directory into e's pebble store, then moves it aside.
func migrateFlatfs(ctx context.Context, e *Embedded, logger *slog.Logger) error {
	var found []string
	for _, name := range []string{flatfsBlocks, flatfsPins} {
		if _, err := os.Stat(filepath.Join(e.dir, name)); err == nil {
			found = append(found, name)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("ipfs: %w", err)
		}
	}
	if len(found) == 0 {
		return nil
	}
	start := time.Now()
	logger.Info("ipfs: migrating the embedded IPFS store from flatfs files to pebble", "dir", e.dir, "found", found)
	counts := map[string]int{}
	for _, name := range found { // blocks, then pins
		n, err := copyFlatfs(ctx, e, name)
		if err != nil {
			return fmt.Errorf("ipfs: migrating %s: %w", filepath.Join(e.dir, name), err)
		}
		counts[name] = n
	}
	aside := filepath.Join(e.dir, migratedDir)
	if err := os.MkdirAll(aside, 0o700); err != nil {
		return fmt.Errorf("ipfs: %w", err)
	}
	for _, name := range found {
		if err := os.Rename(filepath.Join(e.dir, name), filepath.Join(aside, name)); err != nil {
			return fmt.Errorf("ipfs: moving the migrated flatfs store aside: %w", err)
		}
	}
	if err := errors.Join(syncDir(aside), syncDir(e.dir)); err != nil {
		return fmt.Errorf("ipfs: %w", err)
	}
	logger.Info("ipfs: migrated the embedded IPFS store to pebble; the old files are kept aside and may be deleted",
		"dir", e.dir, "blocks", counts[flatfsBlocks], "pins", counts[flatfsPins], "aside", aside,
		"took", time.Since(start).Round(time.Millisecond))
	return nil
}

// copyFlatfs copies every record of the flatfs datastore e.dir/name into pebble and returns their number.
// Each batch is committed with a sync (the datastore's write options), so all of them are durable on return.
func copyFlatfs(ctx context.Context, e *Embedded, name string) (int, error) {
	src, err := flatfs.Open(filepath.Join(e.dir, name), false)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	res, err := src.Query(ctx, query.Query{})
	if err != nil {
		return 0, err
	}
	defer res.Close()
	batch, err := e.db.Batch(ctx)
	if err != nil {
		return 0, err
	}
	n, size := 0, 0
	for r := range res.Next() {
		if r.Error != nil {
			return n, r.Error
		}
		key, err := migratedKey(name, r.Entry)
		if err != nil {
			return n, err
		}
		var value []byte
		if name == flatfsBlocks {
			value = r.Value
		}
		if err := batch.Put(ctx, key, value); err != nil {
			return n, err
		}
		n++
		if size += len(value) + len(r.Key); size >= migrateBatchBytes {
			if err := batch.Commit(ctx); err != nil {
				return n, err
			}
			if migrateFault != nil && migrateFault(n) {
				return n, errMigrateFault
			}
			if batch, err = e.db.Batch(ctx); err != nil {
				return n, err
			}
			size = 0
		}
	}
	return n, batch.Commit(ctx)
}

// migratedKey is the pebble key of a flatfs record: a block keeps its key under the blocks prefix; a pin,
// whose flatfs key is its CIDv1 in upper case, gets the pin key of that CID.
func migratedKey(name string, entry query.Entry) (ds.Key, error) {
	if name == flatfsBlocks {
		return blocksPrefix.Child(ds.RawKey(entry.Key)), nil
	}
	c, err := cid.Decode(strings.ToLower(strings.TrimPrefix(entry.Key, "/")))
	if err != nil {
		return ds.Key{}, fmt.Errorf("pin %s is not a CID: %w", entry.Key, err)
	}
	return pinKey(c), nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
