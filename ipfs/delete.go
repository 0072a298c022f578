package ipfs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/ipfs/go-cid"
	ds "github.com/ipfs/go-datastore"
	"github.com/ipfs/go-datastore/query"
	ipld "github.com/ipfs/go-ipld-format"
)

// Delete drops the pin of the file behind cidStr and every block of its DAG that no other pinned file's DAG
// uses, in one batch: a crash leaves the file either whole and pinned or gone. A CID that is not pinned is
// nothing to do (already deleted, or never stored here).
//
// Finding the blocks another file uses walks the DAG of every other pin: the cost grows with the number of
// stored files (a raw-leaf envelope under 256 KiB is one block, read from its key alone), which suits the
// occasional erasure. Puts are held off meanwhile (gc), so that a Put that found a block present, and so
// did not write it, cannot see it deleted before its pin is committed.
func (e *Embedded) Delete(ctx context.Context, cidStr string) error {
	c, err := ParseCID(cidStr)
	if err != nil {
		return err
	}
	e.gc.Lock()
	defer e.gc.Unlock()
	done, err := e.use()
	if err != nil {
		return err
	}
	defer done()
	pinned, err := e.db.Has(ctx, pinKey(c))
	if err != nil {
		return fmt.Errorf("ipfs: reading pin of %s: %w", c, err)
	}
	if !pinned {
		// Deleted already; a scrub that did not finish left its mark (scrub.go), and is finished now.
		return e.finishScrub(ctx, c)
	}
	// Blocks are keyed by multihash: a CIDv0 and its v1, or one hash under two codecs, share a block.
	mine := map[string]cid.Cid{}
	if err := e.dag(ctx, c, func(b cid.Cid) bool {
		mine[string(b.Hash())] = b
		return true
	}); err != nil {
		return err
	}
	res, err := e.db.Query(ctx, query.Query{Prefix: pinsPrefix.String(), KeysOnly: true})
	if err != nil {
		return fmt.Errorf("ipfs: listing pins: %w", err)
	}
	defer res.Close()
	self := cid.NewCidV1(c.Type(), c.Hash()).String()
	for r := range res.Next() {
		if r.Error != nil {
			return fmt.Errorf("ipfs: listing pins: %w", r.Error)
		}
		name := ds.RawKey(r.Key).BaseNamespace()
		if name == self {
			continue
		}
		other, err := cid.Decode(name)
		if err != nil {
			return fmt.Errorf("ipfs: pin %q: %w", r.Key, err)
		}
		if err := e.dag(ctx, other, func(b cid.Cid) bool {
			delete(mine, string(b.Hash()))
			return len(mine) > 0
		}); err != nil {
			return err
		}
		if len(mine) == 0 {
			break
		}
	}
	res.Close()
	bs := make([]cid.Cid, 0, len(mine))
	for _, b := range mine {
		bs = append(bs, b)
	}
	// The copies a migration from flatfs kept aside go first: a crash after it finds them gone, and the
	// blocks still in pebble, and does the rest.
	if err := e.deleteMigrated(ctx, bs); err != nil {
		return err
	}
	batch, err := e.db.Batch(ctx)
	if err != nil {
		return fmt.Errorf("ipfs: %w", err)
	}
	if err := batch.Delete(ctx, pinKey(c)); err != nil {
		return fmt.Errorf("ipfs: unpinning %s: %w", c, err)
	}
	keys := make([]ds.Key, 0, len(bs))
	for _, b := range bs {
		keys = append(keys, blockKey(b))
		if err := batch.Delete(ctx, blockKey(b)); err != nil {
			return fmt.Errorf("ipfs: deleting block %s: %w", b, err)
		}
	}
	// The scrub mark names the deleted blocks until their bytes are gone from pebble's files, so that a
	// Delete retried after a failed scrub, or the next start, finishes it.
	if err := batch.Put(ctx, scrubKey(c), scrubMark(keys)); err != nil {
		return fmt.Errorf("ipfs: deleting %s: %w", c, err)
	}
	if err := batch.Commit(ctx); err != nil {
		return fmt.Errorf("ipfs: deleting %s: %w", c, err)
	}
	return e.finishScrub(ctx, c)
}

// dag calls visit with every block CID of the DAG under c, the root first, until visit returns false.
// Raw leaves are named by their parent's links and not read; a block that is missing ends that branch
// (a broken DAG still gives up the blocks it has).
func (e *Embedded) dag(ctx context.Context, c cid.Cid, visit func(cid.Cid) bool) error {
	seen := map[string]bool{}
	var walk func(c cid.Cid) (bool, error)
	walk = func(c cid.Cid) (bool, error) {
		if seen[c.KeyString()] {
			return true, nil
		}
		seen[c.KeyString()] = true
		if !visit(c) {
			return false, nil
		}
		if c.Type() != cid.DagProtobuf {
			return true, nil
		}
		blk, err := e.bs.Get(ctx, c)
		if ipld.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("ipfs: reading block %s: %w", c, err)
		}
		n, err := decode(c, blk.RawData())
		if err != nil {
			return false, err
		}
		for _, l := range n.Links() {
			if more, err := walk(l.Cid); err != nil || !more {
				return more, err
			}
		}
		return true, nil
	}
	_, err := walk(c)
	return err
}

// Delete unpins cidStr on the node (pin/rm), so its garbage collector may free the blocks. A CID that is not
// pinned there is nothing to do. Copies other nodes fetched are theirs: they stay, encrypted.
func (k *Kubo) Delete(ctx context.Context, cidStr string) error {
	c, err := ParseCID(cidStr)
	if err != nil {
		return err
	}
	resp, err := k.call(ctx, "pin/rm", url.Values{"arg": {c.String()}, "recursive": {"true"}}, "", nil)
	var ae *apiError
	if errors.As(err, &ae) && strings.Contains(strings.ToLower(ae.Message), "not pinned") {
		return nil // Kubo refuses, with a 500, to unpin what is not pinned
	}
	if err != nil {
		return err
	}
	return drainStream("pin/rm", resp)
}

// Pinned reports whether the node (or the cluster) pins the file rooted at cidStr recursively, the way Put
// pins it: after Delete it is false even while the node's garbage collector has not yet freed the blocks. The
// start-up sweep asks it of every erased record's copy. It reads pin/ls for that one CID; Kubo answers a CID
// it does not pin with a 500 that says so, which is false here, not an error.
func (k *Kubo) Pinned(ctx context.Context, cidStr string) (bool, error) {
	c, err := ParseCID(cidStr)
	if err != nil {
		return false, err
	}
	resp, err := k.call(ctx, "pin/ls", url.Values{"arg": {c.String()}, "type": {"recursive"}}, "", nil)
	var ae *apiError
	if errors.As(err, &ae) && strings.Contains(strings.ToLower(ae.Message), "not pinned") {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	var ls struct {
		Keys map[string]struct{ Type string }
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&ls); err != nil {
		return false, unavailable("pin/ls", err)
	}
	for key, pin := range ls.Keys {
		got, err := cid.Decode(key)
		if err == nil && string(got.Hash()) == string(c.Hash()) && pin.Type == "recursive" {
			return true, nil
		}
	}
	return false, nil
}
