#!/usr/bin/env bash
# build.sh rebuilds everything generated from the contracts: it installs the pinned compiler and
# OpenZeppelin (npm ci, from package-lock.json), compiles the sources into evm/registry (ABI and bytecode),
# and regenerates the Go bindings there with abigen --v2 at the go-ethereum version pinned in tools/geth
# (the same version the main module uses). `go generate ./evm/registry` runs it.
set -euo pipefail
contracts=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$contracts")
out=$root/evm/registry

cd "$contracts"
npm ci --no-audit --no-fund >&2
node compile.js "$out"

abigen() {
  (cd "$root/tools/geth" && GOFLAGS=-mod=mod go run github.com/ethereum/go-ethereum/cmd/abigen "$@")
}
for name in SealRegistry PlainERC721; do
  lower=$(echo "$name" | tr '[:upper:]' '[:lower:]')
  abigen --v2 --abi "$out/$name.abi" --bin "$out/$name.bin" --pkg registry --type "$name" \
    --out "$out/$lower.go"
done
chmod 644 "$out"/*.go
