# The two commands: `go run ./cmd/seald serve` runs the service; `make test` runs every test.
.PHONY: test vet peers build fuzz

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

# seald bench --quick: speed as ratios to same-run baselines, report in bench-report/ (under 5 minutes).
.PHONY: bench
bench:
	go run ./cmd/seald bench --quick --out bench-report
