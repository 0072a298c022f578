#!/usr/bin/env bash
# fuzz.sh runs fuzz targets of the repo for FUZZTIME each (default 20s): the ones named as arguments
# (package:Target, e.g. ./httpapi:FuzzDecode), or every one when none is named. The seed corpora kept in the
# repo (testdata/fuzz) run as ordinary tests in `make test`; this explores beyond them. A crasher the fuzzer
# finds is written to the package's testdata/fuzz/<Target> and fails the run: commit it with the fix.
# With SAVE_CORPUS=1 the inputs the fuzzer found interesting (kept in the Go build cache) are copied into
# testdata/fuzz/<Target> too, so that the repo keeps the corpus and `make test` replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-20s}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for pkg in $(go list ./...); do
    for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
      targets+=("$pkg:$target")
    done
  done
fi
cache=$(go env GOCACHE)/fuzz
for pt in "${targets[@]}"; do
  pkg=${pt%%:*} target=${pt##*:}
  echo "fuzz: $pkg $target ($t)"
  go test -run='^$' -fuzz="^${target}\$" -fuzztime="$t" "$pkg"
  if [ "${SAVE_CORPUS:-}" = 1 ]; then
    dir=$(go list -f '{{.Dir}}' "$pkg")
    import=$(go list -f '{{.ImportPath}}' "$pkg")
    mkdir -p "$dir/testdata/fuzz/$target"
    cp -n "$cache/$import/$target/"* "$dir/testdata/fuzz/$target/" 2>/dev/null || true
  fi
done
