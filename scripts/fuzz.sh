#!/usr/bin/env bash
# Runs every fuzz target of the module for a while each and reports what it
# found. Not part of CI (CI runs the seed corpora as ordinary tests).
#
#   scripts/fuzz.sh [seconds per target, default 60]
#
# A failing input is saved under the package's testdata/fuzz/ by go test;
# commit it with the fix so it stays a regression test.
set -uo pipefail
cd "$(dirname "$0")/.."
per=${1:-60}
targets=0 failed=0
for pkg in $(go list ./...); do
  for fn in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz'); do
    targets=$((targets + 1))
    if go test -run '^$' -fuzz "^${fn}\$" -fuzztime "${per}s" "$pkg" >/tmp/fuzz-$$.log 2>&1; then
      echo "ok    $pkg $fn"
    else
      failed=$((failed + 1))
      echo "FAIL  $pkg $fn"
      tail -20 /tmp/fuzz-$$.log
    fi
  done
done
rm -f /tmp/fuzz-$$.log
echo "fuzz: $targets targets, ${per}s each, $failed failed"
[ "$failed" -eq 0 ]
