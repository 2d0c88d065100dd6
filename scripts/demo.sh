#!/usr/bin/env bash
# `make demo`: start the embedded mini cluster, run the example scenario against it, print the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
./bin/dnecho cluster --conf-dir "$dir" > "$dir/cluster.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -f "$dir/cluster.json" ] && break; sleep 0.1; done
[ -f "$dir/cluster.json" ] || { cat "$dir/cluster.log"; echo "mini cluster did not start" >&2; exit 1; }
cat "$dir/cluster.log"
echo
echo '$ dnecho freon dn-echo --conf '"$dir"' --container-id 1 -n 20000 -t 8 --payload-resp 1'
./bin/dnecho freon dn-echo --conf "$dir" --container-id 1 -n 20000 -t 8 --payload-resp 1
