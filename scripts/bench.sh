#!/usr/bin/env bash
# `make bench`: end-to-end throughput/latency/CPU against the mini cluster, as ratios to the floor
# (bench/rawecho) and beside ghz; then, when java and mvn are there, the same tools and Java
# `ozone freon dn-echo` against a real Apache Ozone 2.2.0 DataNode; then the Go micro-benchmarks of
# the hot paths. Figures belong in BENCHMARKS.md.
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
# The section against a real DataNode starts a real cluster (40-80 s) and runs Java freon beside
# dnecho: about five minutes more. BENCH_REAL=0 leaves it out, BENCH_EMULATED=0 runs it alone.
REAL=(-real=false)
if [ "${BENCH_REAL:-1}" != 0 ]; then
  if command -v java >/dev/null && command -v mvn >/dev/null; then
    REAL=(-real -real-n "${BENCH_REAL_N:-50000}" -real-ratis-n "${BENCH_REAL_RATIS_N:-5000}" -real-reps "${BENCH_REAL_REPS:-3}")
  else
    echo "bench: no java or mvn: the rows against a real DataNode are left out (scripts/test-deps.sh installs them)" >&2
  fi
fi
./bin/bench-harness -dnecho bin/dnecho -raw bin/rawecho -ghz bin/ghz -n "$N" -reps "${BENCH_REPS:-5}" \
  -threads "${BENCH_THREADS-1,32}" -ratis-n "${BENCH_RATIS_N:-20000}" ${BENCH_PROFILE:+-profile "$BENCH_PROFILE"} \
  -emulated="$([ "${BENCH_EMULATED:-1}" = 0 ] && echo false || echo true)" "${REAL[@]}"
if [ -z "${BENCH_SKIP_MICRO:-}" ]; then
  echo
  echo "micro-benchmarks (go test -bench, -benchtime ${BENCH_TIME:-1s}):"
  go test -run '^$' -bench . -benchmem -benchtime "${BENCH_TIME:-1s}" ./bench/... ./ozone/... ./engine/... ./freon/... 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)' || true
fi
