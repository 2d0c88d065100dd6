#!/usr/bin/env bash
# The slow-DataNode verdict's false alarms and detections (docs/slow-datanode.md, "How well it
# judges"): for each case, RUNS times, start an emulated cluster (`dnecho cluster`), run
# `dnecho freon dn-echo --target all` against it, stop the cluster, and count the runs whose
# verdict named a DataNode. Even cases slow no DataNode (every name is a false alarm); slowed cases
# slow DataNode 2 (a run counts as detected when the verdict names DataNode 2 and nothing else).
# Cases with hogs run `stress-ng --cpu 4` beside the whole case. The case slow-real pauses a
# DataNode of a real Apache Ozone cluster (e2e/realcluster TestSlowRealDataNodeIsNamed, REAL_TRIALS
# runs against one cluster; needs java 17 and mvn).
#
# Usage: scripts/verdict-trials.sh [CASE...]     (default: every case below but the extra ones)
#   RUNS=50          runs per case
#   DNECHO=bin/dnecho the binary (built from the work tree when it is the default and missing)
#   REAL_TRIALS=10   runs of slow-real
#   OUT=bench/results/verdict-trials   one file per case: each run's per-DataNode block and verdict
# It prints one line per case, e.g.
#   even-quiet        runs=50 named=0  named_dn2=0  other=0  load=3.1-3.4
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-50}
DNECHO=${DNECHO:-bin/dnecho}
OUT=${OUT:-bench/results/verdict-trials}
if [ "$DNECHO" = bin/dnecho ]; then go build -o bin/dnecho ./cmd/dnecho; fi

# name | cluster flags | freon flags | hogs (CPU hogs beside the case)
CASES="
even-quiet||-n 3000 -t 6|0
even-jitter|--latency 2ms --jitter 40ms|-n 3000 -t 24|0
even-hogs||-n 3000 -t 6|4
slow-10v30|--latency 10ms --slow-datanode 2=30ms|-n 3000 -t 24|0
slow-jitter|--latency 2ms --jitter 40ms --slow-datanode 2=40ms|-n 3000 -t 24|0
"
# Not run unless named: the e2e tests' set-up (5 ms, one DataNode at 40 ms) and the jittered
# case, both with hogs beside them.
EXTRA="
slow-e2e-hogs|--latency 5ms --slow-datanode 2=40ms|-n 3000 -t 6|4
slow-jitter-hogs|--latency 2ms --jitter 40ms --slow-datanode 2=40ms|-n 3000 -t 24|4
"

TMP=$(mktemp -d)
CLUSTER_PID= HOG_PID=
cleanup() {
  [ -n "$CLUSTER_PID" ] && kill "$CLUSTER_PID" 2>/dev/null || true
  [ -n "$HOG_PID" ] && kill "$HOG_PID" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$OUT"

load() { cut -d' ' -f1 /proc/loadavg; }

# one_run CLUSTER_FLAGS FREON_FLAGS: prints the address of DataNode 2, then freon's output.
one_run() {
  local dir="$TMP/conf"
  rm -rf "$dir"; mkdir -p "$dir"
  # shellcheck disable=SC2086
  "$DNECHO" cluster --conf-dir "$dir" $1 >"$TMP/cluster.log" 2>&1 &
  CLUSTER_PID=$!
  for _ in $(seq 200); do [ -s "$dir/cluster.json" ] && break; sleep 0.05; done
  python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['datanodes'][1]['addr'])" "$dir/cluster.json"
  # shellcheck disable=SC2086
  "$DNECHO" freon dn-echo --conf "$dir" --container-id 1 --target all $2 2>&1 || echo "freon exit $?"
  kill "$CLUSTER_PID"; wait "$CLUSTER_PID" 2>/dev/null || true
  CLUSTER_PID=
}

run_case() {
  local name=$1 cflags=$2 fflags=$3 hogs=$4 file="$OUT/$1.txt"
  : >"$file"
  echo "# $name: dnecho cluster $cflags; dnecho freon dn-echo --target all $fflags; hogs=$hogs; $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(nproc) CPUs" >>"$file"
  if [ "$hogs" -gt 0 ]; then
    stress-ng --cpu "$hogs" --timeout 3600 --quiet & HOG_PID=$!
  fi
  local named=0 dn2=0 other=0 l0 l1
  l0=$(load)
  for i in $(seq "$RUNS"); do
    one_run "$cflags" "$fflags" >"$TMP/run"
    local addr n
    addr=$(head -1 "$TMP/run")
    { echo "## run $i (DataNode 2 at $addr, load $(load))"; sed -n '/Per DataNode (/,$p' "$TMP/run" | sed -E 's/^.*INFO dnecho.freon: //'; } >>"$file"
    n=$(grep -c 'SLOW DATANODE' "$TMP/run" || true)
    if [ "$n" -gt 0 ]; then named=$((named + 1)); fi
    if [ "$n" -eq 1 ] && grep -q "SLOW DATANODE .*($addr)" "$TMP/run"; then dn2=$((dn2 + 1)); elif [ "$n" -gt 0 ]; then other=$((other + 1)); fi
  done
  l1=$(load)
  if [ -n "$HOG_PID" ]; then kill "$HOG_PID"; wait "$HOG_PID" 2>/dev/null || true; HOG_PID=; fi
  local line
  line=$(printf '%-17s runs=%d named=%-3d named_dn2=%-3d other=%-3d load=%s-%s' "$name" "$RUNS" "$named" "$dn2" "$other" "$l0" "$l1")
  echo "# $line" >>"$file"
  echo "$line"
}

# real_case: the paused real DataNode, REAL_TRIALS runs against one real cluster.
real_case() {
  # A cluster that does not start (a machine too busy for its JVMs) runs no trial: its log goes
  # to slow-real-notrun.txt, and the last trials' slow-real.txt stays.
  local file="$OUT/slow-real.txt" tmp="$TMP/slow-real.txt" l0 line
  l0=$(load)
  echo "# slow-real: e2e/realcluster TestSlowRealDataNodeIsNamed, $REAL_TRIALS trials; $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(nproc) CPUs" >"$tmp"
  DNECHO_SLOW_TRIALS=$REAL_TRIALS go test -count=1 -timeout 30m -run '^TestSlowRealDataNodeIsNamed$' -v ./e2e/realcluster/ >>"$tmp" 2>&1 || true
  line=$(grep -o 'verdict-trials: .*' "$tmp" | tail -1 | sed 's/^verdict-trials: //')
  if [ -z "$line" ]; then
    file="$OUT/slow-real-notrun.txt"
    line="slow-real         did not run (see $file)"
  else
    line=$(printf '%-17s %s load=%s-%s' slow-real "${line#slow-real }" "$l0" "$(load)")
  fi
  echo "# $line" >>"$tmp"
  mv "$tmp" "$file"
  echo "$line"
}

REAL_TRIALS=${REAL_TRIALS:-10}
want=("$@")
while IFS='|' read -r name cflags fflags hogs; do
  [ -z "$name" ] && continue
  if [ ${#want[@]} -gt 0 ]; then
    case " ${want[*]} " in *" $name "*) ;; *) continue;; esac
  elif grep -q "^$name|" <<<"$EXTRA"; then
    continue
  fi
  run_case "$name" "$cflags" "$fflags" "$hogs"
done <<<"$CASES$EXTRA"
if [ ${#want[@]} -eq 0 ] || [[ " ${want[*]} " == *" slow-real "* ]]; then real_case; fi
