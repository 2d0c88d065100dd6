#!/usr/bin/env bash
# `make demo`: start the embedded mini cluster, send it the freon drop-in's Echo load (freon's
# report), run the quickstart scenario against it (k6's summary), stop it, and say what to try
# next. DEMO_DURATION shortens or lengthens the scenario (default 10s); the first argument names
# the binary (default ./bin/dnecho, which `make demo` builds).
set -euo pipefail
bin=$(realpath "${1:-$(dirname "$0")/../bin/dnecho}")
cd "$(dirname "$0")/.."
conf=$(mktemp -d "${TMPDIR:-/tmp}/dnecho-demo.XXXXXX")
cluster=""
cleanup() {
	if [[ -n $cluster ]]; then
		kill "$cluster" 2>/dev/null || true
		wait "$cluster" 2>/dev/null || true
	fi
	rm -rf "$conf"
}
trap cleanup EXIT

# show prints a command as the reader would type it (./bin/dnecho as dnecho), then runs it.
show() {
	echo
	echo "\$ dnecho ${*:2}" | sed "s|$conf|/tmp/mini|g"
	"$@"
}

echo "\$ dnecho cluster --conf-dir /tmp/mini &"
"$bin" cluster --conf-dir "$conf" >"$conf/cluster.log" 2>&1 &
cluster=$!
for _ in $(seq 300); do
	grep -q 'running on' "$conf/cluster.log" 2>/dev/null && break
	if ! kill -0 "$cluster" 2>/dev/null; then
		cat "$conf/cluster.log" >&2
		exit 1
	fi
	sleep 0.1
done
if ! grep -q 'running on' "$conf/cluster.log"; then
	echo "demo: the mini cluster did not start within 30 s" >&2
	cat "$conf/cluster.log" >&2
	exit 1
fi
sed -n '1,/^  config:/p' "$conf/cluster.log" | sed "s|$conf|/tmp/mini|g"

# The headline: `ozone freon dn-echo` with `ozone` swapped for `dnecho`, same options, same report.
show "$bin" freon dn-echo --conf "$conf" --container-id 1 -n 20000 -t 8
show "$bin" run --conf "$conf" -e DURATION="${DEMO_DURATION:-10s}" examples/quickstart.js

cat <<'EOF'

Next, on your own cluster: swap `ozone` for `dnecho` in the freon command you know.
  dnecho freon dn-echo --conf /etc/ozone/conf --container-id 1 -n 100000 -t 32
Or keep an emulated cluster running and try the Ratis read path (the Raft leader answers):
  dnecho cluster --conf-dir /tmp/mini &
  dnecho freon dn-echo --conf /tmp/mini --container-id 1 -n 100000 -t 32 --ratis --read-only
EOF
