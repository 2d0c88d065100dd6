#!/usr/bin/env bash
# Runs every Fuzz* target briefly (the seed corpus already runs in `go test`).
set -euo pipefail
t=${1:-10s}
grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
  dir=$(dirname "$f")
  for fn in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
    echo "fuzz $dir $fn ($t)"
    go test -run='^$' -fuzz="^${fn}\$" -fuzztime="$t" "$dir" >/tmp/fuzz.$$.log 2>&1 || { cat /tmp/fuzz.$$.log; exit 1; }
  done
done
