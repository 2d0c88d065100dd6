#!/usr/bin/env bash
# The GC policy's paired rounds (BENCHMARKS.md, "The JS path's fast lane"): at 32 threads against
# the first DataNode of a running `dnecho cluster --conf-dir CONFDIR`, each round runs the floor
# (bench/rawecho, with its heap floor), `dnecho freon dn-echo` with dnecho's heap floor (the
# default) and with GOGC=100, back to back; one line per run with its CPU per call (user+sys from
# rusage / calls). Usage: scripts/bench-gcpolicy.sh bin/dnecho bin/rawecho CONFDIR ROUNDS N_NEW N_REUSE
set -euo pipefail
TIMES=$(mktemp)
trap 'rm -f "$TIMES"' EXIT
DN=$1 RAW=$2 CONF=$3 ROUNDS=$4 NNEW=$5 NREUSE=$6
ADDR=$(python3 -c "import json;print(json.load(open('$CONF/cluster.json'))['datanodes'][0]['addr'])")
UUID=$(python3 -c "import json;print(json.load(open('$CONF/cluster.json'))['datanodes'][0]['uuid'])")
for mode in new reuse; do
  n=$NNEW; rflag=(); fflag=()
  if [ $mode = reuse ]; then n=$NREUSE; rflag=(-reuse); fflag=(--stream reuse); fi
  for r in $(seq 1 "$ROUNDS"); do
    for tool in raw freon-floor freon-gogc100; do
      case $tool in
        raw) cmd=("$RAW" -addr "$ADDR" -uuid "$UUID" -n "$n" -t 32 "${rflag[@]}"); env=();;
        freon-floor) cmd=("$DN" freon dn-echo --conf "$CONF" --container-id 1 -n "$n" -t 32 "${fflag[@]}"); env=();;
        freon-gogc100) cmd=("$DN" freon dn-echo --conf "$CONF" --container-id 1 -n "$n" -t 32 "${fflag[@]}"); env=(GOGC=100);;
      esac
      /usr/bin/time -o "$TIMES" -f "%U %S %e" env "${env[@]}" "${cmd[@]}" >/dev/null 2>&1
      read -r u s e < "$TIMES"
      us=$(python3 -c "print(round(($u+$s)/$n*1e6,2))")
      echo "mode=$mode round=$r tool=$tool calls=$n user=$u sys=$s wall=$e cpu_us_per_call=$us"
    done
  done
done
