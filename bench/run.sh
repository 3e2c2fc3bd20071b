#!/usr/bin/env bash
# bench/run.sh: Tessera's read paths against the ceiling, side by side.
#
# Builds tessera, the benchmark fixture (bench/fixture: a ~95 KB page of 40
# items in two canvases and two locales, and a 25-field entry) and the
# ceiling server (bench/cmd/ceiling: the same answer's bytes from memory),
# and the demo site (package demo) for the public home page ("public"),
# then loads each endpoint and its ceiling with wrk in alternating rounds
# and prints the medians of requests per second and of the rounds' ratios. Servers run on one core
# and wrk on the other (taskset), as on a 2-core machine.
#
#   bash bench/run.sh                  # SQLite, 5 rounds of 5 s, 32 connections
#   ROUNDS=5 DURATION=10s CONNS=32 bash bench/run.sh
#   DATABASE=postgres://postgres@127.0.0.1:5432/bench?sslmode=disable bash bench/run.sh
#   ONLY="page-compact entry-list" bash bench/run.sh   # some endpoints only
#   ONLY=public bash bench/run.sh      # the demo site's home page, from the render cache
#   TESSERA=/path/to/tessera bash bench/run.sh          # another build, same fixture
#
# Needs wrk (Debian package wrk) and, for pinning, taskset (util-linux).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-32}
command -v wrk >/dev/null || { echo "bench/run.sh needs wrk (apt-get install wrk)" >&2; exit 2; }
source bench/lib.sh

port=18080
serve $port
tpid=$spid

# load PID URL: wrk's requests/s for URL, and the CPU time (user and
# system) the server PID spent per request, in microseconds.
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
load() {
  local c0 out c1
  c0=$(cpu "$1")
  out=$($load_cpu wrk -t1 -c"$CONNS" -d"$DURATION" "${hdrs[@]}" "$2")
  c1=$(cpu "$1")
  echo "$out" | awk -v t=$((c1 - c0)) -v hz="$ticks" '
    /requests in/ {n = $1} /Requests\/sec/ {r = $2} END {printf "%s %.2f\n", r, t * 1e6 / hz / n}'
}

# Each round loads the ceiling and then Tessera for DURATION each; a round's
# ratio compares two runs seconds apart, and the median of the rounds'
# ratios is reported, so that one disturbed run (a virtual machine's
# neighbour, a background flush) does not decide the figure. The server's
# CPU time per request is a second yardstick, less moved by the load
# generator's core: "cpu ratio" is the ceiling's CPU per request over
# Tessera's.
printf '%-14s %8s %9s %9s %6s %9s %9s %6s  %s\n' endpoint bytes ceiling tessera ratio "µs/req c" "µs/req t" "cpu" "rounds' ratios"
n=0
for e in "${endpoints[@]}"; do
  name=${e%%|*} path=${e#*|}
  wanted "$name" || continue
  url="http://127.0.0.1:$port$path"
  headers "$name"
  bytes=$(curl -fs "${hdrs[@]}" "$url" | wc -c)
  cport=$((19090 + n)); n=$((n + 1))
  ceiling "$cport" "$url" "$path"
  cs=() ts=() rs=() ccs=() tcs=() crs=()
  for _ in $(seq 1 "$ROUNDS"); do
    read -r c cc < <(load "$cpid" "http://127.0.0.1:$cport$path")
    read -r t tc < <(load "$tpid" "$url")
    cs+=("$c") ts+=("$t") rs+=("$(echo "$t / $c" | bc -l)")
    ccs+=("$cc") tcs+=("$tc") crs+=("$(echo "$cc / $tc" | bc -l)")
  done
  printf '%-14s %8d %9.0f %9.0f %6.2f %9.1f %9.1f %6.2f ' "$name" "$bytes" \
    "$(printf '%s\n' "${cs[@]}" | median)" "$(printf '%s\n' "${ts[@]}" | median)" "$(printf '%s\n' "${rs[@]}" | median)" \
    "$(printf '%s\n' "${ccs[@]}" | median)" "$(printf '%s\n' "${tcs[@]}" | median)" "$(printf '%s\n' "${crs[@]}" | median)"
  printf ' %.2f' "${rs[@]}"
  echo
done
