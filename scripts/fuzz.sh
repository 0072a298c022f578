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
  out=$(mktemp)
  if ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="$t" "$pkg" 2>&1 | tee "$out"; then
    # Go's fuzzing coordinator sometimes misses its own deadline on a loaded machine and reports "context
    # deadline exceeded" with no failing input (no crasher written). That is not a finding: run once more.
    # A real crasher fails both runs, and is kept in testdata/fuzz either way.
    if grep -q "context deadline exceeded" "$out" && ! grep -q "Failing input written" "$out"; then
      echo "fuzz: $pkg $target: the fuzzer missed its deadline without a failing input; running it again"
      go test -run='^$' -fuzz="^${target}\$" -fuzztime="$t" "$pkg"
    else
      rm -f "$out"
      exit 1
    fi
  fi
  rm -f "$out"
  if [ "${SAVE_CORPUS:-}" = 1 ]; then
    dir=$(go list -f '{{.Dir}}' "$pkg")
    import=$(go list -f '{{.ImportPath}}' "$pkg")
    mkdir -p "$dir/testdata/fuzz/$target"
    cp -n "$cache/$import/$target/"* "$dir/testdata/fuzz/$target/" 2>/dev/null || true
  fi
done
