#!/usr/bin/env bash
# `make bench`: end-to-end throughput/latency/CPU against the mini cluster, as ratios to the floor
# (bench/rawecho) and beside ghz, then the Go micro-benchmarks of the hot paths. Figures belong in
# BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/rawecho ./bench/rawecho
go build -o bin/bench-harness ./bench/harness
# ghz, the gRPC load tool a user would pick instead, is bench tooling only: installed into bin/,
# never a dependency of the module. Without network the table leaves it out.
GHZ_VERSION=${GHZ_VERSION:-v0.93.0}
if ! go version -m bin/ghz 2>/dev/null | grep -Eq "^\s+mod\s+github.com/bojand/ghz\s+${GHZ_VERSION}\s"; then
  GOBIN="$PWD/bin" go install "github.com/bojand/ghz/cmd/ghz@${GHZ_VERSION}" ||
    echo "bench: could not install ghz ${GHZ_VERSION}; the table leaves it out" >&2
fi
N=${BENCH_N:-100000}
./bin/bench-harness -dnecho bin/dnecho -raw bin/rawecho -ghz bin/ghz -n "$N" -reps "${BENCH_REPS:-5}" \
  -threads "${BENCH_THREADS-1,32}" -ratis-n "${BENCH_RATIS_N:-20000}" ${BENCH_PROFILE:+-profile "$BENCH_PROFILE"}
if [ -z "${BENCH_SKIP_MICRO:-}" ]; then
  echo
  echo "micro-benchmarks (go test -bench, -benchtime ${BENCH_TIME:-1s}):"
  go test -run '^$' -bench . -benchmem -benchtime "${BENCH_TIME:-1s}" ./bench/... ./ozone/... ./engine/... ./freon/... 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)' || true
fi
