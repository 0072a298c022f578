#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the repo for FUZZTIME each (default 20s). The seed corpora kept in the
# repo (testdata/fuzz) run as ordinary tests in `make test`; this explores beyond them.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-20s}
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz: $pkg $target ($t)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$t" "$pkg"
  done
done
