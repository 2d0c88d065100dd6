#!/usr/bin/env bash
# Counts the repository files one Echo call runs through, on each path (docs/architecture.md):
# a CPU profile of a steady load against the emulated cluster, kept to the stacks of the
# per-call goroutines (freon's workers; run's VU iterations, the collector and the outputs'
# flushes), then the distinct files of this module in those stacks. A sampled count: a file whose
# code takes almost no time can be missed, so the load runs long enough for every step to show.
#
#   scripts/callpath.sh [freon|run|all]   (default all; prints the count, then the files)
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
work=$(mktemp -d)
cluster=
cleanup() {
  if [ -n "$cluster" ]; then kill "$cluster" 2>/dev/null || true; wait "$cluster" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/dnecho" ./cmd/dnecho
"$work/dnecho" cluster --conf-dir "$work/conf" --datanodes 3 >"$work/cluster.log" 2>&1 &
cluster=$!
for _ in $(seq 100); do [ -f "$work/conf/cluster.json" ] && break; sleep 0.1; done
[ -f "$work/conf/cluster.json" ] || { echo "callpath: the emulated cluster did not start:" >&2; cat "$work/cluster.log" >&2; exit 1; }

# files PROFILE FOCUS: the module's files in the stacks that pass through FOCUS.
files() {
  go tool pprof -top -cum -lines -nodecount=0 -focus="$2" "$work/dnecho" "$1" 2>/dev/null |
    grep -o "$PWD/[^ :]*\.go" | sed "s|$PWD/||" | sort -u
}

report() { # NAME PROFILE FOCUS
  local list
  list=$(files "$2" "$3")
  printf '%s: %d files in %d packages\n' "$1" "$(wc -l <<<"$list")" "$(xargs -n1 dirname <<<"$list" | sort -u | wc -l)"
  sed 's/^/  /' <<<"$list"
}

if [ "$which" = freon ] || [ "$which" = all ]; then
  "$work/dnecho" --cpuprofile "$work/freon.prof" freon dn-echo --conf "$work/conf" --container-id 1 \
    -n 300000 -t 8 --report log >/dev/null 2>&1
  report "freon dn-echo" "$work/freon.prof" 'freon\.\(\*taskRunner\)\.worker'
fi
if [ "$which" = run ] || [ "$which" = all ]; then
  cat >"$work/script.js" <<'EOF'
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1 });
export const options = { vus: 8, duration: '6s', thresholds: { dnecho_req_duration: ['p(99)<1000'] } };
export default function () { client.echo(); }
EOF
  OZONE_CONF_DIR="$work/conf" "$work/dnecho" --cpuprofile "$work/run.prof" run -q "$work/script.js" >/dev/null 2>&1
  # The iteration's goroutine, the collector that takes its samples, the sinks and thresholds.
  report "dnecho run" "$work/run.prof" 'engine/executor\.|engine/ingest\.|engine/threshold\.|engine/metrics\.'
fi
