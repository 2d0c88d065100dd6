#!/usr/bin/env bash
# Installs the pinned protobuf generators (and protoc from Debian when run as root).
set -euo pipefail
if ! command -v protoc >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get -o DPkg::Lock::Timeout=600 update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -qq protobuf-compiler; else
    echo "protoc is missing: install Debian's protobuf-compiler (3.21.12)" >&2; exit 1; fi
fi
GOBIN="$(go env GOPATH)/bin" go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
GOBIN="$(go env GOPATH)/bin" go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1
