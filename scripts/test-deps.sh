#!/usr/bin/env bash
# Installs what the test suite needs on a fresh Debian machine. Idempotent; quiet when all is there.
set -euo pipefail
go mod download
need=()
# (Real-component tests — InfluxDB, Prometheus, MIT Kerberos, Chromium — add their packages here.)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
  else
    echo "missing packages: ${need[*]} (run as root or install them)" >&2; exit 1
  fi
fi
