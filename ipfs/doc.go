// Package ipfs keeps seald's encrypted envelopes on IPFS. It implements seald.BlobStore twice: Embedded, a
// block store on local disk that needs no other program (blocks and pins in one pebble key-value store, which
// also takes over a data dir of the older one-file-per-block flatfs store), and Kubo, a Kubo node's RPC API
// (or an IPFS Cluster proxy) for production. Both give the CID that `ipfs add --cid-version=1 --raw-leaves` gives for the same
// bytes, because both import with the same fixed parameters (see Import), and both check every block they
// read against its hash.
//
// Gateway serves what a Source holds at /ipfs/{cid} as the trustless gateway spec describes (the file, a raw
// block, or a CAR), so anyone can fetch a record's envelope and recompute its CID without trusting seald.
package ipfs
