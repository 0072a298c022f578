package seald

import "context"

// BlobStore keeps content-addressed bytes: IPFS. The embedded default is a block store in the data dir
// (package ipfs), the production adapter a Kubo RPC endpoint.
//
// Put must give exactly the CID that `ipfs add --cid-version=1 --raw-leaves` gives for the same bytes (UnixFS,
// SHA-256, 256 KiB chunks, balanced layout, 174 links per node), whatever the node's own settings.
type BlobStore interface {
	// Put stores and pins b and returns its CIDv1 in base32 ("bafk..." or "bafy...").
	Put(ctx context.Context, b []byte) (cid string, err error)
	// Get returns the whole file behind cid, every block checked against its hash. An unknown CID is an
	// *Error with code ENOTFOUND; a block that fails its hash check is an error, never data.
	Get(ctx context.Context, cid string) ([]byte, error)
	// Delete stops keeping the file behind cid: the embedded store drops its pin and every block of it no
	// other pinned file uses, Kubo unpins it (its garbage collector frees the blocks). Deleting a CID that
	// is not stored does nothing and is no error, so an erasure can be run again after a crash.
	Delete(ctx context.Context, cid string) error
}
