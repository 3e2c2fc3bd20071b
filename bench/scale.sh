#!/usr/bin/env bash
# bench/scale.sh: how Tessera's costs grow with the number of pages and
# entries, measured side by side in one run.
#
# Generates the benchmark site (bench/fixture) at two sizes with
# bench/cmd/generate, straight to the store: A with 1,000 pages and 1,000
# entries, B with 100,000 pages (20,000 of them under one parent) and
# 100,000 entries. Measures `tessera serve`'s startup time on each, then
# serves both and runs bench/cmd/scaleload: every read endpoint on A and
# on B in alternating rounds under 8 connections (rates, p50, p99, their
# ratios), then page creates, moves and deletes under the 20,000-child
# parent and under a 10-child parent, interleaved; last, the resident
# memory of each server. Servers run on one core and the load on the
# other (taskset), as on a 2-core machine.
#
#   bash bench/scale.sh                          # SQLite
#   POSTGRES=postgres://postgres@127.0.0.1:5432 bash bench/scale.sh
#   SMALL=1000 LARGE=100000 BIG=20000 CONNS=8 DURATION=2s ROUNDS=3 bash bench/scale.sh
#
# With POSTGRES the databases tessera_scale_a and tessera_scale_b are
# dropped and made again on that server (psql needed).
set -euo pipefail
cd "$(dirname "$0")/.."

SMALL=${SMALL:-1000}
LARGE=${LARGE:-100000}
BIG=${BIG:-20000}
CONNS=${CONNS:-8}
DURATION=${DURATION:-2s}
ROUNDS=${ROUNDS:-3}
WRITES=${WRITES:-40}
POSTGRES=${POSTGRES:-}

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

srv_cpu="" load_cpu=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  srv_cpu="taskset -c 0" load_cpu="taskset -c 1"
fi

go build -o "$tmp/tessera" ./cmd/tessera
go build -o "$tmp/generate" ./bench/cmd/generate
go build -o "$tmp/scaleload" ./bench/cmd/scaleload
go build -o "$tmp/ceiling" ./bench/cmd/ceiling

store_a=(--data "$tmp/a") store_b=(--data "$tmp/b")
if [ -n "$POSTGRES" ]; then
  for db in tessera_scale_a tessera_scale_b; do
    psql "$POSTGRES/postgres" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
  done
  store_a=(--database "$POSTGRES/tessera_scale_a?sslmode=disable")
  store_b=(--database "$POSTGRES/tessera_scale_b?sslmode=disable")
fi

echo "generating A ($SMALL pages, $SMALL entries) and B ($LARGE pages, $BIG under one parent, $LARGE entries)" >&2
"$tmp/generate" "${store_a[@]}" --pages "$SMALL" --big 0 --entries "$SMALL" > "$tmp/a.json"
"$tmp/generate" "${store_b[@]}" --pages "$LARGE" --big "$BIG" --entries "$LARGE" > "$tmp/b.json"

# start NAME PORT STORE...: starts tessera serve, waits for /healthz and
# prints the milliseconds that took; the pid goes to $tmp/NAME.pid.
start() {
  local name=$1 port=$2; shift 2
  local t0 t1
  t0=$(date +%s%N)
  GOMAXPROCS=1 $srv_cpu "$tmp/tessera" serve "$@" --addr "127.0.0.1:$port" >"$tmp/$name.log" 2>&1 &
  echo $! > "$tmp/$name.pid"
  pids+=($!)
  until curl -fs "http://127.0.0.1:$port/healthz" >/dev/null; do
    kill -0 "$(cat "$tmp/$name.pid")" 2>/dev/null || { cat "$tmp/$name.log" >&2; exit 1; }
    sleep 0.005
  done
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 ))
}
stop() { local pid; pid=$(cat "$tmp/$1.pid"); kill "$pid"; wait "$pid" 2>/dev/null || true; }

# Startup, three times each, alternating; the median is reported.
sa=() sb=()
for _ in 1 2 3; do
  sa+=("$(start a 18101 "${store_a[@]}")"); stop a
  sb+=("$(start b 18102 "${store_b[@]}")"); stop b
done
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

start a 18101 "${store_a[@]}" >/dev/null
start b 18102 "${store_b[@]}" >/dev/null
# The ceiling: A's page read, its bytes served from memory by a bare
# net/http handler on the servers' core, for the tail latency's yardstick.
field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$tmp/a.json"; }
GOMAXPROCS=1 $srv_cpu "$tmp/ceiling" --addr 127.0.0.1:18103 --from "http://127.0.0.1:18101/api/pages/$(field page_id)" \
  -H "Authorization: Bearer $(field token)" -H "X-Service-Site: $(field short_id)" 2>"$tmp/ceiling.log" &
pids+=($!)
until curl -fs http://127.0.0.1:18103/ >/dev/null; do sleep 0.01; done
$load_cpu "$tmp/scaleload" --a http://127.0.0.1:18101 --a-site "$tmp/a.json" --b http://127.0.0.1:18102 \
  --b-site "$tmp/b.json" --ceiling http://127.0.0.1:18103 --conns "$CONNS" --duration "$DURATION" \
  --rounds "$ROUNDS" --writes "$WRITES"

rss() { awk -v k="$2:" '$1 == k {printf "%.0f MB", $2 / 1024}' "/proc/$(cat "$tmp/$1.pid")/status"; }
echo
echo "| Process | A | B | B/A |"
echo "|---|---|---|---|"
ma=$(median "${sa[@]}") mb=$(median "${sb[@]}")
echo "| startup of \`tessera serve\` to /healthz (median of 3) | $ma ms | $mb ms | $(echo "scale=2; $mb / $ma" | bc -l) |"
echo "| resident memory after the load (VmRSS) | $(rss a VmRSS) | $(rss b VmRSS) | |"
echo "| peak resident memory (VmHWM) | $(rss a VmHWM) | $(rss b VmHWM) | |"
