package ipfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	chunk "github.com/ipfs/boxo/chunker"
	"github.com/ipfs/boxo/ipld/unixfs/importer/balanced"
	"github.com/ipfs/boxo/ipld/unixfs/importer/helpers"
	blocks "github.com/ipfs/go-block-format"
	"github.com/ipfs/go-cid"
	ipld "github.com/ipfs/go-ipld-format"
	mh "github.com/multiformats/go-multihash"
)

// The UnixFS import parameters, fixed in code so that a CID never depends on a node's configuration: they are
// what `ipfs add --cid-version=1 --raw-leaves` uses with Kubo's defaults, and Kubo is sent them explicitly.
const (
	// ChunkSize is the fixed chunk size: files up to this size are one raw block.
	ChunkSize = 256 << 10
	// MaxLinks is the fan-out of the balanced layout's inner nodes. It is written out rather than taken from
	// boxo's package variable, which any importer in the process could change.
	MaxLinks = 174
)

// builder makes CIDv1 with SHA-256; the importer switches the codec to raw for leaves itself.
var builder = cid.V1Builder{Codec: cid.DagProtobuf, MhType: mh.SHA2_256}

// File is one imported file: its root CID and every block of its DAG, root last, each block once.
type File struct {
	Root   cid.Cid
	Blocks []blocks.Block
}

// Import turns b into UnixFS blocks with the fixed parameters (CIDv1, raw leaves, SHA-256, 256 KiB chunks,
// balanced layout, 174 links per node). It stores nothing: callers decide where the blocks go, and a caller
// that only needs the CID, such as Kubo checking a node's answer, discards them.
func Import(ctx context.Context, b []byte) (*File, error) {
	col := &collector{ctx: ctx, seen: make(map[string]bool)}
	params := helpers.DagBuilderParams{
		Maxlinks:   MaxLinks,
		RawLeaves:  true,
		CidBuilder: builder,
		Dagserv:    col,
	}
	db, err := params.New(chunk.NewSizeSplitter(bytes.NewReader(b), ChunkSize))
	if err != nil {
		return nil, fmt.Errorf("ipfs: import: %w", err)
	}
	root, err := balanced.Layout(db)
	if err != nil {
		return nil, fmt.Errorf("ipfs: import: %w", err)
	}
	return &File{Root: root.Cid(), Blocks: col.blocks}, nil
}

// CID returns the CID that Import gives for b, as its base32 string.
func CID(ctx context.Context, b []byte) (string, error) {
	f, err := Import(ctx, b)
	if err != nil {
		return "", err
	}
	return f.Root.String(), nil
}

// collector is the DAG service the importer writes into: it keeps the blocks in memory, each once, so that a
// store can write them in one batch after the whole DAG is known. The importer never reads back.
type collector struct {
	ctx    context.Context
	seen   map[string]bool
	blocks []blocks.Block
}

var _ ipld.DAGService = (*collector)(nil)

var errWriteOnly = errors.New("ipfs: the import collector is write-only")

func (c *collector) Add(ctx context.Context, n ipld.Node) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	k := n.Cid().KeyString()
	if c.seen[k] {
		return nil
	}
	c.seen[k] = true
	c.blocks = append(c.blocks, n)
	return nil
}

func (c *collector) AddMany(ctx context.Context, ns []ipld.Node) error {
	for _, n := range ns {
		if err := c.Add(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

func (c *collector) Get(context.Context, cid.Cid) (ipld.Node, error) { return nil, errWriteOnly }

func (c *collector) GetMany(context.Context, []cid.Cid) <-chan *ipld.NodeOption {
	ch := make(chan *ipld.NodeOption, 1)
	ch <- &ipld.NodeOption{Err: errWriteOnly}
	close(ch)
	return ch
}

func (c *collector) Remove(context.Context, cid.Cid) error       { return errWriteOnly }
func (c *collector) RemoveMany(context.Context, []cid.Cid) error { return errWriteOnly }
