#!/usr/bin/env bash
# Regenerates the Go code from the .proto files (run by `make proto`).
# Pinned generators: protoc-gen-go v1.36.12, protoc-gen-go-grpc v1.5.1; protoc 3.21.12 (Debian).
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$(go env GOPATH)/bin:$PATH"
protoc --proto_path=. \
  --go_out=. --go_opt=paths=source_relative \
  --go-grpc_out=. --go-grpc_opt=paths=source_relative \
  hadooppb/*.proto hddspb/*.proto scmpb/*.proto dnpb/*.proto promrwpb/*.proto ompb/*.proto ratispb/*.proto ratisgrpcpb/*.proto
