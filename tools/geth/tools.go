//go:build tools

// Package tools pins the geth node that the evm integration tests run against (package evm/gethtest);
// scripts/peers.sh builds github.com/ethereum/go-ethereum/cmd/geth from this module.
package tools

import _ "github.com/ethereum/go-ethereum/cmd/geth"
