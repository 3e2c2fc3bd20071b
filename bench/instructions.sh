#!/usr/bin/env bash
# bench/instructions.sh: the instructions Tessera and the ceiling execute
# per request, counted rather than timed.
#
# The same fixture, endpoints and ceiling as bench/run.sh, but each server
# runs under valgrind's cachegrind, which counts the instructions a process
# executes in user space: the same binary given the same requests counts
# nearly the same whatever else the machine is doing, where requests per
# second on a shared virtual machine move by a tenth from one run to the
# next. Each server is run twice per endpoint, once for a single request
# and once for one request and then DURATION of wrk (8 connections); the
# difference of the two counts over the difference of the requests is its
# cost per request, with startup and shutdown taken out. What the kernel
# does (the socket reads and writes, the same for both servers) is not
# counted: the ratio here is of user-space work alone, a guide to where
# Tessera's own cost goes (callgrind_annotate or cg_annotate on the kept
# outputs, KEEP=dir), not the req/s ratio bench/run.sh reports.
#
#   bash bench/instructions.sh
#   ONLY="page-compact" DURATION=10s KEEP=/tmp/cg bash bench/instructions.sh
#   TESSERA=/path/to/tessera bash bench/instructions.sh   # another build
#
# Needs valgrind and wrk.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-8s}
KEEP=${KEEP:-}
for c in valgrind wrk; do command -v $c >/dev/null || { echo "bench/instructions.sh needs $c" >&2; exit 2; }; done
source bench/lib.sh
[ -n "$KEEP" ] && mkdir -p "$KEEP"

# Go's preemption signals trip valgrind's signal handling; the counts do
# not depend on them.
cg=(env GODEBUG=asyncpreemptoff=1 valgrind --tool=cachegrind --cache-sim=no)

# count NAME PID URL LOAD: sends one request to URL (and LOAD of wrk when
# LOAD is not 0), stops PID and adds the requests served and the
# instructions counted in $tmp/NAME.out to runs.
count() {
  local name=$1 pid=$2 url=$3 load=$4 n=1
  curl -fs -o /dev/null "${hdrs[@]}" "$url"
  if [ "$load" != 0 ]; then
    n=$(( $($load_cpu wrk -t1 -c8 -d"$load" "${hdrs[@]}" "$url" | awk '/requests in/ {print $1}') + 1 ))
  fi
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  runs+=("$n $(awk '/^summary:/ {print $2}' "$tmp/$name.out")")
  [ -z "$KEEP" ] || cp "$tmp/$name.out" "$KEEP/$name.out"
}

# The ceilings fetch their answers from a Tessera run normally.
serve 18080
plain=$spid

printf '%-14s %12s %12s %6s\n' endpoint "Ir/req c" "Ir/req t" ratio
declare -A per
for e in "${endpoints[@]}"; do
  name=${e%%|*} path=${e#*|}
  wanted "$name" || continue
  headers "$name"
  for who in ceiling tessera; do
    runs=()
    for load in 0 "$DURATION"; do
      out="$who-$name-${load}"
      if [ $who = ceiling ]; then
        ceiling 19090 "http://127.0.0.1:18080$path" "$path" "${cg[@]}" --cachegrind-out-file="$tmp/$out.out"
        pid=$cpid url="http://127.0.0.1:19090$path"
      else
        serve 18081 "${cg[@]}" --cachegrind-out-file="$tmp/$out.out"
        pid=$spid url="http://127.0.0.1:18081$path"
      fi
      count "$out" "$pid" "$url" "$load"
    done
    per[$who]=$(printf '%s\n' "${runs[@]}" | awk 'NR == 1 {n0 = $1; i0 = $2} NR == 2 {printf "%.0f", ($2 - i0) / ($1 - n0)}')
  done
  printf '%-14s %12d %12d %6.2f\n' "$name" "${per[ceiling]}" "${per[tessera]}" "$(echo "${per[ceiling]} / ${per[tessera]}" | bc -l)"
done
kill "$plain"
