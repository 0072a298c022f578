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
}

var (
	_ seald.BlobStore = (*Embedded)(nil)
	_ Source          = (*Embedded)(nil)
)

// OpenEmbedded opens the store in dir, creating it on first use. Close it when done.
func OpenEmbedded(dir string) (*Embedded, error) {
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
	return &Embedded{
		blocksDS: blocksDS,
		pinsDS:   pinsDS,
		// NoPrefix: flatfs takes one-level keys only, so the usual "/blocks" namespace stays out.
		bs: blockstore.NewBlockstore(blocksDS, blockstore.NoPrefix()),
	}, nil
}

// Close releases the datastores.
func (e *Embedded) Close() error {
	return errors.Join(e.blocksDS.Close(), e.pinsDS.Close())
}

// Put imports b with the fixed UnixFS parameters, writes its blocks, pins its root and returns the root CID.
// Putting the same bytes twice gives the same CID and writes nothing new.
func (e *Embedded) Put(ctx context.Context, b []byte) (string, error) {
	f, err := Import(ctx, b)
	if err != nil {
		return "", err
	}
	if err := e.bs.PutMany(ctx, f.Blocks); err != nil {
		return "", fmt.Errorf("ipfs: writing blocks of %s: %w", f.Root, err)
	}
	if err := e.pin(ctx, f.Root); err != nil {
		return "", err
	}
	return f.Root.String(), nil
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
