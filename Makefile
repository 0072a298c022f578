# The two commands: `go run ./cmd/seald serve` runs the service; `make test` runs every test.
.PHONY: test vet peers build fuzz fuzz-ci soak

test:
	scripts/test.sh

vet:
	gofmt -l . | (! grep .) && go vet ./...

peers:
	scripts/peers.sh

build:
	go build -o bin/seald ./cmd/seald

# Each fuzz target for a bounded time (FUZZTIME, default 20s).
fuzz:
	scripts/fuzz.sh

# sealbench --quick: speed as ratios to same-run baselines, report in bench-report/ (under 5 minutes).
.PHONY: bench bench-full fuzz-ci soak
bench:
	eval "$$(scripts/peers.sh tessera)" && go run ./cmd/sealbench --quick --out bench-report

# The full run: 1,000,000 records preloaded, longer loads (under 30 minutes).
bench-full:
	eval "$$(scripts/peers.sh tessera)" && go run ./cmd/sealbench --out bench-report

# The fuzz targets of parsers that take outside input, 10 s each (CI runs this after `make test`).
FUZZ_CI = ./httpapi:FuzzDecode ./httpapi:FuzzQueryValue ./jcs:FuzzCanonicalize ./secret:FuzzDecryptOVI .:FuzzQueryParameters ./proof:FuzzParseProof ./evm:FuzzVerifyProof ./mail:FuzzMboxRoundTrip
fuzz-ci:
	FUZZTIME=$${FUZZTIME:-10s} scripts/fuzz.sh $(FUZZ_CI)

# A bounded soak (SOAK, default 10m) of mixed load against the real binary; figures in /artifacts/soak.
soak:
	SEALD_SOAK=$${SOAK:-10m} go test -tags soak -run '^TestSoak$$' -count=1 -timeout 0 -v ./e2e
