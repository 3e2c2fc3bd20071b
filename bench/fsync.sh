#!/usr/bin/env bash
# bench/fsync.sh: what one page batch costs the disk.
#
# Builds tessera and the benchmark fixture (bench/fixture), starts
# `tessera serve`, and sends N live batches of 10 operations to the
# benchmark page, one after another, each with the ETag the previous one
# answered: six field sets, two text sets, the insert of a section and the
# delete of the one the previous batch inserted (as BenchmarkBatchWrites
# in bench/writes_test.go). Every batch changes the page and archives a
# version.
#
# SQLite: strace counts the server's fsync and fdatasync calls while the
# batches run, and again over an idle stretch as long (what the server
# does on its own); prints both and the calls per batch.
# PostgreSQL (DATABASE=postgres URL): the fixture goes into a database of
# its own, created and dropped here; strace counts the COMMIT statements
# the server sends while the batches run, and over an idle stretch. Each
# is one WAL flush with the default synchronous_commit on. (The database's
# pg_stat_database.xact_commit is no such count: the driver's "-- ping"
# of a connection idle for a second, and any statement outside a
# transaction, commit too.)
#
#   bash bench/fsync.sh                 # SQLite, 200 batches
#   N=500 bash bench/fsync.sh
#   DATABASE='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' bash bench/fsync.sh
#
# Needs curl and jq; strace for SQLite, psql for PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-200}
DATABASE=${DATABASE:-}
for c in curl jq; do command -v "$c" >/dev/null || { echo "bench/fsync.sh needs $c" >&2; exit 2; }; done
if [ -n "$DATABASE" ]; then
  command -v psql >/dev/null || { echo "bench/fsync.sh needs psql for PostgreSQL" >&2; exit 2; }
else
  command -v strace >/dev/null || { echo "bench/fsync.sh needs strace (apt-get install strace)" >&2; exit 2; }
fi

tmp=$(mktemp -d)
pids=()
# The load comes from loopback, which the server limits like any client:
# a benchmark measures the server, not its limits.
nolimits=(--rate-limit 0 --rate-limit-token 0 --max-client-conns 0)
dbname=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "$dbname" ] && psql -q "$DATABASE" -c "DROP DATABASE IF EXISTS $dbname" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/tessera" ./cmd/tessera
go build -o "$tmp/fixture" ./bench/cmd/fixture

store=(--data "$tmp/data")
if [ -n "$DATABASE" ]; then
  dbname="tessera_fsync_$$"
  psql -q "$DATABASE" -c "CREATE DATABASE $dbname" >/dev/null
  # The same URL with the new database's name for its path.
  store=(--database "$(echo "$DATABASE" | sed -E "s#^([a-z]+://[^/]*)/[^?]*#\1/$dbname#")")
fi
"$tmp/fixture" "${store[@]}" > "$tmp/fixture.json"
token=$(jq -r .token "$tmp/fixture.json") short=$(jq -r .short_id "$tmp/fixture.json") page=$(jq -r .page_id "$tmp/fixture.json")

port=18090
"$tmp/tessera" serve "${store[@]}" --addr "127.0.0.1:$port" "${nolimits[@]}" >"$tmp/serve.log" 2>&1 &
server=$!
pids+=("$server")
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done

url="http://127.0.0.1:$port/api/pages/$page"
auth=(-H "Authorization: Bearer $token" -H "X-Service-Site: $short")
etag=$(curl -fsS -D - -o "$tmp/page.json" "${auth[@]}" "$url" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: //p')
anchor=$(jq -r '.items.Main.repeatables[0].id' "$tmp/page.json")
inserted=""

# batch sends one batch of the given operations (a JSON array) and keeps
# the ETag and the id of the inserted block for the next.
batch() {
  curl -fsS -X POST "${auth[@]}" -H "Content-Type: application/json" -H "If-Match: $etag" \
    --data-binary "{\"operations\": $1}" "$url/batch" > "$tmp/out.json"
  jq -e 'all(.results[]; .status == "ok")' "$tmp/out.json" >/dev/null ||
    { echo "batch failed: $(head -c 500 "$tmp/out.json")" >&2; exit 1; }
  etag="\"$(jq -r .etag "$tmp/out.json")\""
  inserted=$(jq -r '[.results[] | .id // empty] | last // empty' "$tmp/out.json")
}
insert() {
  printf '{"op": "insert", "path": "/items/Main/repeatables", "after": "%s", "value": {"slug": "section", "items": {"Heading": "Section %d", "Body": "<p>A new section.</p>"}}}' "$anchor" "$1"
}
ops() { # the 10 operations of batch $1
  local o="["
  for f in 1 2 3 4 5 6; do o+="{\"op\": \"set\", \"path\": \"/items/Field%20$f\", \"value\": \"Batch $1, field $f\"},"; done
  for t in 1 2; do o+="{\"op\": \"set\", \"path\": \"/items/Text%20$t\", \"value\": \"<p>Batch $1, text $t.</p>\"},"; done
  o+="$(insert "$1"), {\"op\": \"delete\", \"path\": \"/items/Main/repeatables/$inserted\"}]"
  echo "$o"
}
run() { for i in $(seq 1 "$N"); do batch "$(ops "$i")"; done; }

batch "[$(insert 0)]" # the block the first measured batch deletes

# count runs "$@" under strace attached to every thread of the server and
# prints what it saw: fsync and fdatasync calls (SQLite), or COMMIT
# statements written to PostgreSQL (a simple-protocol Query message: 'Q',
# its length, 11, then "commit" and a NUL).
count() {
  if [ -z "$DATABASE" ]; then
    strace -f -c -e trace=fsync,fdatasync -p "$server" -o "$tmp/strace.txt" 2>/dev/null &
  else
    strace -f -e trace=write -s 16 -p "$server" -o "$tmp/strace.txt" 2>/dev/null &
  fi
  local st=$!
  sleep 1 # let strace attach to every thread
  "$@"
  kill -INT "$st"; wait "$st" 2>/dev/null || true
  if [ -z "$DATABASE" ]; then
    awk '$NF == "fsync" || $NF == "fdatasync" { n += $4 } END { print n + 0 }' "$tmp/strace.txt"
  else
    grep -c 'Q\\0\\0\\0\\vcommit\\0' "$tmp/strace.txt" || true
  fi
}
start=$(date +%s.%N)
busy=$(count run)
secs=$(echo "$(date +%s.%N) - $start - 1" | bc -l)
idle=$(count sleep "$secs")
what="SQLite" calls="fsync+fdatasync calls"
[ -n "$DATABASE" ] && what="PostgreSQL" calls="COMMITs sent"
printf '%s, %d batches of 10 operations in %.1f s: %d %s, %.2f per batch; idle for as long: %d\n' \
  "$what" "$N" "$secs" "$busy" "$calls" "$(echo "$busy / $N" | bc -l)" "$idle"
