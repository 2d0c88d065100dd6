#!/usr/bin/env bash
# `make bench`: end-to-end throughput/latency/CPU against the mini cluster, as ratios to the floor
# (bench/rawecho) and beside ghz; then, when java and mvn are there, the same tools and Java
# `ozone freon dn-echo` against a real Apache Ozone 2.2.0 DataNode; then the Go micro-benchmarks of
# the hot paths, compared with the committed baseline bench/results/micro.txt by benchstat. Figures
# belong in BENCHMARKS.md. BENCH_MICRO_ONLY=1 runs the micro-benchmarks alone; BENCH_SAVE=1 (or
# `make bench-baseline`) makes their run the new baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
# The scaling rows (the client's CPU per call and RSS with 3, 30 and 100
# DataNodes, RSS per VU at 1,000 and 10,000 VUs; about two minutes) end the harness's run and
# write their raw outputs to bench/results/scaling-*.txt. BENCH_SCALING_ONLY=1 runs them alone,
# BENCH_SCALING=0 leaves them out.
SCALING=(-scaling="$([ "${BENCH_SCALING:-1}" = 0 ] && echo false || echo true)" -scaling-out bench/results
  -scaling-reps "${BENCH_SCALING_REPS:-3}")
if [ -n "${BENCH_SCALING_ONLY:-}" ]; then
  go build -o bin/rawecho ./bench/rawecho
  go build -o bin/bench-harness ./bench/harness
  exec ./bin/bench-harness -dnecho bin/dnecho -raw bin/rawecho -emulated=false -real=false "${SCALING[@]}" -scaling
fi
if [ -z "${BENCH_MICRO_ONLY:-}" ]; then
  go build -o bin/rawecho ./bench/rawecho
  go build -o bin/bench-harness ./bench/harness
  # ghz, the gRPC load tool a user would pick instead, is bench tooling only: installed into bin/,
  # never a dependency of the module. Without network the table leaves it out.
  GHZ_VERSION=${GHZ_VERSION:-v0.93.0}
  if ! go version -m bin/ghz 2>/dev/null | grep -Eq "^\s+mod\s+github.com/bojand/ghz\s+${GHZ_VERSION}\s"; then
    GOBIN="$PWD/bin" go install "github.com/bojand/ghz/cmd/ghz@${GHZ_VERSION}" ||
      echo "bench: could not install ghz ${GHZ_VERSION}; the table leaves it out" >&2
  fi
  # h2load (Debian's nghttp2-client), the physical-limit row: an HTTP/2 load tool in C sending
  # the same request bytes. Bench tooling too; as root it is installed, else the table leaves it out.
  if ! command -v h2load >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      { apt-get -o DPkg::Lock::Timeout=600 update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends nghttp2-client; } >/dev/null ||
        echo "bench: could not install nghttp2-client (h2load); the table leaves it out" >&2
    else
      echo "bench: no h2load (Debian's nghttp2-client; run as root to have it installed); the table leaves it out" >&2
    fi
  fi
  N=${BENCH_N:-100000}
  # The section against a real DataNode starts a real cluster (40-80 s) and runs Java freon beside
  # dnecho: about five minutes more. BENCH_REAL=0 leaves it out, BENCH_EMULATED=0 runs it alone.
  REAL=(-real=false)
  if [ "${BENCH_REAL:-1}" != 0 ]; then
    if command -v java >/dev/null && command -v mvn >/dev/null; then
      REAL=(-real -real-n "${BENCH_REAL_N:-50000}" -real-ratis-n "${BENCH_REAL_RATIS_N:-5000}" -real-n-1mib "${BENCH_REAL_N_1MIB:-1000}" -real-reps "${BENCH_REAL_REPS:-3}")
    else
      echo "bench: no java or mvn: the rows against a real DataNode are left out (scripts/test-deps.sh installs them)" >&2
    fi
  fi
  ./bin/bench-harness -dnecho bin/dnecho -raw bin/rawecho -ghz bin/ghz -h2load "$(command -v h2load || true)" \
    -n "$N" -n-1mib "${BENCH_N_1MIB:-3000}" -reps "${BENCH_REPS:-5}" \
    -threads "${BENCH_THREADS-1,32}" -ratis-n "${BENCH_RATIS_N:-20000}" ${BENCH_PROFILE:+-profile "$BENCH_PROFILE"} \
    -emulated="$([ "${BENCH_EMULATED:-1}" = 0 ] && echo false || echo true)" "${REAL[@]}" "${SCALING[@]}"
fi
if [ -n "${BENCH_SKIP_MICRO:-}" ]; then exit 0; fi

# The micro-benchmarks' raw output goes to bin/bench-micro.txt, and benchstat compares it with the
# baseline, so a regression in a building block shows as a percentage with a p-value (grpc-go keeps
# its result files the same way). Six runs of each is the fewest for which benchstat gives a range;
# 250ms each keeps this part at about four minutes on the 2-core machine.
MICRO_PKGS=(./bench/... ./ozone/... ./engine/... ./freon/...)
COUNT=${BENCH_COUNT:-6}
TIME=${BENCH_TIME:-250ms}
BASELINE=bench/results/micro.txt
OUT=bin/bench-micro.txt
mkdir -p bin
# benchstat, like ghz, is bench tooling installed into bin/, not a dependency of the module.
BENCHSTAT_VERSION=${BENCHSTAT_VERSION:-v0.0.0-20260908200009-22c9c6c9d4da}
if ! go version -m bin/benchstat 2>/dev/null | grep -Eq "^\s+mod\s+golang.org/x/perf\s+${BENCHSTAT_VERSION}\s"; then
  GOBIN="$PWD/bin" go install "golang.org/x/perf/cmd/benchstat@${BENCHSTAT_VERSION}" 2>/dev/null ||
    echo "bench: could not install benchstat ${BENCHSTAT_VERSION}; the raw results are in ${OUT}, not compared" >&2
fi
echo
echo "micro-benchmarks (go test -bench, -count ${COUNT} -benchtime ${TIME}), raw output in ${OUT}:"
REV="unknown (no git)"
if rev=$(git rev-parse --short HEAD 2>/dev/null); then
  REV=$rev
  git diff --quiet HEAD -- "${MICRO_PKGS[@]%/...}" || REV+=" plus uncommitted changes"
fi
{
  # benchstat skips lines that are neither benchmark results nor "key: value" configuration.
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), commit ${REV}, $(go env GOVERSION), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# go test -run '^\$' -bench . -benchmem -count ${COUNT} -benchtime ${TIME} ${MICRO_PKGS[*]}"
  go test -run '^$' -bench . -benchmem -count "$COUNT" -benchtime "$TIME" "${MICRO_PKGS[@]}" 2>&1 || true
} >"$OUT"
grep -E '^(FAIL|--- FAIL|panic:)' "$OUT" || true
if [ -n "${BENCH_SAVE:-}" ]; then
  mkdir -p "$(dirname "$BASELINE")"
  cp "$OUT" "$BASELINE"
  echo "bench: ${BASELINE} is the new baseline"
  if [ -x bin/benchstat ]; then ./bin/benchstat "$BASELINE"; fi
elif [ ! -f "$BASELINE" ]; then
  echo "bench: no baseline ${BASELINE} (BENCH_SAVE=1 or make bench-baseline makes one)" >&2
elif [ -x bin/benchstat ]; then
  ./bin/benchstat "baseline=${BASELINE}" "new=${OUT}"
else
  grep -E '^Benchmark' "$OUT"
fi
