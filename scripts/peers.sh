#!/usr/bin/env bash
# peers.sh builds the real programs that the integration tests talk to (Kubo, geth, mailpit), and the bench's
# peer (tessera-peer, tools/tessera: a Trillian-Tessera log that sealbench measures beside seald), from their Go
# modules at the versions pinned in tools/<name>/go.mod, into a cache outside the repo, and prints one
# `export SEALD_TEST_<NAME>=<binary>` line per program for `eval`. It builds staticcheck (tools/staticcheck), which
# `make test` runs over the repository, the same way.
#
#   scripts/peers.sh            build every peer that is missing, print the exports
#   scripts/peers.sh kubo geth  only these
#
# A binary is rebuilt only when its tools module changes: the cache key is a digest of go.mod and go.sum.
# SEALD_PEERS_DIR moves the cache (default ~/.cache/seald/peers).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${SEALD_PEERS_DIR:-$HOME/.cache/seald/peers}

# name  package                                   binary   env var
peers=(
  "kubo    github.com/ipfs/kubo/cmd/ipfs                ipfs     SEALD_TEST_KUBO"
  "geth    github.com/ethereum/go-ethereum/cmd/geth     geth     SEALD_TEST_GETH"
  "mailpit github.com/axllent/mailpit                   mailpit  SEALD_TEST_MAILPIT"
  "tessera .                                           tessera-peer SEALD_BENCH_TESSERA"
  "staticcheck honnef.co/go/tools/cmd/staticcheck     staticcheck SEALD_STATICCHECK"
)

want=("$@")
for line in "${peers[@]}"; do
  read -r name pkg bin var <<<"$line"
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " =~ " $name " ]]; then continue; fi
  dir=$root/tools/$name
  [ -f "$dir/go.mod" ] || continue
  key=$(cat "$dir/go.mod" "$dir/go.sum" 2>/dev/null | sha256sum | cut -c1-12)
  out=$cache/$name-$key/$bin
  if [ ! -x "$out" ]; then
    echo "peers: building $name ($pkg) into $out" >&2
    mkdir -p "$(dirname "$out")"
    (cd "$dir" && GOFLAGS=-mod=mod go build -trimpath -o "$out.tmp" "$pkg") >&2
    mv "$out.tmp" "$out"
  fi
  echo "export $var=$out"
done
