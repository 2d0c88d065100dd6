#!/usr/bin/env bash
# `make demo`: start the embedded mini cluster, run the quickstart scenario against it, print the
# summary. DEMO_DURATION shortens or lengthens it (default 10s).
set -euo pipefail
cd "$(dirname "$0")/.."
echo '$ dnecho run --local-cluster -e DURATION='"${DEMO_DURATION:-10s}"' examples/quickstart.js'
exec ./bin/dnecho run --local-cluster -e DURATION="${DEMO_DURATION:-10s}" examples/quickstart.js
