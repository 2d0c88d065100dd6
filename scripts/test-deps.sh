#!/usr/bin/env bash
# Installs what the test suite needs on a fresh Debian machine. Idempotent; quiet when all is there.
set -euo pipefail
go mod download
need=()
# Real-component tests of the outputs: InfluxDB 1.6.7, Prometheus 2.42, headless Chromium.
command -v influxd >/dev/null || need+=(influxdb)
command -v prometheus >/dev/null || need+=(prometheus)
command -v chromium >/dev/null || need+=(chromium)
# MIT Kerberos: a throw-away KDC per test (testsupport/testkdc) and kinit/klist for ticket caches.
for tool in krb5kdc:krb5-kdc kadmin.local:krb5-admin-server kinit:krb5-user; do
  command -v "${tool%%:*}" >/dev/null || [ -x "/usr/sbin/${tool%%:*}" ] || need+=("${tool#*:}")
done
# The JDK's own GSSAPI SASL peers (testsupport/jdkpeer) are compiled with javac at test time; the
# real Apache Ozone cluster (testsupport/realozone) runs on Java 17 from jars Maven resolves.
command -v javac >/dev/null || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || need+=(maven)
# npm, for the TypeScript compiler that checks the typings against the examples (below).
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    # Debian's packages would start the servers on their default ports: these tests start their own.
    # Another install running (an unattended upgrade, a second checkout's make test) holds dpkg's
    # lock: wait for it rather than fail.
    apt-get -o DPkg::Lock::Timeout=600 update -qq &&
      RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}"
  else
    echo "missing packages: ${need[*]} (run as root or install them; the tests that need them are skipped)" >&2
  fi
fi
# Apache Ozone's jars from Maven Central into ~/.m2, once (later runs read the cached classpath).
if command -v java >/dev/null && command -v mvn >/dev/null; then
  go run ./cmd/real-ozone -fetch-only
fi
# TypeScript and k6's typings, pinned, into a cache outside the repository (not a module
# dependency): xdnecho's TestTypeScriptExamples runs tsc --noEmit on examples/ against js/index.d.ts.
TS_VERSION=7.0.2
TYPES_K6_VERSION=2.3.0
ts_dir="${XDG_CACHE_HOME:-$HOME/.cache}/dnecho/typescript"
if command -v npm >/dev/null &&
  ! { grep -qs "\"version\": \"$TS_VERSION\"" "$ts_dir/node_modules/typescript/package.json" &&
    grep -qs "\"version\": \"$TYPES_K6_VERSION\"" "$ts_dir/node_modules/@types/k6/package.json"; }; then
  mkdir -p "$ts_dir"
  npm install --prefix "$ts_dir" --no-save --no-audit --no-fund --loglevel=error \
    "typescript@$TS_VERSION" "@types/k6@$TYPES_K6_VERSION" >/dev/null
fi
