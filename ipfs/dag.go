package ipfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ipfs/boxo/ipld/merkledag"
	unixfsio "github.com/ipfs/boxo/ipld/unixfs/io"
	blocks "github.com/ipfs/go-block-format"
	"github.com/ipfs/go-cid"
	ipld "github.com/ipfs/go-ipld-format"
	carv2 "github.com/ipld/go-car/v2"
	carstorage "github.com/ipld/go-car/v2/storage"

	"seald.dev/seald"
)

// ErrCorrupt is the cause of every error about a block whose bytes do not hash to its CID. Such a block is
// never returned as data: a disk that rots or a node that lies must show up as a fault, not as a record.
var ErrCorrupt = errors.New("ipfs: block does not match its CID")

// Source gives blocks by CID, each already checked against its hash. The gateway and the file reader work
// over a Source, so that seald's own /ipfs/ gateway serves the same bytes whether the blocks live in the
// embedded store or on a Kubo node.
type Source interface {
	// Block returns the bytes of one block. An unknown CID is an *seald.Error with code ENOTFOUND; bytes
	// that do not match c are an error wrapping ErrCorrupt.
	Block(ctx context.Context, c cid.Cid) ([]byte, error)
}

// ParseCID parses a CID string from a caller. A malformed one is an *seald.Error with code EINVALID, so that
// the HTTP layer answers 400 rather than 404.
func ParseCID(s string) (cid.Cid, error) {
	c, err := cid.Decode(s)
	if err != nil {
		return cid.Undef, seald.Errorf(seald.EINVALID, "malformed CID %q", s)
	}
	return c, nil
}

// Canonical returns the form seald stores and answers of a CID: version 1 in base32, the same codec and
// hash. A CIDv0 (always dag-pb) and a CIDv1 in another multibase name the same content. Anything that does
// not parse is returned as it is.
func Canonical(s string) string {
	c, err := cid.Decode(s)
	if err != nil {
		return s
	}
	return cid.NewCidV1(c.Type(), c.Hash()).String()
}

// verify checks data against c by hashing it again with c's own hash function.
func verify(c cid.Cid, data []byte) error {
	got, err := c.Prefix().Sum(data)
	if err != nil {
		return fmt.Errorf("ipfs: hashing block %s: %w", c, err)
	}
	if !got.Equals(c) {
		return fmt.Errorf("%w: %s", ErrCorrupt, c)
	}
	return nil
}

// notFound is the error for a CID that a source does not hold.
func notFound(c cid.Cid) error {
	return seald.Errorf(seald.ENOTFOUND, "no content with CID %s", c)
}

// decode turns a verified block into a DAG node. Only the two codecs a UnixFS file uses are understood.
func decode(c cid.Cid, data []byte) (ipld.Node, error) {
	blk, err := blocks.NewBlockWithCid(data, c)
	if err != nil {
		return nil, err
	}
	switch c.Type() {
	case cid.Raw:
		return merkledag.DecodeRawBlock(blk)
	case cid.DagProtobuf:
		return merkledag.DecodeProtobufBlock(blk)
	default:
		return nil, seald.Errorf(seald.EINVALID, "CID %s is not a UnixFS file (codec 0x%x)", c, c.Type())
	}
}

// nodeGetter adapts a Source to the interface boxo's UnixFS reader walks. It is used for the blocks under a
// root only, so a block that is missing there is a broken DAG, not an unknown CID.
type nodeGetter struct{ src Source }

var _ ipld.NodeGetter = nodeGetter{}

func (g nodeGetter) Get(ctx context.Context, c cid.Cid) (ipld.Node, error) {
	data, err := g.src.Block(ctx, c)
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		return nil, fmt.Errorf("ipfs: block %s of the DAG is missing", c)
	}
	if err != nil {
		return nil, err
	}
	return decode(c, data)
}

func (g nodeGetter) GetMany(ctx context.Context, cs []cid.Cid) <-chan *ipld.NodeOption {
	ch := make(chan *ipld.NodeOption, len(cs))
	go func() {
		defer close(ch)
		for _, c := range cs {
			n, err := g.Get(ctx, c)
			select {
			case ch <- &ipld.NodeOption{Node: n, Err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// root fetches and decodes the root block of c. Blocks are stored by their hash, so a CID of a stored hash
// with another codec finds bytes that are not a node of its codec: that is the caller's CID, not a fault,
// and the answer names the CID the content is stored under.
func root(ctx context.Context, src Source, c cid.Cid) (ipld.Node, error) {
	data, err := src.Block(ctx, c)
	if err != nil {
		return nil, err
	}
	n, err := decode(c, data)
	if err != nil && seald.ErrorCode(err) == seald.EINTERNAL {
		other := cid.NewCidV1(cid.Raw, c.Hash())
		if c.Type() == cid.Raw {
			other = cid.NewCidV1(cid.DagProtobuf, c.Hash())
		}
		if _, derr := decode(other, data); derr == nil {
			return nil, seald.Errorf(seald.EINVALID, "CID %s names content stored under another codec: send %s", c, other)
		}
		return nil, seald.Errorf(seald.EINVALID, "CID %s does not name a UnixFS file", c)
	}
	return n, err
}

// ReadFile reassembles the UnixFS file behind c from src, every block checked against its hash on the way.
func ReadFile(ctx context.Context, src Source, c cid.Cid) ([]byte, error) {
	n, err := root(ctx, src, c)
	if err != nil {
		return nil, err
	}
	r, err := unixfsio.NewDagReader(ctx, n, nodeGetter{src})
	if err != nil {
		// The root is a node of its codec but not of a UnixFS file: the CID is not one of a file.
		return nil, seald.Errorf(seald.EINVALID, "CID %s does not name a UnixFS file: %v", c, err)
	}
	defer r.Close()
	var buf bytes.Buffer
	buf.Grow(int(min(r.Size(), 64<<20)))
	if _, err := r.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("ipfs: reading %s: %w", c, err)
	}
	if uint64(buf.Len()) != r.Size() {
		return nil, fmt.Errorf("ipfs: %s holds %d bytes, its root says %d", c, buf.Len(), r.Size())
	}
	return buf.Bytes(), nil
}

// WriteCAR writes the whole DAG under c as a CARv1 with c as its only root: blocks in depth-first order,
// each once (order=dfs, dups=n in the trustless gateway's terms), every one checked against its hash.
func WriteCAR(ctx context.Context, src Source, c cid.Cid, w io.Writer) error {
	n, err := root(ctx, src, c)
	if err != nil {
		return err
	}
	// A plain io.Writer (not an io.WriterAt) makes the writer stream CARv1 without seeking.
	car, err := carstorage.NewWritable(struct{ io.Writer }{w}, []cid.Cid{c}, carv2.WriteAsCarV1(true))
	if err != nil {
		return fmt.Errorf("ipfs: car: %w", err)
	}
	seen := make(map[string]bool)
	var walk func(n ipld.Node) error
	walk = func(n ipld.Node) error {
		k := n.Cid().KeyString()
		if seen[k] {
			return nil
		}
		seen[k] = true
		if err := car.Put(ctx, k, n.RawData()); err != nil {
			return fmt.Errorf("ipfs: car: %w", err)
		}
		for _, l := range n.Links() {
			child, err := nodeGetter{src}.Get(ctx, l.Cid)
			if err != nil {
				return err
			}
			if err := walk(child); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(n)
}
