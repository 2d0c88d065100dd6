#!/usr/bin/env bash
# Two builds of dnecho run side by side (BENCHMARKS.md, "The JS path's fast lane"): at 32
# threads against the first DataNode of a running `dnecho cluster --conf-dir CONFDIR`, each round
# runs the floor (bench/rawecho), `dnecho freon dn-echo` (of AFTER), `dnecho run
# examples/freon-equivalent.js` of BEFORE and of AFTER, back to back; one line per run with its
# calls/s and CPU per call (user+sys from rusage / calls).
# Usage: scripts/bench-paired.sh BEFORE AFTER bin/rawecho CONFDIR ROUNDS N_NEW N_REUSE
set -euo pipefail
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
B=$1 A=$2 RAW=$3 CONF=$4 ROUNDS=$5 NNEW=$6 NREUSE=$7
ADDR=$(python3 -c "import json;print(json.load(open('$CONF/cluster.json'))['datanodes'][0]['addr'])")
UUID=$(python3 -c "import json;print(json.load(open('$CONF/cluster.json'))['datanodes'][0]['uuid'])")
SCM=$(python3 -c "import json;print(json.load(open('$CONF/cluster.json'))['scm'][0])")
for mode in new reuse; do
  n=$NNEW; rflag=(); fflag=()
  if [ $mode = reuse ]; then n=$NREUSE; rflag=(-reuse); fflag=(--stream reuse); fi
  for r in $(seq 1 "$ROUNDS"); do
    for tool in raw freon run-before run-after; do
      case $tool in
        raw) cmd=("$RAW" -addr "$ADDR" -uuid "$UUID" -n "$n" -t 32 "${rflag[@]}");;
        freon) cmd=("$A" freon dn-echo --conf "$CONF" --container-id 1 -n "$n" -t 32 "${fflag[@]}");;
        run-*) bin=$B; [ $tool = run-after ] && bin=$A
          cmd=("$bin" run -q --summary-trend-stats 'med,p(99)' -e DNECHO_SCM=$SCM -e ITERATIONS=$n -e THREADS=32 -e PAYLOAD_RESP_KB=0 -e STREAM=$mode examples/freon-equivalent.js);;
      esac
      /usr/bin/time -o "$TMP/time" -f "%U %S %e" "${cmd[@]}" >"$TMP/out" 2>&1
      read -r u s e < "$TMP/time"
      rate=$(grep -oE 'calls_per_s=[0-9.]+|mean_rate=[0-9.E-]+|dnecho_reqs\.*: [0-9]+ +[0-9.]+/s' "$TMP/out" | grep -oE '[0-9.E-]+(/s)?$' | tr -d '/s' | head -1)
      us=$(python3 -c "print(round(($u+$s)/$n*1e6,2))")
      echo "mode=$mode round=$r tool=$tool calls=$n user=$u sys=$s wall=$e calls_per_s=$rate cpu_us_per_call=$us"
    done
  done
done
