# bench/lib.sh: what the load scripts share, sourced from the repository's
# root: a scratch directory removed on exit with the processes started,
# the cores of the servers and of the load (srv_cpu, load_cpu), median and
# up. Then, for bench/run.sh and bench/instructions.sh, unless the script
# set fixture=no before sourcing: the binaries (tessera, the fixture
# writer and the ceiling; TESSERA=path measures that tessera build instead
# of one from this tree), the benchmark fixture in a store (SQLite in the
# scratch directory, or DATABASE), the endpoints measured with their
# request headers, and how Tessera (serve) and the ceiling (ceiling) are
# started.
tmp=$(mktemp -d)
pids=()
# The load comes from loopback, which the server limits like any client:
# a benchmark measures the server, not its limits.
nolimits=(--rate-limit 0 --rate-limit-token 0 --max-client-conns 0)
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

srv_cpu="" load_cpu=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  srv_cpu="taskset -c 0" load_cpu="taskset -c 1"
fi

# median: the median of the numbers on standard input, one a line.
median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# up URL PID LOG: waits until URL answers; stops the script with LOG when
# process PID ended first or 30 s went by.
up() {
  for _ in $(seq 1 300); do curl -fs -o /dev/null "$1" && return; kill -0 "$2" 2>/dev/null || break; sleep 0.1; done
  echo "$0: the server of $1 did not start:" >&2
  cat "$3" >&2
  exit 1
}

[ "${fixture:-yes}" = no ] && return 0

if [ -n "${TESSERA:-}" ]; then cp "$TESSERA" "$tmp/tessera"; else go build -o "$tmp/tessera" ./cmd/tessera; fi
go build -o "$tmp/fixture" ./bench/cmd/fixture
go build -o "$tmp/ceiling" ./bench/cmd/ceiling

DATABASE=${DATABASE:-}
store=(--data "$tmp/data")
[ -n "$DATABASE" ] && store=(--database "$DATABASE")
"$tmp/fixture" "${store[@]}" > "$tmp/fixture.json"
field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$tmp/fixture.json"; }
token=$(field token) short=$(field short_id) page=$(field page_id) entry=$(field entry_id) channel=$(field channel)
demo_host=$(field demo_host)

auth=(-H "Authorization: Bearer $token" -H "X-Service-Site: $short")
endpoints=(
  "page|/api/pages/$page"
  "page-compact|/api/pages/$page?compact=1"
  "entry|/api/channels/$channel/entries/$entry"
  "entry-list|/api/channels/$channel/entries?per_page=20"
  "settings|/api/sites/$short/settings"
  "public|/"
)

# headers NAME: the request headers of endpoint NAME, one argument each
# (wrk's and curl's -H): the API's token and site, or for the public site
# the demo site's host and no token, as a browser sends it.
headers() {
  if [ "$1" = public ]; then
    hdrs=(-H "Host: $demo_host")
  else
    hdrs=("${auth[@]}")
  fi
}

# wanted NAME: whether ONLY (a space-separated list of endpoint names, or
# empty for all) includes NAME.
ONLY=${ONLY:-}
wanted() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }

# serve PORT [WRAPPER...]: starts tessera serve on the fixture's store (on
# the server's core, through WRAPPER when given), waits until it answers
# and sets spid; stops the script with the server's log if it did not start.
serve() {
  local port=$1
  shift
  GOMAXPROCS=1 $srv_cpu "$@" "$tmp/tessera" serve "${store[@]}" --addr "127.0.0.1:$port" "${nolimits[@]}" >"$tmp/serve.log" 2>&1 &
  spid=$!
  pids+=($spid)
  for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && return; kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
  echo "$0: tessera serve did not start (is port $port taken?):" >&2
  cat "$tmp/serve.log" >&2
  exit 1
}

# ceiling PORT FROM PATH [WRAPPER...]: starts the ceiling on PORT serving
# the answer of the Tessera URL FROM, fetched with the headers in hdrs (on
# the server's core, through WRAPPER when given), waits until it answers
# PATH and sets cpid.
ceiling() {
  local port=$1 from=$2 path=$3
  shift 3
  GOMAXPROCS=1 $srv_cpu "$@" "$tmp/ceiling" --addr "127.0.0.1:$port" --from "$from" "${hdrs[@]}" 2>>"$tmp/ceiling.log" &
  cpid=$!
  pids+=($cpid)
  for _ in $(seq 1 300); do curl -fs -o /dev/null "${hdrs[@]}" "http://127.0.0.1:$port$path" && break; sleep 0.1; done
}
