#!/usr/bin/env bash
# test.sh is `make test`: it sets up what the tests talk to on this machine, then runs gofmt, go vet, `go mod
# tidy -diff` (go.mod and go.sum as tidy leaves them), staticcheck (pinned by tools/staticcheck; which checks:
# staticcheck.conf, unused code among them) and every test with the race detector. Nothing is skipped here:
# the PostgreSQL server is started when it is down, and the real peer programs (Kubo, geth, mailpit) and
# staticcheck are built from their pinned tools modules on first use.
set -euo pipefail
cd "$(dirname "$0")/.."

export SEALD_TEST_POSTGRES_DSN=${SEALD_TEST_POSTGRES_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "test: starting PostgreSQL" >&2
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
fi

eval "$(scripts/peers.sh)"

# The independent proof verifier (tools/verify-bundle: Node and ethers, no seald code) that the proof tests
# run beside seald proof verify; its dependencies are pinned by its package-lock.json.
if [ ! -d tools/verify-bundle/node_modules/ethers ]; then
  (cd tools/verify-bundle && npm ci --no-audit --no-fund --silent)
fi
# The independent SD-JWT checker (tools/verify-sdjwt: Node and @sd-jwt/core) of selective-disclosure
# presentations; pinned the same way.
if [ ! -d tools/verify-sdjwt/node_modules/@sd-jwt/core ]; then
  (cd tools/verify-sdjwt && npm ci --no-audit --no-fund --silent)
fi
# The independent credential checker (tools/verify-vc: Node, Digital Bazaar's vc stack with the eddsa-rdfc-2022
# cryptosuite and the bitstring status list, and @sd-jwt/sd-jwt-vc) of seald's verifiable credentials; pinned the same way.
if [ ! -d tools/verify-vc/node_modules/@digitalbazaar/vc ]; then
  (cd tools/verify-vc && npm ci --no-audit --no-fund --silent)
fi
# axe-core, which the browser tests run on every state of the verification page; pinned the same way.
if [ ! -d tools/axe/node_modules/axe-core ]; then
  (cd tools/axe && npm ci --no-audit --no-fund --silent)
fi

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))
if [ -n "$unformatted" ]; then
  echo "test: not gofmt-formatted:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
go mod tidy -diff
"$SEALD_STATICCHECK" ./...
# -parallel 4: the tests that run in parallel (e2e's that start their own serve, chain, browser or
# cluster) mostly wait on those programs, so four at a time keep two cores busy where two left them idle.
go test -race -timeout 40m -parallel 4 "$@" ./...
