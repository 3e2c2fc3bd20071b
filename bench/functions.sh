#!/usr/bin/env bash
# bench/functions.sh: a trivial cloud function called over HTTP, through
# Tessera's worker processes, side by side with the in-process build and
# with PocketBase's JS route.
#
# Builds tessera from this tree (TESSERA=path: that build instead) and,
# for each worker count of WORKERS, starts `tessera serve --apps-workers
# N` on a fresh SQLite store made by `tessera demo`, with an app whose
# code is
#
#   Service.Cloud.define('trivial', (request) => request.params.a + request.params.b)
#
# Then wrk loads POST /api/functions/trivial with {"a":1,"b":2} (the demo
# admin's token and X-Service-Site) on each server in alternating rounds,
# together with, when given:
#   TESSERA_BASE=path  a tessera build from before the workers (commit
#                      278f595, cloud code in the serving process), on a
#                      store and app of its own made the same way;
#   POCKETBASE=path    a PocketBase built with the jsvm plugin (its
#                      examples/base main), serving pb_hooks/main.pb.js:
#                      routerAdd("POST", "/api/trivial", (e) => {
#                        const b = e.requestInfo().body; return e.json(200, b.a + b.b) })
# Every server and its worker processes run on one core and wrk on the
# other (taskset), as on a 2-core machine. Prints the medians of
# requests/s and of each server's CPU time per request (its workers'
# included, and their share), and the medians of the rounds' ratios of
# each Tessera to the in-process build and to PocketBase: of requests/s,
# and of CPU time per request (the other's over Tessera's, so that more is
# better in both).
#
# On a machine other work keeps busy, requests/s favour a server of
# several processes (the scheduler shares a core by thread, so a server
# with its workers gets more of it than one process does) and move a lot
# from round to round; CPU time per request moves much less, and is what a
# quiet machine's requests/s follow when the server's core is the limit.
#
#   bash bench/functions.sh
#   TESSERA_BASE=/tmp/tessera-base POCKETBASE=/tmp/pb/pocketbase WORKERS="1 2 4" bash bench/functions.sh
#   ROUNDS=7 DURATION=5s CONNS=32 bash bench/functions.sh
#
# The in-process build, outside this checkout:
#   git archive 278f595 | tar -x -C /tmp/base && (cd /tmp/base && go build -o /tmp/tessera-base ./cmd/tessera)
# PocketBase, outside the repository (v0.39.10: v0.40 needs Go 1.27):
#   mkdir /tmp/pb && cd /tmp/pb && go mod init pb && go get github.com/pocketbase/pocketbase@v0.39.10
#   cp "$(go env GOMODCACHE)/github.com/pocketbase/pocketbase@v0.39.10/examples/base/main.go" .
#   go mod tidy && go build -o pocketbase .
#
# Needs wrk (Debian package wrk: apt-get install -y wrk) and, for pinning,
# taskset (util-linux).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-32}
WORKERS=${WORKERS:-4}
TESSERA_BASE=${TESSERA_BASE:-}
POCKETBASE=${POCKETBASE:-}
command -v wrk >/dev/null || { echo "bench/functions.sh needs wrk (apt-get install -y wrk)" >&2; exit 2; }
fixture=no
source bench/lib.sh

if [ -n "${TESSERA:-}" ]; then cp "$TESSERA" "$tmp/tessera"; else go build -o "$tmp/tessera" ./cmd/tessera; fi

# wrk sends a body only from a script.
cat >"$tmp/post.lua" <<'EOF'
wrk.method = "POST"
wrk.body = '{"a":1,"b":2}'
wrk.headers["Content-Type"] = "application/json"
EOF
code="Service.Cloud.define('trivial', (request) => request.params.a + request.params.b)"

# Each server is a name in names, with its URL, process and wrk headers.
names=()
declare -A url pid hdr

# start NAME URL CHECK COMMAND...: starts COMMAND on the servers' core,
# waits until CHECK answers and records NAME.
start() {
  local name=$1 u=$2 check=$3
  shift 3
  GOMAXPROCS=1 $srv_cpu "$@" >"$tmp/$name.log" 2>&1 &
  pids+=($!)
  up "$check" $! "$tmp/$name.log"
  names+=("$name") url[$name]=$u pid[$name]=$!
}

# tessera_serve NAME BINARY PORT [SERVE FLAGS...]: a demo store, tessera serve
# on it, and the app.
tessera_serve() {
  local name=$1 bin=$2 port=$3 dir=$tmp/$1
  shift 3
  local demo token short
  demo=$("$bin" demo --json --data "$dir")
  token=$(sed -n 's/.*"token":"\([^"]*\)".*/\1/p' <<<"$demo")
  short=$(sed -n 's/.*"short_id":"\([^"]*\)".*/\1/p' <<<"$demo")
  start "$name" "http://127.0.0.1:$port/api/functions/trivial" "http://127.0.0.1:$port/healthz" \
    "$bin" serve --data "$dir" --addr "127.0.0.1:$port" --rate-limit 0 --rate-limit-token 0 "$@"
  hdr[$name]="Authorization: Bearer $token|X-Service-Site: $short"
  local h=(-H "Authorization: Bearer $token" -H "X-Service-Site: $short" -H "Content-Type: application/json")
  local key
  key=$(curl -fsS "${h[@]}" -d '{"name": "Bench"}' "http://127.0.0.1:$port/api/apps" | sed -n 's/.*"key":"\([^"]*\)".*/\1/p')
  curl -fsS -o /dev/null "${h[@]}" -X PUT -d "{\"code\": \"$code\"}" "http://127.0.0.1:$port/api/apps/$key/code/main.js"
  check "$name" "$(curl -fsS "${h[@]}" -d '{"a":1,"b":2}' "${url[$name]}")"
}

# check NAME ANSWER: stops the script unless the function answered 3.
check() {
  [ "$2" = 3 ] && return
  echo "$0: $1 answered $2, want 3:" >&2
  cat "$tmp/$1.log" >&2
  exit 1
}

port=18300
if [ -n "$POCKETBASE" ]; then
  mkdir -p "$tmp/pocketbase/hooks"
  cat >"$tmp/pocketbase/hooks/main.pb.js" <<'EOF'
routerAdd("POST", "/api/trivial", (e) => {
  const b = e.requestInfo().body
  return e.json(200, b.a + b.b)
})
EOF
  # --dev=false: a binary under the temporary directory counts as "go run"
  # and would log every request and statement to the console.
  start pocketbase "http://127.0.0.1:$port/api/trivial" "http://127.0.0.1:$port/api/health" \
    "$POCKETBASE" serve --dev=false --http "127.0.0.1:$port" --dir "$tmp/pocketbase/data" \
    --hooksDir "$tmp/pocketbase/hooks" --hooksWatch=false
  hdr[pocketbase]=""
  check pocketbase "$(curl -fsS -H "Content-Type: application/json" -d '{"a":1,"b":2}' "${url[pocketbase]}")"
fi
if [ -n "$TESSERA_BASE" ]; then
  cp "$TESSERA_BASE" "$tmp/tessera-base"
  tessera_serve in-process "$tmp/tessera-base" $((port + 1))
fi
for n in $WORKERS; do
  tessera_serve "workers=$n" "$tmp/tessera" $((port + 10 + n)) --apps-workers "$n"
done

# cpu PID: the CPU time (user and system, in clock ticks) of PID and of
# its children (the workers), each on a line.
cpu() {
  local c=0 p
  for p in $(pgrep -P "$1" || true); do
    c=$((c + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  awk '{print $14 + $15}' "/proc/$1/stat"
  echo $c
}

# load NAME [DURATION]: wrk's requests/s on NAME's function, and the CPU
# time per request of its server and of its workers, in microseconds.
# Stops the script when an answer was not 2xx (a rate limit, a crash).
ticks=$(getconf CLK_TCK)
load() {
  local name=$1 d=${2:-$DURATION} h=() before after out
  IFS='|' read -ra hs <<<"${hdr[$name]}"
  for x in "${hs[@]}"; do h+=(-H "$x"); done
  before=$(cpu "${pid[$name]}")
  out=$($load_cpu wrk -t1 -c"$CONNS" -d"$d" -s "$tmp/post.lua" "${h[@]}" "${url[$name]}")
  after=$(cpu "${pid[$name]}")
  if grep -q "Non-2xx" <<<"$out"; then
    echo "$0: $name: $(grep Non-2xx <<<"$out")" >&2
    exit 1
  fi
  grep -q "Socket errors" <<<"$out" && echo "$name: $(grep "Socket errors" <<<"$out")" >&2
  printf '%s\n%s\n%s\n' "$before" "$after" "$out" | awk -v hz="$ticks" '
    NR == 1 {s0 = $1} NR == 2 {w0 = $1} NR == 3 {s1 = $1} NR == 4 {w1 = $1}
    /requests in/ {n = $1} /Requests\/sec/ {r = $2}
    END {printf "%s %.2f %.2f\n", r, (s1 - s0 + w1 - w0) * 1e6 / hz / n, (w1 - w0) * 1e6 / hz / n}'
}

# A first load warms each server (the workers prepare their runtimes, the
# JIT-less engines their caches); it is not counted.
for s in "${names[@]}"; do load "$s" 2s >/dev/null; done

# Each round loads every server for DURATION, one after another; a
# round's ratio compares runs seconds apart, and the median of the rounds'
# ratios is reported, so that one disturbed run does not decide it.
declare -A rps cpus wcpus
for r in $(seq 1 "$ROUNDS"); do
  for s in "${names[@]}"; do
    res=$(load "$s")
    read -r q c w <<<"$res"
    rps[$s]+="$q " cpus[$s]+="$c " wcpus[$s]+="$w "
  done
  echo "round $r: $(for s in "${names[@]}"; do printf '%s %s  ' "$s" "$(cut -d' ' -f"$r" <<<"${rps[$s]}")"; done)" >&2
done

# ratios A B: each round's requests/s of A over B's, and CPU time per
# request of B over A's, on two lines.
ratios() {
  local a=(${rps[$1]}) b=(${rps[$2]}) ca=(${cpus[$1]}) cb=(${cpus[$2]}) i
  for i in "${!a[@]}"; do printf '%.2f ' "$(echo "${a[$i]} / ${b[$i]}" | bc -l)"; done
  echo
  for i in "${!a[@]}"; do printf '%.2f ' "$(echo "${cb[$i]} / ${ca[$i]}" | bc -l)"; done
  echo
}
col() { tr ' ' '\n' | grep . | median; }
has() { [[ " ${names[*]} " == *" $1 "* ]]; }

# Per server: the medians, then for the in-process build and PocketBase
# the median ratio of requests/s, of CPU time per request, and the
# rounds' ratios of requests/s.
printf '%-12s %8s %8s %8s' server "req/s" "µs/req" "workers"
for o in in-process pocketbase; do has $o && printf ' | %-28s' "×$o: req/s cpu (rounds)"; done
echo
for s in "${names[@]}"; do
  printf '%-12s %8.0f %8.1f %8.1f' "$s" "$(col <<<"${rps[$s]}")" "$(col <<<"${cpus[$s]}")" "$(col <<<"${wcpus[$s]}")"
  for o in in-process pocketbase; do
    has $o || continue
    if [ "$s" = "$o" ] || { [ "$s" = pocketbase ] && [ $o = in-process ]; }; then printf ' | %-28s' -; continue; fi
    { read -r rr; read -r cr; } < <(ratios "$s" $o)
    printf ' | %4.2f %4.2f (%s)' "$(col <<<"$rr")" "$(col <<<"$cr")" "${rr% }"
  done
  echo
done
