#!/usr/bin/env bash
# release-fixture.sh BIN DATADIR [DSN]: fills DATADIR (and, given DSN, the PostgreSQL schema of its
# search_path) with what the seald binary BIN writes when records are left in several states of the pipeline,
# for the migration tests' fixtures of a release (sqlite/testdata/release-*, postgres/testdata/release-*):
#
#   two records COMPLETED, one of them SUSPENDED (an audit trail entry);
#   two records ANCHORED whose notify jobs wait (serve ran with an SMTP server that refuses connections);
#   two records PENDING whose payloads and store jobs wait (serve ran with a Kubo that refuses connections,
#   and was killed with SIGKILL).
#
# Every serve runs with the embedded chain and IPFS store, in DATADIR. Needs curl and jq.
set -euo pipefail
bin=$1 dir=$2 dsn=${3:-}
db=()
if [ -n "$dsn" ]; then db=(--database "$dsn"); fi
mkdir -p "$dir"
out=$(mktemp -d)

serve() {
	"$bin" serve --addr 127.0.0.1:0 --data-dir "$dir" --chain-rpc-addr "" --batch-wait 100ms --rate-limit 0 \
		--log-level warn "${db[@]}" "$@" >"$out/stdout" 2>>"$out/stderr" &
	pid=$!
	url=
	for _ in $(seq 900); do
		url=$(grep -o 'listening on https\?://[^ ]*' "$out/stdout" | head -1 | cut -d' ' -f3 || true)
		[ -n "$url" ] && break
		sleep 0.1
	done
	[ -n "$url" ] || { cat "$out/stderr"; exit 1; }
	H=(-H "Ocp-Apim-Subscription-Key: $(jq -r .subscription_key "$dir/credentials.json")" \
		-H "Api-Key: $(jq -r .api_key "$dir/credentials.json")")
}

seal() {
	curl -sf "${H[@]}" -H 'Content-Type: application/json' "$url/svc-data/data/authentication/ipfs/sm-polygon/email" \
		-d "{\"data\":$1,\"to\":\"alice@example.com\",\"subject\":\"Your record\"}" | jq -r .data.reference
}

wait_state() {
	for _ in $(seq 600); do
		s=$(curl -sf "${H[@]}" "$url/authentication-status/get/status?reference=$1" | jq -r .data.state)
		[ "$s" = "$2" ] && return
		sleep 0.1
	done
	echo "record $1 is $s, not $2" >&2
	exit 1
}

# 1. Completed records, one suspended.
serve
r1=$(seal '{"invoice":"INV-1","amount":1}')
r2=$(seal '{"invoice":"INV-2","amount":2.5}')
wait_state "$r1" COMPLETED
wait_state "$r2" COMPLETED
curl -sf "${H[@]}" -X PUT -H 'Content-Type: application/json' "$url/authentication-status/update/status" \
	-d "{\"reference\":\"$r2\",\"status\":\"SUSPENDED\",\"reason\":\"checking\"}" >/dev/null
kill -TERM "$pid" && wait "$pid"

# 2. Anchored records whose e-mail cannot leave: their notify jobs wait, retried.
serve --smtp 'smtp://127.0.0.1:9?tls=none'
r3=$(seal '{"invoice":"INV-3","amount":3}')
r4=$(seal '{"invoice":"INV-4","lines":[{"sku":"A","n":2}]}')
wait_state "$r3" ANCHORED
wait_state "$r4" ANCHORED
sleep 2
kill -TERM "$pid" && wait "$pid"

# 3. Pending records whose envelopes cannot be stored: their payloads and store jobs wait; then a hard stop.
serve --ipfs http://127.0.0.1:9
r5=$(seal '{"invoice":"INV-5","amount":5}')
r6=$(seal '{"invoice":"INV-6","note":"pending"}')
wait_state "$r5" PENDING
sleep 2
kill -KILL "$pid"
wait "$pid" || true

echo "completed $r1 $r2 (suspended), anchored $r3 $r4, pending $r5 $r6"
rm -rf "$out"
