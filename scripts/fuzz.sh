#!/usr/bin/env bash
# Runs every Fuzz* target briefly (the seed corpus already runs in `go test`).
#
# Go 1.26's fuzzing coordinator can fail a target with a bare "context deadline exceeded" when
# -fuzztime runs out, having found nothing (golang/go#75804, fixed in Go 1.27): it compares the
# deadline context's error with its child's before the child has been cancelled. Such a run wrote
# no failing input, so it is run again (twice at most); a real finding always writes one
# ("Failing input written to testdata/fuzz/...") and fails at once.
set -euo pipefail
t=${1:-10s}
log=/tmp/fuzz.$$.log
trap 'rm -f "$log"' EXIT
grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
  dir=$(dirname "$f")
  for fn in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
    for try in 1 2 3; do
      if [ "$try" = 1 ]; then
        echo "fuzz $dir $fn ($t)"
      else
        echo "fuzz $dir $fn ($t), run $try: the last run hit the coordinator race"
      fi
      if go test -run='^$' -fuzz="^${fn}\$" -fuzztime="$t" "$dir" >"$log" 2>&1; then
        break
      fi
      if [ "$try" = 3 ] || ! grep -q 'context deadline exceeded' "$log" || grep -q 'Failing input written' "$log"; then
        cat "$log"
        exit 1
      fi
    done
  done
done
