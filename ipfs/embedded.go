package ipfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/ipfs/boxo/blockstore"
	dshelp "github.com/ipfs/boxo/datastore/dshelp"
	blocks "github.com/ipfs/go-block-format"
	"github.com/ipfs/go-cid"
	ds "github.com/ipfs/go-datastore"
	pebbleds "github.com/ipfs/go-ds-pebble"
	ipld "github.com/ipfs/go-ipld-format"

	"seald.dev/seald"
)

// Embedded is the default BlobStore: IPFS blocks kept on local disk, so that seald stores real, Kubo-identical
// CIDs with no other program installed, and serves them from its own gateway.
//
// Everything lives in one pebble key-value store (an LSM tree: a write-ahead log and a few large sorted
// files) in the directory pebble/ under the one given to OpenEmbedded:
//
//	/blocks/<multihash>  every block, keyed as boxo's blockstore keys it (and as Kubo's datastore does)
//	/pins/<CIDv1>        one empty record per file root that Put stored
//
// A Put writes a file's new blocks and its pin in one pebble batch, committed with a sync of the write-ahead
// log: Put returns only once both are durable, and the batch is atomic, so a pin never names a block that
// is not stored. Concurrent Puts share that sync (see group.go). Delete (delete.go) drops a file's pin and
// the blocks of it no other pin uses, which is how an erased record's copy goes.
//
// Data dirs written before this store kept one flatfs file per block (blocks/) and per pin (pins/);
// OpenEmbedded moves them into pebble on first start (see migrate.go).
//
// Pebble locks its directory, so a second process (or a second OpenEmbedded in this one) on the same dir is
// refused with an error naming it.
type Embedded struct {
	db    *pebbleds.Datastore
	lock  *pebble.Lock
	bs    blockstore.Blockstore
	group *putGroup // nil when group puts are off
	dir   string

	mu     sync.RWMutex // held for reading by every operation, for writing by Close
	closed bool
	// gc is held for reading by each Put, from its look for missing blocks to its commit, and for writing
	// by Delete, so that a block a Put counts on is not deleted under it.
	gc sync.RWMutex
}

var (
	_ seald.BlobStore = (*Embedded)(nil)
	_ Source          = (*Embedded)(nil)
)

// Key prefixes in the pebble store. blocksPrefix is boxo's own (blockstore.BlockPrefix), written out so
// that Put's batches and the blockstore's reads can be seen to agree.
var (
	blocksPrefix = ds.NewKey("/blocks")
	pinsPrefix   = ds.NewKey("/pins")
)

// storeDir is the pebble directory under the one given to OpenEmbedded.
const storeDir = "pebble"

// EmbeddedOption changes how OpenEmbedded sets up the store.
type EmbeddedOption func(*embeddedOptions)

type embeddedOptions struct {
	maxGroup int
	logger   *slog.Logger
}

// WithLogger sets where the store logs its migration of an old data dir and pebble's own errors (default:
// slog.Default()).
func WithLogger(l *slog.Logger) EmbeddedOption { return func(o *embeddedOptions) { o.logger = l } }

// OpenEmbedded opens the store in dir, creating it on first use and migrating a flatfs store found there.
// Close it when done.
func OpenEmbedded(dir string, opts ...EmbeddedOption) (*Embedded, error) {
	o := embeddedOptions{maxGroup: defaultMaxGroup, logger: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	path := filepath.Join(dir, storeDir)
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, fmt.Errorf("ipfs: %w", err)
	}
	// The lock is taken apart from Open so that its failure, and only that, reads as "in use".
	lock, err := pebble.LockDirectory(path, vfs.Default)
	if err != nil {
		return nil, fmt.Errorf("ipfs: the embedded IPFS store %s is in use by another process (or already open in this one): %w", path, err)
	}
	db, err := pebbleds.NewDatastore(path,
		pebbleds.WithPebbleOpts(&pebble.Options{Lock: lock, Logger: pebbleLogger{o.logger}, Cleaner: newShredder()}),
		// Every write that goes through the datastore (Put's batches, the migration's) syncs the log.
		pebbleds.WithPebbleWriteOptions(pebble.Sync))
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("ipfs: opening %s: %w", path, err)
	}
	e := &Embedded{
		dir:  dir,
		db:   db,
		lock: lock,
		bs:   blockstore.NewBlockstore(db),
	}
	if err := migrateFlatfs(context.Background(), e, o.logger); err != nil {
		e.closeStore()
		return nil, err
	}
	if err := e.finishScrubs(context.Background()); err != nil {
		e.closeStore()
		return nil, err
	}
	if o.maxGroup > 1 {
		e.group = newPutGroup(e, o.maxGroup)
	}
	return e, nil
}

// Close writes the Puts already queued, then closes the store. Calls after the first do nothing.
func (e *Embedded) Close() error {
	if e.group != nil {
		e.group.close()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	return e.closeStore()
}

func (e *Embedded) closeStore() error {
	err := e.db.Close()
	return errors.Join(err, e.lock.Close())
}

// errClosed is the error of every call after Close.
var errClosed = errors.New("ipfs: the embedded store is closed")

// use holds the store open for one call; done releases it.
func (e *Embedded) use() (done func(), err error) {
	e.mu.RLock()
	if e.closed {
		e.mu.RUnlock()
		return nil, errClosed
	}
	return e.mu.RUnlock, nil
}

// Put imports b with the fixed UnixFS parameters, writes its blocks, pins its root and returns the root CID.
// Putting the same bytes twice gives the same CID and writes nothing new.
func (e *Embedded) Put(ctx context.Context, b []byte) (string, error) {
	f, err := Import(ctx, b)
	if err != nil {
		return "", err
	}
	e.gc.RLock()
	defer e.gc.RUnlock()
	if e.group != nil {
		err = e.group.put(ctx, f.Root, f.Blocks)
	} else {
		err = e.putOne(ctx, f.Root, f.Blocks)
	}
	if err != nil {
		return "", err
	}
	return f.Root.String(), nil
}

// putOne writes one file's blocks and pin in one batch of its own.
func (e *Embedded) putOne(ctx context.Context, root cid.Cid, bs []blocks.Block) error {
	done, err := e.use()
	if err != nil {
		return err
	}
	defer done()
	fresh, err := e.missing(ctx, bs)
	if err != nil {
		return err
	}
	batch, err := e.db.Batch(ctx)
	if err != nil {
		return fmt.Errorf("ipfs: %w", err)
	}
	if err := addFile(ctx, batch, root, fresh); err != nil {
		return err
	}
	if err := batch.Commit(ctx); err != nil {
		return fmt.Errorf("ipfs: writing %s: %w", root, err)
	}
	return nil
}

// missing returns the blocks of bs that the store does not hold yet.
func (e *Embedded) missing(ctx context.Context, bs []blocks.Block) ([]blocks.Block, error) {
	var out []blocks.Block
	for _, b := range bs {
		ok, err := e.bs.Has(ctx, b.Cid())
		if err != nil {
			return nil, fmt.Errorf("ipfs: reading block %s: %w", b.Cid(), err)
		}
		if !ok {
			out = append(out, b)
		}
	}
	return out, nil
}

// addFile adds a file's blocks, then its pin, to batch.
func addFile(ctx context.Context, batch ds.Batch, root cid.Cid, bs []blocks.Block) error {
	for _, b := range bs {
		if err := batch.Put(ctx, blockKey(b.Cid()), b.RawData()); err != nil {
			return fmt.Errorf("ipfs: writing block %s: %w", b.Cid(), err)
		}
	}
	if err := batch.Put(ctx, pinKey(root), nil); err != nil {
		return fmt.Errorf("ipfs: pinning %s: %w", root, err)
	}
	return nil
}

// Get returns the file behind cidStr, every block checked against its hash.
func (e *Embedded) Get(ctx context.Context, cidStr string) ([]byte, error) {
	c, err := ParseCID(cidStr)
	if err != nil {
		return nil, err
	}
	return ReadFile(ctx, e, c)
}

// Block returns one block's bytes after checking them against c, for the gateway's raw and CAR answers.
func (e *Embedded) Block(ctx context.Context, c cid.Cid) ([]byte, error) {
	done, err := e.use()
	if err != nil {
		return nil, err
	}
	defer done()
	blk, err := e.bs.Get(ctx, c)
	if ipld.IsNotFound(err) {
		return nil, notFound(c)
	}
	if err != nil {
		return nil, fmt.Errorf("ipfs: reading block %s: %w", c, err)
	}
	if err := verify(c, blk.RawData()); err != nil {
		return nil, err
	}
	return blk.RawData(), nil
}

// WriteCAR writes the DAG under cidStr as a CARv1, for callers (exports, proofs) that want the blocks
// themselves so that anyone can recompute the CID.
func (e *Embedded) WriteCAR(ctx context.Context, cidStr string, w io.Writer) error {
	c, err := ParseCID(cidStr)
	if err != nil {
		return err
	}
	return WriteCAR(ctx, e, c, w)
}

// Pinned reports whether Put stored and pinned the file rooted at cidStr.
func (e *Embedded) Pinned(ctx context.Context, cidStr string) (bool, error) {
	c, err := ParseCID(cidStr)
	if err != nil {
		return false, err
	}
	done, err := e.use()
	if err != nil {
		return false, err
	}
	defer done()
	ok, err := e.db.Has(ctx, pinKey(c))
	if err != nil {
		return false, fmt.Errorf("ipfs: reading pin of %s: %w", c, err)
	}
	return ok, nil
}

// blockKey is the key of c's block: boxo's blockstore key (the multihash, so that a CIDv0 and its v1 form,
// or one hash under two codecs, share one block) under boxo's prefix.
func blockKey(c cid.Cid) ds.Key {
	return blocksPrefix.Child(dshelp.MultihashToDsKey(c.Hash()))
}

// pinKey is the key of c's pin record. CIDv1 is used so that a CIDv0 and its v1 form share one pin.
func pinKey(c cid.Cid) ds.Key {
	return pinsPrefix.ChildString(cid.NewCidV1(c.Type(), c.Hash()).String())
}

// pebbleLogger hands pebble's log lines to the service's logger. Pebble's informational lines are
// routine (compactions, flushes) and go to debug.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug("ipfs: pebble: " + fmt.Sprintf(format, args...))
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error("ipfs: pebble: " + fmt.Sprintf(format, args...))
}

// Fatalf is called by pebble when it cannot go on (its on-disk state is not what it wrote); it must not
// return.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := "ipfs: pebble: " + fmt.Sprintf(format, args...)
	p.l.Error(msg)
	panic(msg)
}
