package ipfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ipfs/boxo/blockstore"
	blocks "github.com/ipfs/go-block-format"
	"github.com/ipfs/go-cid"
	ds "github.com/ipfs/go-datastore"
	flatfs "github.com/ipfs/go-ds-flatfs"
	ipld "github.com/ipfs/go-ipld-format"

	"seald"
)

// Embedded is the default BlobStore: IPFS blocks kept on local disk, so that seald stores real, Kubo-identical
// CIDs with no other program installed, and serves them from its own gateway.
//
// Layout under the directory given to OpenEmbedded:
//
//	blocks/  every block, one file each (flatfs, sharded like Kubo's), keyed by multihash
//	pins/    one record per file root that Put stored (flatfs, keyed by the CID)
//
// Every write goes to a temporary file that is fsynced and renamed into place, so a crash leaves either the
// whole block or none of it. Put writes a file's pin record only after all of its blocks, so a pin never
// points at a partial DAG. Nothing deletes blocks today; the pins are there so that a garbage collector added
// later knows which DAGs to keep.
type Embedded struct {
	blocksDS *flatfs.Datastore
	pinsDS   *flatfs.Datastore
	bs       blockstore.Blockstore
	group    *putGroup // nil when group puts are off
	dir      string
}

var (
	_ seald.BlobStore = (*Embedded)(nil)
	_ Source          = (*Embedded)(nil)
)

// OpenEmbedded opens the store in dir, creating it on first use. Close it when done. Concurrent Puts are
// written in groups (see group.go) unless an option says otherwise.
func OpenEmbedded(dir string, opts ...EmbeddedOption) (*Embedded, error) {
	o := embeddedOptions{maxGroup: defaultMaxGroup}
	for _, opt := range opts {
		opt(&o)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("ipfs: %w", err)
	}
	// NextToLast(2) is the sharding Kubo uses for its own flatfs block store.
	blocksDS, err := flatfs.CreateOrOpen(filepath.Join(dir, "blocks"), flatfs.NextToLast(2), true)
	if err != nil {
		return nil, fmt.Errorf("ipfs: opening blocks: %w", err)
	}
	pinsDS, err := flatfs.CreateOrOpen(filepath.Join(dir, "pins"), flatfs.NextToLast(2), true)
	if err != nil {
		blocksDS.Close()
		return nil, fmt.Errorf("ipfs: opening pins: %w", err)
	}
	e := &Embedded{
		dir:      dir,
		blocksDS: blocksDS,
		pinsDS:   pinsDS,
		// NoPrefix: flatfs takes one-level keys only, so the usual "/blocks" namespace stays out.
		bs: blockstore.NewBlockstore(blocksDS, blockstore.NoPrefix()),
	}
	if o.maxGroup > 1 {
		e.group = newPutGroup(e, o.maxGroup)
	}
	return e, nil
}

// Close writes the Puts already queued, then releases the datastores.
func (e *Embedded) Close() error {
	if e.group != nil {
		e.group.close()
	}
	return errors.Join(e.blocksDS.Close(), e.pinsDS.Close())
}

// Put imports b with the fixed UnixFS parameters, writes its blocks, pins its root and returns the root CID.
// Putting the same bytes twice gives the same CID and writes nothing new.
func (e *Embedded) Put(ctx context.Context, b []byte) (string, error) {
	f, err := Import(ctx, b)
	if err != nil {
		return "", err
	}
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

// putOne writes one file's blocks, then its pin.
func (e *Embedded) putOne(ctx context.Context, root cid.Cid, bs []blocks.Block) error {
	if err := e.bs.PutMany(ctx, bs); err != nil {
		return fmt.Errorf("ipfs: writing blocks of %s: %w", root, err)
	}
	return e.pin(ctx, root)
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
	ok, err := e.pinsDS.Has(ctx, pinKey(c))
	if err != nil {
		return false, fmt.Errorf("ipfs: reading pin of %s: %w", c, err)
	}
	return ok, nil
}

func (e *Embedded) pin(ctx context.Context, c cid.Cid) error {
	// flatfs keys are upper-case base32; the canonical CIDv1 string is lower-case base32.
	if err := e.pinsDS.Put(ctx, pinKey(c), []byte(c.String()+"\n")); err != nil {
		return fmt.Errorf("ipfs: pinning %s: %w", c, err)
	}
	return nil
}

// pinKey is the flatfs key of c's pin record. CIDv1 is used so that a CIDv0 and its v1 form share one pin.
func pinKey(c cid.Cid) ds.Key {
	v1 := cid.NewCidV1(c.Type(), c.Hash())
	return ds.NewKey(strings.ToUpper(v1.String()))
}
