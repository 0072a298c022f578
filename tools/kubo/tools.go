//go:build tools

// Package tools pins the Kubo daemon that the ipfs integration tests run against; scripts/peers.sh builds
// github.com/ipfs/kubo/cmd/ipfs from this module.
package tools

import _ "github.com/ipfs/kubo/cmd/ipfs"
