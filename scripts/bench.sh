#!/usr/bin/env bash
# `make bench`: end-to-end throughput/latency/CPU against the mini cluster, as ratios to a raw
# grpc-go loop, then the Go micro-benchmarks of the hot paths. Figures belong in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/rawecho ./bench/rawecho
go build -o bin/bench-harness ./bench/harness
N=${BENCH_N:-100000}
./bin/bench-harness -dnecho bin/dnecho -raw bin/rawecho -n "$N" -reps "${BENCH_REPS:-5}" -ratis-n "${BENCH_RATIS_N:-20000}"
if [ -z "${BENCH_SKIP_MICRO:-}" ]; then
  echo
  echo "micro-benchmarks (go test -bench, -benchtime ${BENCH_TIME:-1s}):"
  go test -run '^$' -bench . -benchmem -benchtime "${BENCH_TIME:-1s}" ./ozone/... ./engine/... ./freon/... 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)' || true
fi
